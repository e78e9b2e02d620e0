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
  collectionRoutes(api, kind);
  const r = resourceRouter(api, kind);
  folderRoutes(r, kind);
  for (const spec of kind.entries) entryRoutes(r, kind, spec);
  derivedFolderRoutes(r, kind);
  shareRoutes(r, kind);
  tagRoutes(r);
  if (kind.log) logRoute(r, kind);
  extend?.(r);
}
