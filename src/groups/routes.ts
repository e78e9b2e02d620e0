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
  // PUT /v1/admin/groups/:group, /v1/admin/orgs/:org, /v1/admin/orgs/:org/groups/:group
  creationRoutes(api);
  // GET /v1/admin/groups, /v1/admin/orgs, /v1/groups
  callerGroupRoutes(api);
  // GET, DELETE <group>
  groupFolderRoutes(g);
  // GET <group>/role, <group>/roles[/:role]; PUT, DELETE <group>/roles/:role/:user
  roleRoutes(g);
  // GET /v1/admin/invites[/:ref]; POST /v1/admin/invites/:ref/accept
  inviteRoutes(api);
  // <group>/profile/...: name, description, picture/{image,banner,mask}, options/:option
  profileRoutes(g);
  // <group>/threads/..., also under /v1/groups/:group, /v1/users/:owner/groups/:group, /v1/orgs/:org/groups/:group
  groupThreadRoutes(g);
  groupThreadRoutes(groupRouter(api, THREAD_BASES));
  // GET /v1/orgs, /v1/orgs/:org, /v1/o/:org[/card|/img|/banner|/:section],
  //     /v1/orgs/:org/groups, /v1/admin/orgs/:org/groups, /v1/orgs/:org/groups/:group[/email]
  orgRoutes(api);
  // GET /v1/users/:user/groups
  userGroupsRoute(api);
}
