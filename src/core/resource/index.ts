/**
 * Resources: documents, grids, mails and jobs are all folders of entries owned by a user
 * and shared through sharing entries. This module holds what they have in common and
 * generates their common routes from a `ResourceKind` description, under both the
 * caller's own paths (`/v1/vis/docs/:doc`) and the owner's paths as seen by a share
 * grantee (`/v1/users/:owner/vis/docs/:doc`). Areas add their own routes with `extend`.
 *
 * kind.ts what a kind declares; load.ts the loaded resource and access checks;
 * visibility.ts the share-visibility SQL; composition.ts what content may use when it is
 * used (every writer on the way); references.ts what a write by someone other than
 * the owner may name; store.ts create, rename, copy; listing-items.ts listing items; router.ts the
 * scope below one resource; routes.ts the table of common routes, whose handlers live in
 * <family>-routes.ts (collection, folder, entry, share, tag, log).
 */
export type { EntrySpec, Preload, ResourceCtx, ResourceKind, ResourceRoutes } from './kind';
export { COMPOSITION_PATHS, type CompositionPath, type Reference } from './paths';
export { plotIdSql, plotReference } from './path-refs';
export {
  composedReads,
  lendsOwnerSecrets,
  NOBODY,
  principals,
  principalsWith,
  resourceVerdict,
  type Use,
  type Verdict,
} from './composition';
export { findUser, loadResource, loadUserPath, requireAccess } from './load';
export { readableThroughShare, visibleResources, visibleWhere } from './visibility';
export { listingItem } from './listing-items';
export { resourceRouter } from './router';
export { fixedFolderRoute } from './folder-routes';
export { resourceRoutes } from './routes';
export { checkTag } from './tag-routes';
