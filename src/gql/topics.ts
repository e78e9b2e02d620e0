/**
 * Comment topics in the GraphQL API (client contract: `topics { ... comments { ...
 * replies } }`). The threads themselves are the core's (src/core/threads.ts: tables and
 * rules); this module reads the threads of many subjects at once for a listing and shapes
 * them. Who may see a subject's threads is decided before: an item's topics are read only
 * for an item the listing already lets the caller read (REST: `need: 'r'`), a group's
 * only for a group the caller may see (REST: `need: 'see'`).
 *
 * The thread model has no replies or reactions (yet): comments are flat (`depth` 0,
 * `replies` []), likes and dislikes 0, `my_reaction` null.
 */
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../core/context';
import { threadComments, threads } from '../core/threads';
import { users } from '../db/schema';
import { inJson, mentionsIn } from './values';

export interface GqlComment {
  id: number;
  text: string;
  author: string | null;
  created_on: string;
}

export interface GqlTopic {
  id: number;
  topic: string;
  creator: string | null;
  created_on: string;
  /** Who takes part: the item's readers, or the group's members. */
  audience: 'readers' | 'members';
  comments: GqlComment[];
}

/** The topics (with their comments, oldest first) of each subject: two statements in one batch. */
export async function topicsOf(db: Db, on: 'resource_id' | 'group_id', ids: readonly number[]): Promise<GqlTopic[][]> {
  const column = on === 'resource_id' ? threads.resource_id : threads.group_id;
  const [ts, cs] = await db.batch([
    db
      .select({ id: threads.id, subject: column, topic: threads.topic, creator: users.username, created_on: threads.created_on })
      .from(threads)
      .leftJoin(users, eq(users.id, threads.created_by))
      .where(inJson(column, ids))
      .orderBy(asc(threads.topic)),
    db
      .select({ id: threadComments.id, thread_id: threadComments.thread_id, text: threadComments.text, author: users.username, created_on: threadComments.created_on })
      .from(threadComments)
      .leftJoin(users, eq(users.id, threadComments.author_id))
      .where(sql`${threadComments.thread_id} in (select id from ${threads} where ${inJson(column, ids)})`)
      .orderBy(asc(threadComments.id)),
  ]);
  const byThread = new Map<number, GqlComment[]>();
  for (const c of cs) {
    if (!byThread.has(c.thread_id)) byThread.set(c.thread_id, []);
    byThread.get(c.thread_id)!.push({ id: c.id, text: c.text, author: c.author, created_on: c.created_on });
  }
  const bySubject = new Map<number, GqlTopic[]>();
  for (const t of ts) {
    const key = t.subject!;
    if (!bySubject.has(key)) bySubject.set(key, []);
    bySubject.get(key)!.push({ id: t.id, topic: t.topic, creator: t.creator, created_on: t.created_on, audience: on === 'resource_id' ? 'readers' : 'members', comments: byThread.get(t.id) ?? [] });
  }
  return ids.map((id) => bySubject.get(id) ?? []);
}

/** Usernames mentioned in a message that name an account (resolved through the users loader). */
export async function mentionsOf(text: string, userByName: (name: string) => Promise<{ username: string } | null>) {
  const found = await Promise.all(mentionsIn(text).map(async (name) => ({ name, user: await userByName(name) })));
  return found.filter((m) => m.user).map((m) => ({ nonce: `@${m.name}`, user: { username: m.user!.username } }));
}
