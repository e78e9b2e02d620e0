/** Routes of the accounts area: tokens, the caller's own account and profile, and the operator interface. */
import type { Api } from '../core/api';
import { opsRoutes } from './ops-routes';
import { profileRoutes } from './profile-routes';
import { tokenRoutes } from './token-routes';

export function accountRoutes(api: Api): void {
  // POST /v1/token, GET /v1/token, POST /v1/logout, GET /v1/whoami
  tokenRoutes(api);
  // GET /v1/admin/profile, GET|POST /v1/admin/profile/{public,name,bio,timezone}, GET /v1/admin/profile/{overview,url}
  profileRoutes(api);
  // PUT /v1/ops/users/:user, GET|DELETE /v1/ops/outbox, POST /v1/ops/clock (only with OPS_TOKEN set)
  opsRoutes(api);
}
