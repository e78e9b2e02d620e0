/** Routes of the webhooks area: endpoints of a user or an organisation, their deliveries. */
import type { Api } from '../core/api';
import { deliveryRoutes } from './delivery-routes';
import { endpointRoutes } from './endpoint-routes';
import { enterOwner, ORG_PREFIX, USER_PREFIX, type OwnerCtx } from './owner';

export function webhookRoutes(api: Api): void {
  const scope = api.scope<OwnerCtx, object>({
    prefixes: [USER_PREFIX, ORG_PREFIX],
    tag: 'webhooks',
    enter: (ctx, _spec, prefix) => enterOwner(ctx, prefix),
  });
  // GET /v1/admin/webhooks
  // PUT|GET|POST|DELETE /v1/admin/webhooks/:name
  // POST /v1/admin/webhooks/:name/rotate
  // POST /v1/admin/webhooks/:name/test
  // (each also under /v1/admin/orgs/:org/webhooks)
  endpointRoutes(scope);
  // GET /v1/admin/webhooks/:name/deliveries
  // GET /v1/admin/webhooks/:name/deliveries/:id
  // POST /v1/admin/webhooks/:name/deliveries/:id/redeliver
  // (each also under /v1/admin/orgs/:org/webhooks)
  deliveryRoutes(scope);
}
