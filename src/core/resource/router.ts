/** The scope below one resource of a kind: the one way routes below a resource are mounted. */
import type { Api } from '../api';
import type { ResourceCtx, ResourceKind, ResourceRoutes, ResourceScoped } from './kind';
import { loadResource, requireAccess } from './load';

/**
 * Routes below one resource of `kind`, registered under both the owner's path and the
 * share grantee's path; each handler gets the loaded resource after the access check.
 * Another area may add routes to a kind it does not own (rendering adds files/doc.pdf).
 */
export function resourceRouter(api: Api, kind: ResourceKind): ResourceRoutes {
  return api.scope<ResourceCtx, ResourceScoped>({
    prefixes: [`/v1/${kind.collection}/:${kind.param}`, `/v1/users/:owner/${kind.collection}/:${kind.param}`],
    tag: kind.collection,
    auth: (spec) => (spec.anonymous ? 'optional' : 'user'),
    enter: async (ctx, spec) => {
      const rc = await loadResource(ctx, kind, undefined, spec.preload);
      requireAccess(rc, spec.need);
      return rc;
    },
  });
}
