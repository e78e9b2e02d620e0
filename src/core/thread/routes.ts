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
 * The table below names each route's answer; its handler is in the file named after its
 * family: topic-routes.ts, comment-routes.ts, text-routes.ts (the `msg` texts).
 *
 * Who may do what is the host's: `rights` says who the caller is to the subject's threads
 * (and throws to hide them), `writeRefusal` why the caller may not open or comment now.
 * The host mounts the routes on its own scope (which loads the subject and checks that
 * the caller may see it): `threadRoutes(r.with({ need: 'r' }), host)`.
 */
import type { Ctx } from '../context';
import type { Scope } from '../scope';
import { commentPostRoute, commentPutRoute, commentReadRoute, commentRemovalRoute } from './comment-routes';
import type { ThreadHost } from './host';
import { commentTextRoute, topicTextRoute } from './text-routes';
import { topicCommentsRoute, topicListRoute, topicOpenRoute, topicRemovalRoute } from './topic-routes';

/** The routes of comment threads below a subject, mounted on the host's scope (the scope loads the subject). */
export function threadRoutes<C extends Ctx>(scope: Scope<C, object>, host: ThreadHost<C>): void {
  // GET <base>/threads: listing of the topics
  topicListRoute(scope, host);
  // PUT <base>/threads/:topic: opens a topic named :topic (201; 409 when the caller has one of that name)
  topicOpenRoute(scope, host);
  // GET <base>/threads/:topic: listing of its comments, oldest first (extra fields id, slug, author, text, reply_to, edited)
  topicCommentsRoute(scope, host);
  // POST <base>/threads/:topic: text/plain body: a new comment (201 with its id)
  commentPostRoute(scope, host);
  // POST <base>/threads/:ref/msg: the topic's text, :ref = @<author>~<topic> (its author; 204)
  topicTextRoute(scope, host);
  // PUT <base>/threads/:topic/comments/:path+: a comment named <slug> on the topic, or a reply under comment <c>
  //     (:path = [<c>/comments/...]<slug>; 201; 409 when the caller has one of that name there)
  commentPutRoute(scope, host);
  // POST <base>/threads/:topic/comments/:path+/msg: the last comment @<a>~<slug>: its text (its author; 204);
  //     a comment id: a reply to it with this text (201 with the reply's id)
  commentTextRoute(scope, host);
  // GET <base>/threads/:topic/:comment: one comment's text (:comment its id)
  commentReadRoute(scope, host);
  // DELETE <base>/threads/:topic/:comment: removes a comment (its author or a moderator)
  commentRemovalRoute(scope, host);
  // DELETE <base>/threads/:topic: removes a thread and its comments (whoever opened it or a moderator)
  topicRemovalRoute(scope, host);
}
