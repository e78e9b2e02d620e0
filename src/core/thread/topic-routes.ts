/**
 * The topics of a subject's threads: the listing of the topics, opening one, the listing
 * of a topic's comments, removing a topic with its comments.
 */
import { asc, eq, max, sql } from 'drizzle-orm';
import * as z from 'zod';
import { users } from '../../db/schema';
import { nowIso } from '../clock';
import type { Ctx } from '../context';
import { conflict, forbidden, notFound } from '../errors';
import { jsonResponse, noContent } from '../http';
import { listingItemSchema, listingResponse, listingResponses, type Verb } from '../listing';
import type { Scope } from '../scope';
import { mayWrite, threadItem, threadOf, type ThreadHost } from './host';
import { subjectIs } from './lookup';
import { checkTopic, DELETED_AUTHOR, mayRemove } from './rules';
import { threadComments, threads } from './schema';
import { created } from './writes';
import { once } from '../once';

const commentSchema = once(() =>
  listingItemSchema()
    .extend({
      id: z.number().int(),
      slug: z.string(),
      author: z.string().nullable(),
      text: z.string(),
      reply_to: z.number().int().nullable(),
      edited: z.boolean(),
    })
    .meta({
      id: 'Comment',
      description: 'A comment of a thread: a listing item with its id, author, text and the comment it answers',
      example: {
        name: '17',
        uri: '/v1/vis/docs/q3_report/threads/@alice~pricing/17',
        type: 'file',
        permissions: ['r', 'w'],
        actions: ['GET', 'DELETE'],
        created_on: '2025-10-02T10:41:07.332Z',
        last_modified: '2025-10-02T10:41:07.332Z',
        id: 17,
        slug: '17',
        author: 'bob',
        text: 'Could we split the northern region by country next quarter?',
        reply_to: null,
        edited: false,
      },
    }),
);

/** GET <base>/threads: the topics. */
export function topicListRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  scope.get('/threads', {
    summary: `List the comment threads (topics) of a ${host.noun}`,
    responses: listingResponses,
    handler: async (c) => {
      const rights = host.rights(c);
      const [rows, refusal] = await Promise.all([
        c.db
          .select({
            topic: threads.topic,
            created_by: threads.created_by,
            created_on: threads.created_on,
            latest: max(threadComments.created_on),
          })
          .from(threads)
          .leftJoin(threadComments, eq(threadComments.thread_id, threads.id))
          .where(subjectIs(host.subject(c)))
          .groupBy(threads.id)
          .orderBy(asc(threads.topic), asc(threads.id)),
        host.writeRefusal(c),
      ]);
      const callerId = c.caller!.id;
      return listingResponse(
        c.url,
        rows.map((t) => {
          const actions: Verb[] = ['GET'];
          if (!refusal) actions.push('POST');
          if (mayRemove(rights, callerId, t.created_by)) actions.push('DELETE');
          return threadItem(host, c, rights, t.topic, t.topic, 'dir', actions, t.created_on, t.latest ?? t.created_on);
        }),
      );
    },
  });
}

/** PUT <base>/threads/:topic: opens a topic. */
export function topicOpenRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
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
      await mayWrite(host, c);
      const row = await c.db
        .insert(threads)
        .values({ ...host.subject(c), topic, created_by: c.caller!.id, created_on: nowIso() })
        .onConflictDoNothing()
        .returning({ id: threads.id })
        .get();
      if (!row) throw conflict(`thread '${topic}' already exists`);
      return jsonResponse(
        {
          status: 201,
          message: `thread ${topic} opened`,
          uri: `${host.base(c)}/threads/@${c.caller!.username}~${topic}`,
        },
        { status: 201 },
      );
    },
  });
}

/** GET <base>/threads/:topic: the comments of a topic, oldest first. */
export function topicCommentsRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  scope.get('/threads/:topic', {
    summary: `List the comments of a thread on a ${host.noun}, oldest first (:topic is @<author>~<topic> or a topic name)`,
    responses: {
      200: {
        description:
          'Comments: listing items with id, slug, author, text, reply_to (the comment answered, or null) and edited',
        type: 'application/json',
        schema: () => z.array(commentSchema()),
      },
    },
    handler: async (c) => {
      const rights = host.rights(c);
      const t = threadOf(host, c, c.params.topic!);
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
        c.url,
        rows.map((m) => ({
          ...threadItem(
            host,
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
          author: m.author ?? DELETED_AUTHOR,
          text: m.text,
          reply_to: m.reply_to,
          edited: m.edited,
        })),
      );
    },
  });
}

/** DELETE <base>/threads/:topic: removes a topic and its comments. */
export function topicRemovalRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  scope.delete('/threads/:topic', {
    summary: `Remove a thread and its comments from a ${host.noun} (whoever opened it or a moderator)`,
    responses: {
      204: { description: 'Removed' },
      403: { description: 'Neither its opener nor a moderator' },
      404: { description: 'No such thread' },
    },
    handler: async (c) => {
      const rights = host.rights(c);
      const t = await c.db
        .select({ id: threads.id, created_by: threads.created_by })
        .from(threads)
        .where(sql`${threads.id} = ${threadOf(host, c, c.params.topic!).id}`)
        .get();
      if (!t) throw notFound(`no such thread: ${c.params.topic}`);
      if (!mayRemove(rights, c.caller!.id, t.created_by))
        throw forbidden('only whoever opened a thread or a moderator may remove it');
      await c.db.delete(threads).where(eq(threads.id, t.id)); // comments go with it (ON DELETE CASCADE)
      return noContent();
    },
  });
}
