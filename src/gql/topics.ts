/**
 * Comment topics in the GraphQL API (client contract: `topics { ... comments { ...
 * replies } }`). The threads themselves are the core's (src/core/thread/: tables and
 * rules); this module reads the threads of many subjects at once for a listing and shapes
 * them. Who may see a subject's threads is decided before: an item's topics are read only
 * for an item the listing already lets the caller read (REST: `need: 'r'`), a group's
 * only for a group the caller may see (REST: `need: 'see'`).
 *
 * Replies are the core's: a comment whose `parent_id` names another comment of the thread
 * (PUT .../threads/@<a>~<topic>/comments/@<b>~<c>/comments/<slug>). A topic's and a
 * comment's `slug` is the one its author chose (comments added without one: their id),
 * `message` its text (POST .../msg), `edited` whether that text was rewritten. All comments
 * of the wanted threads come in one statement and the tree is built here, so any depth of
 * `replies` costs nothing more. No reactions are stored: likes and dislikes 0,
 * `my_reaction` null.
 */
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../core/context';
import { threadComments, threads } from '../core/thread';
import { users } from '../db/schema';
import { inJson, mentionsIn } from './values';

export interface GqlComment {
  id: number;
  /** The slug its author chose; its id for comments added without one. */
  slug: string;
  text: string;
  edited: boolean;
  /** Last write of its text (its creation when never written). */
  updated_on: string;
  author: string | null;
  created_on: string;
  /** 0 for a comment on the topic, +1 per reply level. */
  depth: number;
  /** Direct replies, oldest first. */
  replies: GqlComment[];
}

export interface GqlTopic {
  id: number;
  topic: string;
  message: string;
  edited: boolean;
  creator: string | null;
  created_on: string;
  /** Last write of its text (null when never written). */
  updated_on: string | null;
  /** Who takes part: the item's readers, or the group's members. */
  audience: 'readers' | 'members';
  /** Comments on the topic itself (no parent), oldest first, each with its replies. */
  comments: GqlComment[];
  /** Every comment of the topic, replies included, oldest first. */
  all: GqlComment[];
}

export interface CommentRow {
  id: number;
  parent_id: number | null;
  slug?: string | null;
  text: string;
  edited?: boolean;
  author: string | null;
  created_on: string;
  updated_on?: string | null;
}

/**
 * Pure: the reply tree of one thread's comments (given oldest first, by id). A reply
 * always comes after the comment it answers (its parent existed when it was written); a
 * comment whose parent is not among the rows is shown on the topic rather than lost.
 */
export function commentTree(rows: readonly CommentRow[]): { comments: GqlComment[]; all: GqlComment[] } {
  const byId = new Map<number, GqlComment>();
  const comments: GqlComment[] = [];
  const all: GqlComment[] = [];
  for (const r of rows) {
    const parent = r.parent_id === null ? undefined : byId.get(r.parent_id);
    const c: GqlComment = {
      id: r.id,
      slug: r.slug ?? String(r.id),
      text: r.text,
      edited: !!r.edited,
      author: r.author,
      created_on: r.created_on,
      updated_on: r.updated_on ?? r.created_on,
      depth: parent ? parent.depth + 1 : 0,
      replies: [],
    };
    byId.set(c.id, c);
    all.push(c);
    (parent ? parent.replies : comments).push(c);
  }
  return { comments, all };
}

/** The topics (with their comment trees) of each subject: two statements in one batch. */
export async function topicsOf(db: Db, on: 'resource_id' | 'group_id', ids: readonly number[]): Promise<GqlTopic[][]> {
  const column = on === 'resource_id' ? threads.resource_id : threads.group_id;
  const [ts, cs] = await db.batch([
    db
      .select({
        id: threads.id,
        subject: column,
        topic: threads.topic,
        message: threads.message,
        edited: threads.edited,
        creator: users.username,
        created_on: threads.created_on,
        updated_on: threads.updated_on,
      })
      .from(threads)
      .leftJoin(users, eq(users.id, threads.created_by))
      .where(inJson(column, ids))
      .orderBy(asc(threads.topic), asc(threads.id)),
    db
      .select({
        id: threadComments.id,
        thread_id: threadComments.thread_id,
        parent_id: threadComments.parent_id,
        slug: threadComments.slug,
        text: threadComments.text,
        edited: threadComments.edited,
        author: users.username,
        created_on: threadComments.created_on,
        updated_on: threadComments.updated_on,
      })
      .from(threadComments)
      .leftJoin(users, eq(users.id, threadComments.author_id))
      .where(sql`${threadComments.thread_id} in (select id from ${threads} where ${inJson(column, ids)})`)
      .orderBy(asc(threadComments.id)),
  ]);
  const byThread = new Map<number, CommentRow[]>();
  for (const c of cs) {
    if (!byThread.has(c.thread_id)) byThread.set(c.thread_id, []);
    byThread.get(c.thread_id)!.push(c);
  }
  const bySubject = new Map<number, GqlTopic[]>();
  for (const t of ts) {
    const key = t.subject!;
    if (!bySubject.has(key)) bySubject.set(key, []);
    const tree = commentTree(byThread.get(t.id) ?? []);
    bySubject.get(key)!.push({ ...t, audience: on === 'resource_id' ? 'readers' : 'members', ...tree });
  }
  return ids.map((id) => bySubject.get(id) ?? []);
}

/**
 * Usernames mentioned in a message that name an account (resolved through the users
 * loader). The comment tree is in memory, so the mentions of every depth are asked in the
 * same execution tick: one statement for all of them.
 */
export async function mentionsOf(text: string, userByName: (name: string) => Promise<{ username: string } | null>) {
  const found = await Promise.all(mentionsIn(text).map(async (name) => ({ name, user: await userByName(name) })));
  return found.filter((m) => m.user).map((m) => ({ nonce: `@${m.name}`, user: { username: m.user!.username } }));
}
