/**
 * The common routes of a resource kind, in the order they are matched and documented:
 * the collection, the resource as a folder, its text entries and their folders, sharing,
 * tags, the log; then the area's own via `extend`.
 */
import type { Api } from '../api';
import { collectionRoutes } from './collection-routes';
import { entryRoutes } from './entry-routes';
import { derivedFolderRoutes, folderRoutes } from './folder-routes';
import type { ResourceKind, ResourceRoutes } from './kind';
import { logRoute } from './log-routes';
import { resourceRouter } from './router';
import { shareRoutes } from './share-routes';
import { tagRoutes } from './tag-routes';

export function resourceRoutes(api: Api, kind: ResourceKind, extend?: (r: ResourceRoutes) => void): void {
  // GET /v1/<collection>, GET /v1/users/:owner/<collection>, PUT /v1/<collection>/:param (create)
  collectionRoutes(api, kind);
  const r = resourceRouter(api, kind);
  // Below both /v1/<collection>/:param and /v1/users/:owner/<collection>/:param (router.ts):
  // GET|PATCH|DELETE <resource>
  folderRoutes(r, kind);
  // GET|POST|DELETE <resource>/<entry path>: each of kind.entries
  for (const spec of kind.entries) entryRoutes(r, kind, spec);
  // GET <resource>/<folder>: each folder the entries imply (config, config/custom, recipients)
  derivedFolderRoutes(r, kind);
  // GET <resource>/shared, PUT|DELETE <resource>/shared/:entry
  shareRoutes(r, kind);
  // GET <resource>/tags, PUT|DELETE <resource>/tags/:tag
  tagRoutes(r);
  // GET <resource>/log (kinds with a log)
  if (kind.log) logRoute(r, kind);
  extend?.(r);
}
