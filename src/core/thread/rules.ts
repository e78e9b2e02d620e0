/**
 * The rules of comment threads (pure): names, references, comment paths, bodies, edits,
 * who may remove what. Topics and comments are named by a slug their author chooses
 * (unique per author among siblings) and addressed as `@<author>~<slug>`; comments added
 * without a slug (POST <subject>/threads/<topic>) are named by their numeric id.
 */
import { KiB } from '../http';
import { GROUP_NAME } from '../names';
import type { Perm } from '../perms';
import { badRequest } from '../errors';

/** Largest comment accepted, in bytes (413 above it). */
export const COMMENT_LIMIT = 16 * KiB;
/** Topic names follow the group-name rule: lowercase letters, digits, `-`, `_`. */
const TOPIC_NAME = GROUP_NAME;
const COMMENT_ID = /^[1-9]\d{0,15}$/;

export function checkTopic(topic: string): string {
  if (!TOPIC_NAME.test(topic))
    throw badRequest(
      `invalid topic '${topic}': lowercase letters, digits, '-' and '_', at most 64 characters (${TOPIC_NAME.source})`,
    );
  return topic;
}

export function checkCommentId(id: string): number {
  if (!COMMENT_ID.test(id))
    throw badRequest(`invalid comment id '${id}': comments are numbered (see the thread's listing)`);
  return Number(id);
}

const OPENED_BY = /^@([a-z0-9_]{1,64})~(.*)$/;

/** A topic as the clients address it, `@<user>~<topic>`: the topic and who opened it (400 otherwise). */
export function parseOpenedTopic(ref: string): { user: string; topic: string } {
  const m = OPENED_BY.exec(ref);
  if (!m)
    throw badRequest(
      `invalid topic reference '${ref}': expected @<user>~<topic>, the topic and the user who opened it`,
    );
  return { user: m[1]!, topic: checkTopic(m[2]!) };
}

/** A comment's slug follows the topic rule. */
export function checkCommentSlug(slug: string): string {
  if (!TOPIC_NAME.test(slug))
    throw badRequest(
      `invalid comment slug '${slug}': lowercase letters, digits, '-' and '_', at most 64 characters (${TOPIC_NAME.source})`,
    );
  return slug;
}

/** One comment on a path below a topic: named by its author and slug, or by its id. */
export type CommentStep = { id: number } | { user: string; slug: string };

/** `@<author>~<slug>`, or a comment id (comments added without a slug); 400 otherwise. */
export function parseCommentStep(segment: string): CommentStep {
  if (/^\d+$/.test(segment)) return { id: checkCommentId(segment) };
  const m = OPENED_BY.exec(segment);
  if (!m) throw badRequest(`invalid comment reference '${segment}': expected @<author>~<slug> or a comment id`);
  return { user: m[1]!, slug: checkCommentSlug(m[2]!) };
}

/** Most comment levels a path below a topic may name. */
const COMMENT_PATH_LEVELS = 64;

/**
 * The segments of a path below a topic's `comments/`: `<a>`, `<a>/comments/<b>`, ... (each
 * reply sits under `comments/` of the comment it answers); 400 for any other shape.
 */
export function parseCommentPath(path: string): string[] {
  const parts = path.split('/');
  const segments = parts.filter((_, i) => i % 2 === 0);
  const joints = parts.filter((_, i) => i % 2 === 1);
  if (parts.length % 2 === 0 || joints.some((j) => j !== 'comments') || segments.some((s) => s === ''))
    throw badRequest(
      `invalid comment path '${path}': expected <comment>[/comments/<comment>...], each comment @<author>~<slug> or an id`,
    );
  if (segments.length > COMMENT_PATH_LEVELS)
    throw badRequest(`a comment path names at most ${COMMENT_PATH_LEVELS} levels`);
  return segments;
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
/** The author shown for a comment whose account was deleted (not a valid username: no one can take it). */
export const DELETED_AUTHOR = 'deleted user';

export const mayRemove = (rights: ThreadRights, callerId: number, ownerId: number | null): boolean =>
  rights.moderator || ownerId === callerId;
