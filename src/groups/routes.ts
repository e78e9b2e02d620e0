/**
 * Routes of the groups area, in the order they are matched and documented. `<group>` is
 * each of the three group bases (context.ts): /v1/admin/groups/:group (user group),
 * /v1/admin/orgs/:org (organisation), /v1/admin/orgs/:org/groups/:group (org group).
 */
import type { Api } from '../core/api';
import { groupRouter, THREAD_BASES } from './context';
import { callerGroupRoutes, creationRoutes, groupFolderRoutes, userGroupsRoute } from './group-routes';
import { inviteRoutes } from './invite-routes';
import { orgRoutes } from './org-routes';
import { profileRoutes } from './profile-routes';
import { roleRoutes } from './role-routes';
import { groupThreadRoutes } from './thread-routes';

export function groupRoutes(api: Api): void {
  const g = groupRouter(api);
  // PUT /v1/admin/groups/:group
  // PUT /v1/admin/orgs/:org
  // PUT /v1/admin/orgs/:org/groups/:group
  creationRoutes(api);
  // GET /v1/admin/groups
  // GET /v1/admin/orgs
  // GET /v1/groups
  callerGroupRoutes(api);
  // GET|DELETE /v1/admin/groups/:group
  // GET|DELETE /v1/admin/orgs/:org
  // GET|DELETE /v1/admin/orgs/:org/groups/:group
  groupFolderRoutes(g);
  // GET /v1/admin/groups/:group/role
  // GET /v1/admin/orgs/:org/role
  // GET /v1/admin/orgs/:org/groups/:group/role
  // GET /v1/admin/groups/:group/roles
  // GET /v1/admin/orgs/:org/roles
  // GET /v1/admin/orgs/:org/groups/:group/roles
  // GET /v1/admin/groups/:group/roles/:role
  // GET /v1/admin/orgs/:org/roles/:role
  // GET /v1/admin/orgs/:org/groups/:group/roles/:role
  // PUT|DELETE /v1/admin/groups/:group/roles/:role/:user
  // PUT|DELETE /v1/admin/orgs/:org/roles/:role/:user
  // PUT|DELETE /v1/admin/orgs/:org/groups/:group/roles/:role/:user
  roleRoutes(g);
  // GET /v1/admin/invites
  // GET /v1/admin/invites/:ref
  // POST /v1/admin/invites/:ref/accept
  inviteRoutes(api);
  // GET /v1/admin/groups/:group/profile
  // GET /v1/admin/orgs/:org/profile
  // GET /v1/admin/orgs/:org/groups/:group/profile
  // GET|POST|DELETE /v1/admin/groups/:group/profile/name
  // GET|POST|DELETE /v1/admin/orgs/:org/profile/name
  // GET|POST|DELETE /v1/admin/orgs/:org/groups/:group/profile/name
  // GET|POST|DELETE /v1/admin/groups/:group/profile/description
  // GET|POST|DELETE /v1/admin/orgs/:org/profile/description
  // GET|POST|DELETE /v1/admin/orgs/:org/groups/:group/profile/description
  // GET|POST|DELETE /v1/admin/groups/:group/profile/picture/mask
  // GET|POST|DELETE /v1/admin/orgs/:org/profile/picture/mask
  // GET|POST|DELETE /v1/admin/orgs/:org/groups/:group/profile/picture/mask
  // GET /v1/admin/groups/:group/profile/picture
  // GET /v1/admin/orgs/:org/profile/picture
  // GET /v1/admin/orgs/:org/groups/:group/profile/picture
  // GET|PUT|POST|DELETE /v1/admin/groups/:group/profile/picture/image
  // GET|PUT|POST|DELETE /v1/admin/orgs/:org/profile/picture/image
  // GET|PUT|POST|DELETE /v1/admin/orgs/:org/groups/:group/profile/picture/image
  // GET|PUT|POST|DELETE /v1/admin/groups/:group/profile/picture/banner
  // GET|PUT|POST|DELETE /v1/admin/orgs/:org/profile/picture/banner
  // GET|PUT|POST|DELETE /v1/admin/orgs/:org/groups/:group/profile/picture/banner
  // GET /v1/admin/groups/:group/profile/options
  // GET /v1/admin/orgs/:org/profile/options
  // GET /v1/admin/orgs/:org/groups/:group/profile/options
  // GET|POST /v1/admin/groups/:group/profile/options/:option
  // GET|POST /v1/admin/orgs/:org/profile/options/:option
  // GET|POST /v1/admin/orgs/:org/groups/:group/profile/options/:option
  profileRoutes(g);
  // GET /v1/admin/groups/:group/threads
  // GET /v1/admin/orgs/:org/threads
  // GET /v1/admin/orgs/:org/groups/:group/threads
  // PUT|GET|POST|DELETE /v1/admin/groups/:group/threads/:topic
  // PUT|GET|POST|DELETE /v1/admin/orgs/:org/threads/:topic
  // PUT|GET|POST|DELETE /v1/admin/orgs/:org/groups/:group/threads/:topic
  // POST /v1/admin/groups/:group/threads/:ref/msg
  // POST /v1/admin/orgs/:org/threads/:ref/msg
  // POST /v1/admin/orgs/:org/groups/:group/threads/:ref/msg
  // PUT /v1/admin/groups/:group/threads/:topic/comments/:path+
  // PUT /v1/admin/orgs/:org/threads/:topic/comments/:path+
  // PUT /v1/admin/orgs/:org/groups/:group/threads/:topic/comments/:path+
  // POST /v1/admin/groups/:group/threads/:topic/comments/:path+/msg
  // POST /v1/admin/orgs/:org/threads/:topic/comments/:path+/msg
  // POST /v1/admin/orgs/:org/groups/:group/threads/:topic/comments/:path+/msg
  // GET|DELETE /v1/admin/groups/:group/threads/:topic/:comment
  // GET|DELETE /v1/admin/orgs/:org/threads/:topic/:comment
  // GET|DELETE /v1/admin/orgs/:org/groups/:group/threads/:topic/:comment
  groupThreadRoutes(g);
  // GET /v1/groups/:group/threads
  // GET /v1/users/:owner/groups/:group/threads
  // GET /v1/orgs/:org/groups/:group/threads
  // PUT|GET|POST|DELETE /v1/groups/:group/threads/:topic
  // PUT|GET|POST|DELETE /v1/users/:owner/groups/:group/threads/:topic
  // PUT|GET|POST|DELETE /v1/orgs/:org/groups/:group/threads/:topic
  // POST /v1/groups/:group/threads/:ref/msg
  // POST /v1/users/:owner/groups/:group/threads/:ref/msg
  // POST /v1/orgs/:org/groups/:group/threads/:ref/msg
  // PUT /v1/groups/:group/threads/:topic/comments/:path+
  // PUT /v1/users/:owner/groups/:group/threads/:topic/comments/:path+
  // PUT /v1/orgs/:org/groups/:group/threads/:topic/comments/:path+
  // POST /v1/groups/:group/threads/:topic/comments/:path+/msg
  // POST /v1/users/:owner/groups/:group/threads/:topic/comments/:path+/msg
  // POST /v1/orgs/:org/groups/:group/threads/:topic/comments/:path+/msg
  // GET|DELETE /v1/groups/:group/threads/:topic/:comment
  // GET|DELETE /v1/users/:owner/groups/:group/threads/:topic/:comment
  // GET|DELETE /v1/orgs/:org/groups/:group/threads/:topic/:comment
  groupThreadRoutes(groupRouter(api, THREAD_BASES));
  // GET /v1/orgs
  // GET /v1/orgs/:org
  // GET /v1/o/:org
  // GET /v1/o/:org/card
  // GET /v1/o/:org/img
  // GET /v1/o/:org/banner
  // GET /v1/o/:org/:section
  // GET /v1/orgs/:org/groups
  // GET /v1/admin/orgs/:org/groups
  // GET /v1/orgs/:org/groups/:group
  // GET /v1/orgs/:org/groups/:group/email
  orgRoutes(api);
  // GET /v1/users/:user/groups
  userGroupsRoute(api);
}
