/**
 * Comment threads, one module for every subject that has them (a document resource, a
 * group). A subject has threads (topics); a thread holds comments, oldest first.
 *
 *   GET    <base>/threads                  listing of the topics
 *   PUT    <base>/threads/:topic           opens a thread (201; 409 when it exists)
 *   GET    <base>/threads/:topic           listing of its comments, newest last
 *                                          (extra fields id, author, text)
 *   POST   <base>/threads/:topic           text/plain body: a new comment (201 with its id)
 *   GET    <base>/threads/:topic/:comment  one comment's text
 *   DELETE <base>/threads/:topic/:comment  removes a comment (its author or a moderator)
 *   DELETE <base>/threads/:topic           removes a thread and its comments (whoever
 *                                          opened it or a moderator)
 *   POST   <base>/threads/@<user>~<topic>/msg
 *                                          the client's form: a comment on the topic
 *                                          <topic> opened by <user> (404 if <user> did not)
 *   POST   <base>/threads/@<user>~<topic>/comments/<comment>/msg
 *                                          a reply to a comment (a comment is named by its
 *                                          id; replies nest, reply_to in the listing)
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
import { checkCommentId, checkTopic, COMMENT_LIMIT, commentProblem, mayRemove, parseOpenedTopic, type ThreadRights, type ThreadSubject } from './rules';
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
const threadIs = (s: ThreadSubject, topic: string): SQL => and(subjectIs(s), eq(threads.topic, topic))!;

const commentSchema = listingItemSchema.extend({ id: z.number().int(), author: z.string().nullable(), text: z.string(), reply_to: z.number().int().nullable() });
const created = (what: string) => ({ description: what, type: 'application/json', schema: z.object({ status: z.number(), message: z.string(), uri: z.string() }).passthrough() });

async function readComment(req: Request): Promise<string> {
  const value = await readText(req, COMMENT_LIMIT, `a comment is at most ${COMMENT_LIMIT} bytes (16 KiB)`);
  const problem = commentProblem(value);
  if (problem) throw badRequest(problem);
  return value;
}

/** The routes of comment threads below a subject, mounted on the host's scope (`rel` starts with `/threads`; the scope loads the subject). */
export function threadRoutes<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  const missing = (topic: string) => notFound(`no such thread: ${topic}`);
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
          .orderBy(asc(threads.topic)),
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
    summary: `Open a comment thread on a ${host.noun}`,
    responses: {
      201: created('Opened'),
      400: { description: 'Invalid topic' },
      403: { description: 'The caller may not open threads here' },
      409: { description: 'The thread exists' },
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
      return jsonResponse({ status: 201, message: `thread ${topic} opened`, uri: `${host.base(c)}/threads/${topic}` }, { status: 201 });
    },
  });

  scope.get('/threads/:topic', {
    summary: `List the comments of a thread on a ${host.noun}, newest last`,
    responses: {
      200: { description: 'Comments: listing items with id, author, text and reply_to (the comment answered, or null)', type: 'application/json', schema: z.array(commentSchema) },
    },
    handler: async (c) => {
      const rights = host.rights(c);
      const topic = checkTopic(c.params.topic!);
      const where = threadIs(host.subject(c), topic);
      const [found, rows] = await c.db.batch([
        c.db.select({ id: threads.id }).from(threads).where(where),
        c.db
          .select({
            id: threadComments.id,
            author_id: threadComments.author_id,
            author: users.username,
            text: threadComments.text,
            created_on: threadComments.created_on,
            reply_to: threadComments.parent_id,
          })
          .from(threadComments)
          .innerJoin(threads, eq(threads.id, threadComments.thread_id))
          .leftJoin(users, eq(users.id, threadComments.author_id))
          .where(where)
          .orderBy(asc(threadComments.id)),
      ]);
      if (!found.length) throw missing(topic);
      const callerId = c.caller!.id;
      return listingResponse(
        rows.map((m) => ({
          ...item(c, rights, String(m.id), `${topic}/${m.id}`, 'file', mayRemove(rights, callerId, m.author_id) ? ['GET', 'DELETE'] : ['GET'], m.created_on, m.created_on),
          id: m.id,
          author: m.author,
          text: m.text,
          reply_to: m.reply_to,
        })),
      );
    },
  });

  scope.post('/threads/:topic', {
    summary: `Comment in a thread on a ${host.noun} (text/plain, at most 16 KiB)`,
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
      const topic = checkTopic(c.params.topic!);
      await mayWrite(c);
      return addComment(c, threadIs(host.subject(c), topic), sql`${threads.id}`, sql`null`, `no such thread: ${topic}`, topic);
    },
  });

  /** The thread `@<user>~<topic>` names on this subject: the topic, opened by that user. */
  const openedBy = (c: C, ref: string): SQL => {
    const { user, topic } = parseOpenedTopic(ref);
    return and(threadIs(host.subject(c), topic), sql`${threads.created_by} = (select ${users.id} from ${users} where ${users.username} = ${user})`)!;
  };
  const msgResponses = {
    201: created('Added: carries the comment id'),
    400: { description: 'Empty comment, or a malformed reference' },
    403: { description: 'The caller may not comment here' },
    404: { description: 'No such topic opened by that user, or no such comment in it' },
    413: { description: 'Longer than 16 KiB' },
    415: { description: 'Not text/plain' },
  };
  const addComment = async (c: C, from: SQL, thread: SQL, parent: SQL, what: string, topic: string): Promise<Response> => {
    // One statement: the thread (or the comment answered) may be removed meanwhile, and then nothing is stored.
    const body = await readComment(c.req);
    const row = await c.db
      .insert(threadComments)
      .select(
        c.db
          .select({
            id: sql<number>`null`.as('id'),
            thread_id: sql<number>`${thread}`.as('thread_id'),
            author_id: sql<number>`${c.caller!.id}`.as('author_id'),
            text: sql<string>`${body}`.as('text'),
            created_on: sql<string>`${nowIso()}`.as('created_on'),
            parent_id: sql<number | null>`${parent}`.as('parent_id'),
          })
          .from(threads)
          .where(from),
      )
      .returning({ id: threadComments.id })
      .get();
    if (!row) throw notFound(what);
    return jsonResponse({ status: 201, message: `comment ${row.id} added`, id: row.id, uri: `${host.base(c)}/threads/${topic}/${row.id}` }, { status: 201 });
  };

  scope.post('/threads/:ref/msg', {
    summary: `Comment on the topic of a ${host.noun} that a user opened: :ref is @<user>~<topic> (text/plain, at most 16 KiB)`,
    body: { type: 'text/plain', description: 'The comment' },
    responses: msgResponses,
    handler: async (c) => {
      host.rights(c);
      const where = openedBy(c, c.params.ref!);
      await mayWrite(c);
      const { topic } = parseOpenedTopic(c.params.ref!);
      return addComment(c, where, sql`${threads.id}`, sql`null`, `no thread ${c.params.ref}: no topic '${topic}' opened by that user`, topic);
    },
  });

  scope.post('/threads/:ref/comments/:comment/msg', {
    summary: `Reply to a comment in the topic of a ${host.noun} that a user opened: :ref is @<user>~<topic>, :comment the comment's id`,
    body: { type: 'text/plain', description: 'The reply' },
    responses: msgResponses,
    handler: async (c) => {
      host.rights(c);
      const where = openedBy(c, c.params.ref!);
      const parent = checkCommentId(c.params.comment!);
      await mayWrite(c);
      const { topic } = parseOpenedTopic(c.params.ref!);
      const inThread = sql`exists (select 1 from ${threadComments} p where p.id = ${parent} and p.thread_id = ${threads.id})`;
      return addComment(c, and(where, inThread)!, sql`${threads.id}`, sql`${parent}`, `no comment ${parent} in thread ${c.params.ref}`, topic);
    },
  });

  const loadComment = async (c: C) => {
    const topic = checkTopic(c.params.topic!);
    const id = checkCommentId(c.params.comment!);
    const row = await c.db
      .select({ id: threadComments.id, author_id: threadComments.author_id, text: threadComments.text })
      .from(threadComments)
      .innerJoin(threads, eq(threads.id, threadComments.thread_id))
      .where(and(threadIs(host.subject(c), topic), eq(threadComments.id, id)))
      .get();
    if (!row) throw notFound(`no comment ${id} in thread ${topic}`);
    return row;
  };

  scope.get('/threads/:topic/:comment', {
    summary: `Read one comment of a thread on a ${host.noun} (text/plain, as written)`,
    responses: { 200: { description: 'The comment', type: 'text/plain' } },
    handler: async (c) => {
      host.rights(c);
      return textResponse((await loadComment(c)).text);
    },
  });

  scope.delete('/threads/:topic/:comment', {
    summary: `Remove a comment of a thread on a ${host.noun} (its author or a moderator)`,
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
      const topic = checkTopic(c.params.topic!);
      const t = await c.db
        .select({ id: threads.id, created_by: threads.created_by })
        .from(threads)
        .where(threadIs(host.subject(c), topic))
        .get();
      if (!t) throw missing(topic);
      if (!mayRemove(rights, c.caller!.id, t.created_by)) throw forbidden('only whoever opened a thread or a moderator may remove it');
      await c.db.delete(threads).where(eq(threads.id, t.id)); // comments go with it (ON DELETE CASCADE)
      return noContent();
    },
  });
}
