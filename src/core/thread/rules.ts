/** The rules of comment threads (pure): names, ids, comment bodies, who may remove what. */
import { KiB } from '../http';
import { GROUP_NAME } from '../names';
import type { Perm } from '../perms';
import { badRequest } from '../errors';

/** Largest comment accepted, in bytes (413 above it). */
export const COMMENT_LIMIT = 16 * KiB;
/** Topic names follow the group-name rule: lowercase letters, digits, `-`, `_`. */
export const TOPIC_NAME = GROUP_NAME;
const COMMENT_ID = /^[1-9]\d{0,15}$/;

export function checkTopic(topic: string): string {
  if (!TOPIC_NAME.test(topic)) throw badRequest(`invalid topic '${topic}': lowercase letters, digits, '-' and '_', at most 64 characters (${TOPIC_NAME.source})`);
  return topic;
}

export function checkCommentId(id: string): number {
  if (!COMMENT_ID.test(id)) throw badRequest(`invalid comment id '${id}': comments are numbered (see the thread's listing)`);
  return Number(id);
}

const OPENED_BY = /^@([a-z0-9_]{1,64})~(.*)$/;

/** A topic as the clients address it, `@<user>~<topic>`: the topic and who opened it (400 otherwise). */
export function parseOpenedTopic(ref: string): { user: string; topic: string } {
  const m = OPENED_BY.exec(ref);
  if (!m) throw badRequest(`invalid topic reference '${ref}': expected @<user>~<topic>, the topic and the user who opened it`);
  return { user: m[1]!, topic: checkTopic(m[2]!) };
}

/** Why a comment body is refused (400), or null. Blank comments say nothing. */
export function commentProblem(text: string): string | null {
  return text.trim() === '' ? 'a comment needs some text: the body is empty' : null;
}

export type ThreadSubject = { resource_id: number } | { group_id: number };

/** Who the caller is to a subject's threads. */
export interface ThreadRights {
  /** Listed as the items' permissions. */
  permissions: Perm[];
  /** Removes anyone's threads and comments. */
  moderator: boolean;
}

/** May the caller remove something `ownerId` made? Its maker and moderators may. */
export const mayRemove = (rights: ThreadRights, callerId: number, ownerId: number | null): boolean => rights.moderator || ownerId === callerId;
