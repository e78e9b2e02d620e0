/**
 * Writing comments: reading a comment's text from the request, adding one in a single
 * statement (nothing stored when its thread or parent is gone meanwhile) with its
 * comment.created event in the same batch, and the answers.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import * as z from 'zod';
import { users } from '../../db/schema';
import { nowIso } from '../clock';
import type { Ctx } from '../context';
import { badRequest } from '../errors';
import { text } from '../examples';
import { jsonResponse, readText } from '../http';
import { batchWithEvent, type PlatformEvent } from '../events';
import { COMMENT_LIMIT, commentProblem, type ThreadSubject } from './rules';
import { threadComments, threads } from './schema';
import { once } from '../once';

/** The 201 answer naming what was added (its uri; a comment's also its id). */
const createdSchema = once(() =>
  z
    .object({ status: z.number(), message: z.string(), uri: z.string() })
    .passthrough()
    .meta({
      id: 'Created',
      description: 'What a write added: a thread, a comment or a reply, and where it is',
      example: {
        status: 201,
        message: 'comment 17 added',
        id: 17,
        uri: '/v1/vis/docs/q3_report/threads/@alice~pricing/17',
      },
    }),
);

/** A 201 answer naming what was added (its uri). */
export const created = (what: string) => ({ description: what, type: 'application/json', schema: createdSchema });

/** The text of a comment or a topic (text/plain), as a request or response body. */
export const commentText = once(() => text('Could we split the northern region by country next quarter?'));

export async function readComment(req: Request): Promise<string> {
  const value = await readText(req, COMMENT_LIMIT, `a comment is at most ${COMMENT_LIMIT} bytes (16 KiB)`);
  const problem = commentProblem(value);
  if (problem) throw badRequest(problem);
  return value;
}

/**
 * Adds a comment with `text` (and `slug`, or none) in `thread`, under `parent` (SQL, or null on the topic); null when
 * the thread or parent is gone or the slug is taken.
 */
export function insertComment(c: Ctx, thread: SQL, parent: SQL | null, text: string, slug: string | null) {
  return c.db
    .insert(threadComments)
    .select(
      c.db
        .select({
          id: sql<number>`null`.as('id'),
          thread_id: sql<number>`${threads.id}`.as('thread_id'),
          author_id: sql<number>`${c.caller!.id}`.as('author_id'),
          text: sql<string>`${text}`.as('text'),
          created_on: sql<string>`${nowIso()}`.as('created_on'),
          parent_id: sql<number | null>`${parent ?? sql`null`}`.as('parent_id'),
          slug: sql<string | null>`${slug}`.as('slug'),
          edited: sql<boolean>`0`.as('edited'),
          updated_on: sql<string | null>`null`.as('updated_on'),
        })
        .from(threads)
        // One statement: the thread (or the comment answered) may be removed meanwhile, and then nothing is stored.
        .where(and(sql`${threads.id} = ${thread}`, parent ? sql`${parent} is not null` : undefined)),
    )
    .onConflictDoNothing()
    .returning({ id: threadComments.id });
}

/** One row whose id is what `row` (SQL) names, null when nothing: read beside a write to tell 404 from 403 or 409. */
export function existing(c: Ctx, row: SQL) {
  return c.db
    .select({ id: sql<number | null>`${row}` })
    .from(users)
    .where(eq(users.id, c.caller!.id));
}

/** Where a new comment is: `at` followed by its id, or `at` itself (a comment named by its slug). */
export interface CommentUri {
  at: string;
  byId: boolean;
}

/**
 * The comment.created event (core/events.ts) about the thread's subject, of the comment
 * the statement just before it in the batch inserted (its id is that statement's rowid);
 * none when that statement inserted nothing.
 */
function commentEvent(c: Ctx, subject: ThreadSubject, uri: CommentUri): PlatformEvent {
  const url = `${c.env.PUBLIC_ORIGIN}${uri.at}`;
  return {
    type: 'comment.created',
    ...('resource_id' in subject ? { resourceId: subject.resource_id } : { groupId: subject.group_id }),
    data: {
      comment: sql`last_insert_rowid()`,
      author: c.caller!.username,
      url: uri.byId ? sql`${url} || last_insert_rowid()` : url,
    },
    // Read right after the insert (`also` holds reads only): whether it stored the comment.
    when: sql`changes() = 1`,
  };
}

/**
 * Runs `insert` (insertComment), then `also` (reads only), then the comment's
 * comment.created event, in one batch: the comment and its event are stored together.
 * Answers the new comment's id (null when nothing was stored) and the results of `also`.
 */
export async function addComment(
  c: Ctx,
  subject: ThreadSubject,
  insert: ReturnType<typeof insertComment>,
  uri: CommentUri,
  also: BatchItem<'sqlite'>[] = [],
): Promise<{ id: number | null; also: unknown[] }> {
  const [inserted, ...rest] = await batchWithEvent(
    c.env,
    c.db,
    c.exec,
    [insert, ...also],
    commentEvent(c, subject, uri),
  );
  return { id: (inserted as { id: number }[])[0]?.id ?? null, also: rest };
}

/** The 201 answer naming the comment added (addComment). */
export function commentAdded(id: number, uri: CommentUri): Response {
  const at = uri.byId ? `${uri.at}${id}` : uri.at;
  return jsonResponse({ status: 201, message: `comment ${id} added`, id, uri: at }, { status: 201 });
}
