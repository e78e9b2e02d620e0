/**
 * The texts (`msg`) of topics and comments: written by their author only; rewriting a text
 * already written marks it edited. A comment named by its id takes a POST to msg as a reply.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { nowIso } from '../clock';
import type { Ctx } from '../context';
import { forbidden, notFound } from '../errors';
import { noContent } from '../http';
import type { Scope } from '../scope';
import { mayWrite, threadOf, type ThreadHost } from './host';
import { commentNamed } from './lookup';
import { parseCommentPath, parseCommentStep, parseOpenedTopic } from './rules';
import { threadComments, threads } from './schema';
import { addComment, commentAdded, commentText, created, existing, insertComment, readComment } from './writes';

/**
 * Writes the text of a topic or comment (`table`'s row `id`) its author owns; rewriting a
 * text that was already written marks it edited. 404 when it does not exist, 403 when the
 * caller is not its author.
 */
async function writeText(c: Ctx, what: 'topic' | 'comment', row: SQL): Promise<Response> {
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
}

const textResponses = {
  204: { description: 'Written' },
  400: { description: 'Empty text, or a malformed reference' },
  403: { description: 'Not its author, or the caller may not write here' },
  404: { description: 'No such topic or comment' },
  413: { description: 'Longer than 16 KiB' },
  415: { description: 'Not text/plain' },
};

/** POST <base>/threads/:ref/msg: the text of a topic (:ref is @<author>~<topic>). */
export function topicTextRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  scope.post('/threads/:ref/msg', {
    summary: `Write the text of a topic of a ${host.noun}: :ref is @<author>~<topic>; only its author writes, a rewrite marks it edited (text/plain, at most 16 KiB)`,
    body: { type: 'text/plain', description: 'The text', schema: commentText },
    responses: textResponses,
    handler: async (c) => {
      host.rights(c);
      parseOpenedTopic(c.params.ref!);
      const t = threadOf(host, c, c.params.ref!);
      await mayWrite(host, c);
      return writeText(c, 'topic', t.id);
    },
  });
}

/** POST <base>/threads/:topic/comments/:path+/msg: the text of a comment, or a reply to a comment named by its id. */
export function commentTextRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  scope.post('/threads/:topic/comments/:path+/msg', {
    summary: `Write the text of a comment on a topic of a ${host.noun} (:path ends with @<author>~<slug>; only its author writes, a rewrite marks it edited), or reply to a comment named by its id (text/plain, at most 16 KiB)`,
    body: { type: 'text/plain', description: 'The text', schema: commentText },
    responses: { ...textResponses, 201: created('A reply to the comment id: carries the reply id') },
    handler: async (c) => {
      host.rights(c);
      const steps = parseCommentPath(c.params.path!).map(parseCommentStep);
      const t = threadOf(host, c, c.params.topic!);
      const comment = commentNamed(t.id, steps);
      await mayWrite(host, c);
      const last = steps.at(-1)!;
      if ('slug' in last) return writeText(c, 'comment', comment);
      // A comment named by its id (comments added without a slug): a reply to it, as before slugs.
      const uri = { at: `${host.base(c)}/threads/${t.topic}/`, byId: true };
      const insert = insertComment(c, t.id, comment, await readComment(c.req), null);
      const { id } = await addComment(c, host.subject(c), insert, uri);
      if (id === null) throw notFound(`no comment ${last.id} in thread ${c.params.topic}`);
      return commentAdded(id, uri);
    },
  });
}
