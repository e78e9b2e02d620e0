/**
 * The comments of a thread: adding one (by POST, named by its id; by PUT, named by a slug,
 * on the topic or as a reply at any depth), reading one, removing one with its replies.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../context';
import { conflict, forbidden, notFound } from '../errors';
import { noContent, textResponse } from '../http';
import type { Scope } from '../scope';
import { mayWrite, threadOf, type ThreadHost } from './host';
import { commentNamed } from './lookup';
import { checkCommentId, checkCommentSlug, mayRemove, parseCommentPath, parseCommentStep } from './rules';
import { threadComments } from './schema';
import { addComment, commentAdded, commentText, created, existing, insertComment, readComment } from './writes';

/** POST <base>/threads/:topic: a comment named by its id. */
export function commentPostRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  scope.post('/threads/:topic', {
    summary: `Comment in a thread on a ${host.noun} (text/plain, at most 16 KiB; the comment is named by its id)`,
    body: { type: 'text/plain', description: 'The comment', schema: commentText },
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
      const t = threadOf(host, c, c.params.topic!);
      await mayWrite(host, c);
      const uri = { at: `${host.base(c)}/threads/${t.topic}/`, byId: true };
      const insert = insertComment(c, t.id, null, await readComment(c.req), null);
      const { id } = await addComment(c, host.subject(c), insert, uri);
      if (id === null) throw notFound(`no such thread: ${c.params.topic}`);
      return commentAdded(id, uri);
    },
  });
}

/** PUT <base>/threads/:topic/comments/:path+: a comment (or reply) named by a slug. */
export function commentPutRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
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
      const t = threadOf(host, c, c.params.topic!);
      const parent = segments.length ? commentNamed(t.id, segments.map(parseCommentStep)) : null;
      await mayWrite(host, c);
      const path = [...segments, `@${c.caller!.username}~${slug}`].join('/comments/');
      const uri = { at: `${host.base(c)}/threads/${c.params.topic}/comments/${path}`, byId: false };
      const { id, also } = await addComment(c, host.subject(c), insertComment(c, t.id, parent, '', slug), uri, [
        existing(c, parent ?? t.id),
      ]);
      if (id === null) {
        if ((also[0] as { id: number | null }[])[0]?.id == null)
          throw notFound(
            segments.length
              ? `no comment ${segments.join('/comments/')} in thread ${c.params.topic}`
              : `no such thread: ${c.params.topic}`,
          );
        throw conflict(`comment '${slug}' already exists`);
      }
      return commentAdded(id, uri);
    },
  });
}

/** The comment `:comment` (its id) of the thread `:topic`; 404 when there is none. */
async function loadComment<C extends Ctx>(host: ThreadHost<C>, c: C) {
  const t = threadOf(host, c, c.params.topic!);
  const id = checkCommentId(c.params.comment!);
  const row = await c.db
    .select({ id: threadComments.id, author_id: threadComments.author_id, text: threadComments.text })
    .from(threadComments)
    .where(and(sql`${threadComments.thread_id} = ${t.id}`, eq(threadComments.id, id)))
    .get();
  if (!row) throw notFound(`no comment ${id} in thread ${c.params.topic}`);
  return row;
}

/** GET <base>/threads/:topic/:comment: one comment's text. */
export function commentReadRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  scope.get('/threads/:topic/:comment', {
    summary: `Read one comment of a thread on a ${host.noun} (text/plain, as written; :comment is its id)`,
    responses: { 200: { description: 'The comment', type: 'text/plain', schema: commentText } },
    handler: async (c) => {
      host.rights(c);
      return textResponse((await loadComment(host, c)).text);
    },
  });
}

/** DELETE <base>/threads/:topic/:comment: removes a comment and its replies. */
export function commentRemovalRoute<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  scope.delete('/threads/:topic/:comment', {
    summary: `Remove a comment of a thread on a ${host.noun} and its replies (its author or a moderator)`,
    responses: {
      204: { description: 'Removed' },
      403: { description: 'Neither its author nor a moderator' },
      404: { description: 'No such comment' },
    },
    handler: async (c) => {
      const rights = host.rights(c);
      const comment = await loadComment(host, c);
      if (!mayRemove(rights, c.caller!.id, comment.author_id))
        throw forbidden('only its author or a moderator may remove a comment');
      await c.db.delete(threadComments).where(eq(threadComments.id, comment.id));
      return noContent();
    },
  });
}
