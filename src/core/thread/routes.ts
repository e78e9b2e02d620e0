/**
 * Comment threads, one module for every subject that has them (a resource, a group). A
 * subject has threads (topics); a thread holds comments, and comments hold replies, to any
 * depth. Topics and comments are named by a slug their author chooses, unique per author
 * among siblings, and addressed as `@<author>~<slug>`; each has its own text (`msg`),
 * written by its author only, marked edited when rewritten. Comments added by POST (no
 * slug) are named by their numeric id, which keeps working wherever a comment is named.
 * `:topic` below is `@<author>~<topic>` or a bare topic (the caller's own of that name,
 * else the oldest of that name).
 *
 *   GET    <base>/threads                  listing of the topics
 *   PUT    <base>/threads/:topic           opens a topic named :topic (201; 409 when the
 *                                          caller has one of that name)
 *   POST   <base>/threads/@<a>~<topic>/msg the topic's text (its author; 204)
 *   PUT    <base>/threads/:topic/comments/<slug>
 *   PUT    <base>/threads/:topic/comments/<c>/comments/<slug>   (any depth)
 *                                          adds a comment named <slug> on the topic, or a
 *                                          reply under comment <c> (201; 409 when the
 *                                          caller has one of that name there)
 *   POST   <base>/threads/:topic/comments/<c>[/comments/<c>...]/msg
 *                                          the last comment @<a>~<slug>: its text (its
 *                                          author; 204); a comment id: a reply to it with
 *                                          this text (201 with the reply's id)
 *   GET    <base>/threads/:topic           listing of its comments, oldest first
 *                                          (extra fields id, slug, author, text, reply_to, edited)
 *   POST   <base>/threads/:topic           text/plain body: a new comment (201 with its id)
 *   GET    <base>/threads/:topic/:comment  one comment's text (:comment its id)
 *   DELETE <base>/threads/:topic/:comment  removes a comment (its author or a moderator)
 *   DELETE <base>/threads/:topic           removes a thread and its comments (whoever
 *                                          opened it or a moderator)
 *
 * Who may do what is the host's: `rights` says who the caller is to the subject's threads
 * (and throws to hide them), `writeRefusal` why the caller may not open or comment now.
 * The host mounts the routes on its own scope (which loads the subject and checks that
 * the caller may see it): `threadRoutes(r.with({ need: 'r' }), host)`.
 */
