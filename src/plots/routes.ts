/**
 * Routes of the plots area: the plot resource (core resourceRoutes: create, list, rename,
 * copy, delete, its data and config entries, sharing, tags, log) and its threads. Its drawn
 * files (files/plot.svg, .png, .txt, .ansi) and its page are the render area's
 * (render/plot-routes.ts).
 *
 * Every path below /v1/vis/plots is also served below /v1/users/:owner/vis/plots (the owner's
 * path, as a share grantee sees it), except PUT (create). docs/ROUTES.md lists each route
 * with the file that declares it.
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { resourceThreadRoutes } from '../core/resource/thread-routes';
import { plotKind } from './kind';

export function plotRoutes(api: Api): void {
  // GET /v1/vis/plots
  // PUT|GET|PATCH|DELETE /v1/vis/plots/:plot
  // GET|POST|DELETE /v1/vis/plots/:plot/name
  // GET|POST|DELETE /v1/vis/plots/:plot/description
  // GET|POST|DELETE /v1/vis/plots/:plot/summary
  // GET /v1/vis/plots/:plot/shortname
  // GET /v1/vis/plots/:plot/url
  // GET|POST|DELETE /v1/vis/plots/:plot/data
  // GET|POST|DELETE /v1/vis/plots/:plot/config/type
  // GET|POST|DELETE /v1/vis/plots/:plot/config/title
  // GET|POST|DELETE /v1/vis/plots/:plot/config/caption
  // GET|POST|DELETE /v1/vis/plots/:plot/config/colors/colors
  // GET|POST|DELETE /v1/vis/plots/:plot/config/colors/type
  // GET|POST|DELETE /v1/vis/plots/:plot/config/legend/format
  // GET|POST|DELETE /v1/vis/plots/:plot/config/legend/layout
  // GET|POST|DELETE /v1/vis/plots/:plot/config/legend/position
  // GET|POST|DELETE /v1/vis/plots/:plot/config/legend/type
  // GET|POST|DELETE /v1/vis/plots/:plot/config/table/cell/align
  // GET|POST|DELETE /v1/vis/plots/:plot/config/table/cell/format
  // GET|POST|DELETE /v1/vis/plots/:plot/config/table/cell/border
  // GET|POST|DELETE /v1/vis/plots/:plot/config/table/cell/padding
  // GET|POST|DELETE /v1/vis/plots/:plot/config/table/cell/text
  // GET|POST|DELETE /v1/vis/plots/:plot/config/table/cell/width
  // GET|POST|DELETE /v1/vis/plots/:plot/config/custom/custom.css
  // GET|POST|DELETE /v1/vis/plots/:plot/config/custom/custom.js
  // GET /v1/vis/plots/:plot/config
  // GET /v1/vis/plots/:plot/config/colors
  // GET /v1/vis/plots/:plot/config/legend
  // GET /v1/vis/plots/:plot/config/table
  // GET /v1/vis/plots/:plot/config/table/cell
  // GET /v1/vis/plots/:plot/config/custom
  // GET /v1/vis/plots/:plot/shared
  // PUT|DELETE /v1/vis/plots/:plot/shared/:entry
  // GET /v1/vis/plots/:plot/tags
  // PUT|DELETE /v1/vis/plots/:plot/tags/:tag
  // GET /v1/vis/plots/:plot/log
  resourceRoutes(api, plotKind, (r) => {
    // GET /v1/vis/plots/:plot/threads
    // PUT|GET|POST|DELETE /v1/vis/plots/:plot/threads/:topic
    // POST /v1/vis/plots/:plot/threads/:ref/msg
    // PUT /v1/vis/plots/:plot/threads/:topic/comments/:path+
    // POST /v1/vis/plots/:plot/threads/:topic/comments/:path+/msg
    // GET|DELETE /v1/vis/plots/:plot/threads/:topic/:comment
    resourceThreadRoutes(r, 'plot');
  });
}
