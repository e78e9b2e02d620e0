/** Routes of the accounts area: tokens, the caller's own account and profile, and the operator interface. */
import type { Api } from '../core/api';
import { accountRoutes as ownAccountRoutes } from './account-routes';
import { opsRoutes } from './ops-routes';
import { profileRoutes } from './profile-routes';
import { tokenRoutes } from './token-routes';

export function accountRoutes(api: Api): void {
  // POST|GET /v1/token
  // POST /v1/logout
  // GET /v1/tokens
  // DELETE /v1/tokens/:token_name
  // GET /v1/whoami
  tokenRoutes(api);
  // GET /v1/admin/profile
  // POST|GET /v1/admin/profile/public
  // GET /v1/admin/profile/overview
  // GET /v1/admin/profile/url
  // GET|POST /v1/admin/profile/name
  // GET|POST /v1/admin/profile/bio
  // GET|POST /v1/admin/profile/timezone
  profileRoutes(api);
  // DELETE /v1/admin/account
  ownAccountRoutes(api);
  // PUT|DELETE /v1/ops/users/:user
  // GET /v1/ops/deletions
  // GET|DELETE /v1/ops/outbox
  // GET /v1/ops/retention
  // POST /v1/ops/clock
  // PUT /v1/ops/mail/bounces/:address
  opsRoutes(api);
}