import { and, asc, eq, max, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { users } from '../../db/schema';
import type { Scope } from '../api';
import { nowIso } from '../clock';
import type { Ctx } from '../context';
import { badRequest, conflict, forbidden, notFound } from '../errors';
import { jsonResponse, noContent, readText, textResponse } from '../http';
import { listingItemSchema, listingResponse, listingResponses, type ListingItem, type Verb } from '../listing';
import {
  checkCommentId,
  checkCommentSlug,
  checkTopic,
  COMMENT_LIMIT,
  commentProblem,
  mayRemove,
  parseCommentPath,
  parseCommentStep,
  parseOpenedTopic,
  type CommentStep,
  type ThreadRights,
  type ThreadSubject,
} from './rules';
import { threadComments, threads } from './schema';

export interface ThreadHost<C extends Ctx> {
  /** The word users see in summaries (`document`, `group`). */
  noun: string;
  subject: (c: C) => ThreadSubject;
  /** Path of the subject as the caller addressed it; threads are at `<base>/threads`. */
  base: (c: C) => string;
  /** The caller's rights; throws (404) when the caller may not see the threads at all. */
  rights: (c: C) => ThreadRights;
  /** Why the caller may not open a thread or comment (403), or null when they may. */
  writeRefusal: (c: C) => string | null | Promise<string | null>;
}

const subjectIs = (s: ThreadSubject): SQL => ('resource_id' in s ? eq(threads.resource_id, s.resource_id) : eq(threads.group_id, s.group_id));
const userIdOf = (username: string): SQL => sql`(select ${users.id} from ${users} where ${users.username} = ${username})`;

/**
 * The thread a path segment names, as SQL giving its id (null when there is none):
 * `@<author>~<topic>`, or a bare topic: the caller's own of that name, else the oldest.
 */
function threadNamed(s: ThreadSubject, callerId: number, segment: string): { id: SQL; topic: string } {
  if (segment.startsWith('@')) {
    const { user, topic } = parseOpenedTopic(segment);
    return { id: sql`(select ${threads.id} from ${threads} where ${subjectIs(s)} and ${threads.topic} = ${topic} and ${threads.created_by} = ${userIdOf(user)})`, topic };
  }
  const topic = checkTopic(segment);
  return {
    id: sql`(select ${threads.id} from ${threads} where ${subjectIs(s)} and ${threads.topic} = ${topic} order by ${threads.created_by} = ${callerId} desc, ${threads.id} limit 1)`,
    topic,
  };
}

/**
 * The comment a path of steps names in a thread, as SQL giving its id (null when there is
 * none): each `@<author>~<slug>` among the replies of the step before (the topic's own
 * comments first); a comment id anywhere in the thread, as before slugs.
 */
function commentNamed(thread: SQL, steps: CommentStep[]): SQL {
  let parent: SQL | null = null;
  for (const step of steps) {
    const match: SQL =
      'id' in step
        ? sql`c.id = ${step.id}`
        : sql`c.author_id = ${userIdOf(step.user)} and coalesce(c.slug, cast(c.id as text)) = ${step.slug} and ${parent === null ? sql`c.parent_id is null` : sql`c.parent_id = ${parent}`}`;
    parent = sql`(select c.id from ${threadComments} c where c.thread_id = ${thread} and ${match})`;
  }
  return parent!;
}

const commentSchema = listingItemSchema.extend({
  id: z.number().int(),
  slug: z.string(),
  author: z.string().nullable(),
  text: z.string(),
  reply_to: z.number().int().nullable(),
  edited: z.boolean(),
});
const created = (what: string) => ({ description: what, type: 'application/json', schema: z.object({ status: z.number(), message: z.string(), uri: z.string() }).passthrough() });

async function readComment(req: Request): Promise<string> {
  const value = await readText(req, COMMENT_LIMIT, `a comment is at most ${COMMENT_LIMIT} bytes (16 KiB)`);
  const problem = commentProblem(value);
  if (problem) throw badRequest(problem);
  return value;
}

/** The routes of comment threads below a subject, mounted on the host's scope (`rel` starts with `/threads`; the scope loads the subject). */
export function threadRoutes<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  const mayWrite = async (c: C) => {
    const why = await host.writeRefusal(c);
    if (why) throw forbidden(why);
  };
  const item = (c: C, rights: ThreadRights, name: string, path: string, type: 'dir' | 'file', actions: Verb[], createdOn: string, modified: string): ListingItem => ({
    name,
    uri: `${host.base(c)}/threads/${path}`,
    type,
    permissions: rights.permissions,
    actions,
    created_on: createdOn,
    last_modified: modified,
  });
  const thread = (c: C, segment: string) => threadNamed(host.subject(c), c.caller!.id, segment);

  scope.get('/threads', {
    summary: `List the comment threads (topics) of a ${host.noun}`,
    responses: listingResponses,
    handler: async (c) => {
      const rights = host.rights(c);
      const [rows, refusal] = await Promise.all([
        c.db
          .select({ topic: threads.topic, created_by: threads.created_by, created_on: threads.created_on, latest: max(threadComments.created_on) })
          .from(threads)
          .leftJoin(threadComments, eq(threadComments.thread_id, threads.id))
          .where(subjectIs(host.subject(c)))
          .groupBy(threads.id)
          .orderBy(asc(threads.topic), asc(threads.id)),
        host.writeRefusal(c),
      ]);
      const callerId = c.caller!.id;
      return listingResponse(
        rows.map((t) => {
          const actions: Verb[] = ['GET'];
          if (!refusal) actions.push('POST');
          if (mayRemove(rights, callerId, t.created_by)) actions.push('DELETE');
          return item(c, rights, t.topic, t.topic, 'dir', actions, t.created_on, t.latest ?? t.created_on);
        }),
      );
    },
  });

  scope.put('/threads/:topic', {
    summary: `Open a comment thread (topic) on a ${host.noun}, named :topic (unique per author)`,
    responses: {
      201: created('Opened: its text is written by POST threads/@<me>~<topic>/msg'),
      400: { description: 'Invalid topic' },
      403: { description: 'The caller may not open threads here' },
      409: { description: 'The caller has a topic of that name here' },
    },
    handler: async (c) => {
      host.rights(c);
      const topic = checkTopic(c.params.topic!);
      await mayWrite(c);
      const row = await c.db
        .insert(threads)
        .values({ ...host.subject(c), topic, created_by: c.caller!.id, created_on: nowIso() })
        .onConflictDoNothing()
        .returning({ id: threads.id })
        .get();
      if (!row) throw conflict(`thread '${topic}' already exists`);
      return jsonResponse({ status: 201, message: `thread ${topic} opened`, uri: `${host.base(c)}/threads/@${c.caller!.username}~${topic}` }, { status: 201 });
    },
  });

  scope.get('/threads/:topic', {
    summary: `List the comments of a thread on a ${host.noun}, oldest first (:topic is @<author>~<topic> or a topic name)`,
    responses: {
      200: {
        description: 'Comments: listing items with id, slug, author, text, reply_to (the comment answered, or null) and edited',
        type: 'application/json',
        schema: z.array(commentSchema),
      },
    },
    handler: async (c) => {
      const rights = host.rights(c);
      const t = thread(c, c.params.topic!);
      const [found, rows] = await c.db.batch([
        c.db
          .select({ id: threads.id })
          .from(threads)
          .where(sql`${threads.id} = ${t.id}`),
        c.db
          .select({
            id: threadComments.id,
            slug: threadComments.slug,
            author_id: threadComments.author_id,
            author: users.username,
            text: threadComments.text,
            created_on: threadComments.created_on,
            updated_on: threadComments.updated_on,
            reply_to: threadComments.parent_id,
            edited: threadComments.edited,
          })
          .from(threadComments)
          .leftJoin(users, eq(users.id, threadComments.author_id))
          .where(sql`${threadComments.thread_id} = ${t.id}`)
          .orderBy(asc(threadComments.id)),
      ]);
      if (!found.length) throw notFound(`no such thread: ${c.params.topic}`);
      const callerId = c.caller!.id;
      return listingResponse(
        rows.map((m) => ({
          ...item(
            c,
            rights,
            String(m.id),
            `${t.topic}/${m.id}`,
            'file',
            mayRemove(rights, callerId, m.author_id) ? ['GET', 'DELETE'] : ['GET'],
            m.created_on,
            m.updated_on ?? m.created_on,
          ),
          id: m.id,
          slug: m.slug ?? String(m.id),
          author: m.author,
          text: m.text,
          reply_to: m.reply_to,
          edited: m.edited,
        })),
      );
    },
  });

  /** Adds a comment with `text` (and `slug`, or none) in `thread`, under `parent` (SQL, or null on the topic); null when the thread or parent is gone or the slug is taken. */
  const insertComment = (c: C, thread: SQL, parent: SQL | null, text: string, slug: string | null) =>
    c.db
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

  /** One row whose id is what `row` (SQL) names, null when nothing: read beside a write to tell 404 from 403 or 409. */
  const existing = (c: C, row: SQL) =>
    c.db
      .select({ id: sql<number | null>`${row}` })
      .from(users)
      .where(eq(users.id, c.caller!.id));

  const commentAdded = (c: C, id: number, uri: string) => jsonResponse({ status: 201, message: `comment ${id} added`, id, uri }, { status: 201 });

  scope.post('/threads/:topic', {
    summary: `Comment in a thread on a ${host.noun} (text/plain, at most 16 KiB; the comment is named by its id)`,
    body: { type: 'text/plain', description: 'The comment' },
    responses: {
      201: created('Added: carries the comment id'),
      400: { description: 'Empty comment or invalid topic' },
      403: { description: 'The caller may not comment here' },
      404: { description: 'No such thread' },
      413: { description: 'Longer than 16 KiB' },
      415: { description: 'Not text/plain' },
    },
    handler: async (c) => {
      host.rights(c);
      const t = thread(c, c.params.topic!);
      await mayWrite(c);
      const row = await insertComment(c, t.id, null, await readComment(c.req), null).get();
      if (!row) throw notFound(`no such thread: ${c.params.topic}`);
      return commentAdded(c, row.id, `${host.base(c)}/threads/${t.topic}/${row.id}`);
    },
  });

  /**
   * Writes the text of a topic or comment (`table`'s row `id`) its author owns; rewriting a
   * text that was already written marks it edited. 404 when it does not exist, 403 when the
   * caller is not its author.
   */
  const writeText = async (c: C, what: 'topic' | 'comment', row: SQL) => {
    const text = await readComment(c.req);
    const at = nowIso();
    const me = c.caller!.id;
    // edited: rewriting a text that was already written (SQLite reads the old values on the right).
    const update =
      what === 'topic'
        ? c.db
            .update(threads)
            .set({ message: text, edited: sql`${threads.edited} or ${threads.message} <> ''`, updated_on: at })
            .where(and(sql`${threads.id} = ${row}`, eq(threads.created_by, me)))
            .returning({ id: threads.id })
        : c.db
            .update(threadComments)
            .set({ text, edited: sql`${threadComments.edited} or ${threadComments.text} <> ''`, updated_on: at })
            .where(and(sql`${threadComments.id} = ${row}`, eq(threadComments.author_id, me)))
            .returning({ id: threadComments.id });
    const [updated, exists] = await c.db.batch([update, existing(c, row)]);
    if (updated.length) return noContent();
    if (exists[0]?.id == null) throw notFound(`no such ${what}`);
    throw forbidden(`only its author writes the text of a ${what}`);
  };

  const textResponses = {
    204: { description: 'Written' },
    400: { description: 'Empty text, or a malformed reference' },
    403: { description: 'Not its author, or the caller may not write here' },
    404: { description: 'No such topic or comment' },
    413: { description: 'Longer than 16 KiB' },
    415: { description: 'Not text/plain' },
  };

  scope.post('/threads/:ref/msg', {
    summary: `Write the text of a topic of a ${host.noun}: :ref is @<author>~<topic>; only its author writes, a rewrite marks it edited (text/plain, at most 16 KiB)`,
    body: { type: 'text/plain', description: 'The text' },
    responses: textResponses,
    handler: async (c) => {
      host.rights(c);
      parseOpenedTopic(c.params.ref!);
      const t = thread(c, c.params.ref!);
      await mayWrite(c);
      return writeText(c, 'topic', t.id);
    },
  });

  scope.put('/threads/:topic/comments/:path+', {
    summary: `Add a comment named by the last segment to a topic of a ${host.noun}, or a reply under the comments before it (:path is [<comment>/comments/...]<slug>, each comment @<author>~<slug> or an id)`,
    responses: {
      201: created('Added: carries the comment id; its text is written by POST .../comments/@<me>~<slug>/msg'),
      400: { description: 'Invalid slug or path' },
      403: { description: 'The caller may not comment here' },
      404: { description: 'No such topic, or no such comment to reply to' },
      409: { description: 'The caller has a comment of that name there' },
    },
    handler: async (c) => {
      host.rights(c);
      const segments = parseCommentPath(c.params.path!);
      const slug = checkCommentSlug(segments.pop()!);
      const t = thread(c, c.params.topic!);
      const parent = segments.length ? commentNamed(t.id, segments.map(parseCommentStep)) : null;
      await mayWrite(c);
      const [inserted, exists] = await c.db.batch([insertComment(c, t.id, parent, '', slug), existing(c, parent ?? t.id)]);
      const row = inserted[0];
      if (!row) {
        if (exists[0]?.id == null) throw notFound(segments.length ? `no comment ${segments.join('/comments/')} in thread ${c.params.topic}` : `no such thread: ${c.params.topic}`);
        throw conflict(`comment '${slug}' already exists`);
      }
      const path = [...segments, `@${c.caller!.username}~${slug}`].join('/comments/');
      return commentAdded(c, row.id, `${host.base(c)}/threads/${c.params.topic}/comments/${path}`);
    },
  });

  scope.post('/threads/:topic/comments/:path+/msg', {
    summary: `Write the text of a comment on a topic of a ${host.noun} (:path ends with @<author>~<slug>; only its author writes, a rewrite marks it edited), or reply to a comment named by its id (text/plain, at most 16 KiB)`,
    body: { type: 'text/plain', description: 'The text' },
    responses: { ...textResponses, 201: created('A reply to the comment id: carries the reply id') },
    handler: async (c) => {
      host.rights(c);
      const steps = parseCommentPath(c.params.path!).map(parseCommentStep);
      const t = thread(c, c.params.topic!);
      const comment = commentNamed(t.id, steps);
      await mayWrite(c);
      const last = steps.at(-1)!;
      if ('slug' in last) return writeText(c, 'comment', comment);
      // A comment named by its id (comments added without a slug): a reply to it, as before slugs.
      const row = await insertComment(c, t.id, comment, await readComment(c.req), null).get();
      if (!row) throw notFound(`no comment ${last.id} in thread ${c.params.topic}`);
      return commentAdded(c, row.id, `${host.base(c)}/threads/${t.topic}/${row.id}`);
    },
  });

  const loadComment = async (c: C) => {
    const t = thread(c, c.params.topic!);
    const id = checkCommentId(c.params.comment!);
    const row = await c.db
      .select({ id: threadComments.id, author_id: threadComments.author_id, text: threadComments.text })
      .from(threadComments)
      .where(and(sql`${threadComments.thread_id} = ${t.id}`, eq(threadComments.id, id)))
      .get();
    if (!row) throw notFound(`no comment ${id} in thread ${c.params.topic}`);
    return row;
  };

  scope.get('/threads/:topic/:comment', {
    summary: `Read one comment of a thread on a ${host.noun} (text/plain, as written; :comment is its id)`,
    responses: { 200: { description: 'The comment', type: 'text/plain' } },
    handler: async (c) => {
      host.rights(c);
      return textResponse((await loadComment(c)).text);
    },
  });

  scope.delete('/threads/:topic/:comment', {
    summary: `Remove a comment of a thread on a ${host.noun} and its replies (its author or a moderator)`,
    responses: { 204: { description: 'Removed' }, 403: { description: 'Neither its author nor a moderator' }, 404: { description: 'No such comment' } },
    handler: async (c) => {
      const rights = host.rights(c);
      const comment = await loadComment(c);
      if (!mayRemove(rights, c.caller!.id, comment.author_id)) throw forbidden('only its author or a moderator may remove a comment');
      await c.db.delete(threadComments).where(eq(threadComments.id, comment.id));
      return noContent();
    },
  });

  scope.delete('/threads/:topic', {
    summary: `Remove a thread and its comments from a ${host.noun} (whoever opened it or a moderator)`,
    responses: { 204: { description: 'Removed' }, 403: { description: 'Neither its opener nor a moderator' }, 404: { description: 'No such thread' } },
    handler: async (c) => {
      const rights = host.rights(c);
      const t = await c.db
        .select({ id: threads.id, created_by: threads.created_by })
        .from(threads)
        .where(sql`${threads.id} = ${thread(c, c.params.topic!).id}`)
        .get();
      if (!t) throw notFound(`no such thread: ${c.params.topic}`);
      if (!mayRemove(rights, c.caller!.id, t.created_by)) throw forbidden('only whoever opened a thread or a moderator may remove it');
      await c.db.delete(threads).where(eq(threads.id, t.id)); // comments go with it (ON DELETE CASCADE)
      return noContent();
    },
  });
}
