/**
 * Routes of the grids area: the grid resource (core resourceRoutes: create, list, rename,
 * copy, delete, name, description, layout, mapping, sharing, tags, log), its threads, its
 * parsed results under json/, and the rendered dashboard page (html) under the owner's
 * path, the share grantee's path, the public alias and the grid's url.
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { resourceThreadRoutes } from '../core/resource/thread-routes';
import { htmlRoute, publicPageRoutes } from './html-routes';
import { jsonRoutes } from './json-routes';
import { gridKind } from './kind';

export function gridRoutes(api: Api): void {
  resourceRoutes(api, gridKind, (r) => {
    resourceThreadRoutes(r, 'grid');
    jsonRoutes(r);
    htmlRoute(r);
  });
  publicPageRoutes(api);
}
