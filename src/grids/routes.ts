/**
 * Routes of the grids area: the grid resource (core resourceRoutes: create, list, rename,
 * copy, delete, name, description, layout, mapping, sharing, tags, log), its threads, its
 * parsed results under json/, and the rendered dashboard page (html) under the owner's
 * path, the share grantee's path, the public alias and the grid's url.
 *
 * Every path below /v1/vis/grids is also served below /v1/users/:owner/vis/grids (the owner's
 * path, as a share grantee sees it), except PUT (create). docs/ROUTES.md lists each route
 * with the file that declares it.
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { resourceThreadRoutes } from '../core/resource/thread-routes';
import { htmlRoute, publicPageRoutes } from './html-routes';
import { jsonRoutes } from './json-routes';
import { gridKind } from './kind';

export function gridRoutes(api: Api): void {
  // GET /v1/vis/grids
  // PUT|GET|PATCH|DELETE /v1/vis/grids/:grid
  // GET|POST|DELETE /v1/vis/grids/:grid/name
  // GET|POST|DELETE /v1/vis/grids/:grid/description
  // GET|POST|DELETE /v1/vis/grids/:grid/summary
  // GET /v1/vis/grids/:grid/shortname
  // GET /v1/vis/grids/:grid/url
  // GET|POST|DELETE /v1/vis/grids/:grid/config/theme
  // GET|POST|DELETE /v1/vis/grids/:grid/config/type
  // GET|POST|DELETE /v1/vis/grids/:grid/layout
  // GET|POST|DELETE /v1/vis/grids/:grid/mapping
  // GET /v1/vis/grids/:grid/config
  // GET /v1/vis/grids/:grid/shared
  // PUT|DELETE /v1/vis/grids/:grid/shared/:entry
  // GET /v1/vis/grids/:grid/tags
  // PUT|DELETE /v1/vis/grids/:grid/tags/:tag
  // GET /v1/vis/grids/:grid/log
  resourceRoutes(api, gridKind, (r) => {
    // GET /v1/vis/grids/:grid/threads
    // PUT|GET|POST|DELETE /v1/vis/grids/:grid/threads/:topic
    // POST /v1/vis/grids/:grid/threads/:ref/msg
    // PUT /v1/vis/grids/:grid/threads/:topic/comments/:path+
    // POST /v1/vis/grids/:grid/threads/:topic/comments/:path+/msg
    // GET|DELETE /v1/vis/grids/:grid/threads/:topic/:comment
    resourceThreadRoutes(r, 'grid');
    // GET /v1/vis/grids/:grid/json
    // GET /v1/vis/grids/:grid/json/data.json
    // GET /v1/vis/grids/:grid/json/meta_data.json
    // GET /v1/vis/grids/:grid/json/parse_time
    jsonRoutes(r);
    // GET /v1/vis/grids/:grid/html
    htmlRoute(r);
  });
  // GET /v1/u/:user/g/:grid/html
  // GET /u/:user/g/:grid
  publicPageRoutes(api);
}
