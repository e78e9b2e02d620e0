/**
 * Routes of the docs area: the document resource (common routes from the core plus
 * assets, vars, notifications, threads) and the read-only alias /v1/u/:user/d. A
 * document's files/ are the render area's (render/routes.ts).
 *
 * Every path below /v1/vis/docs is also served below /v1/users/:owner/vis/docs (the owner's
 * path, as a share grantee sees it), except PUT (create). docs/ROUTES.md lists each route
 * with the file that declares it.
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { aliasRoutes } from './alias';
import { assetRoutes } from './asset-routes';
import { docKind } from './kind';
import { notificationRoutes } from './notification-routes';
import { docThreadRoutes } from './thread-routes';
import { varRoutes } from './var-routes';

export function docRoutes(api: Api): void {
  // GET /v1/vis/docs
  // PUT|GET|PATCH|DELETE /v1/vis/docs/:doc
  // GET|POST|DELETE /v1/vis/docs/:doc/content
  // GET|POST|DELETE /v1/vis/docs/:doc/name
  // GET|POST|DELETE /v1/vis/docs/:doc/description
  // GET|POST|DELETE /v1/vis/docs/:doc/summary
  // GET /v1/vis/docs/:doc/shortname
  // GET /v1/vis/docs/:doc/url
  // GET|POST|DELETE /v1/vis/docs/:doc/config/comments
  // GET|POST|DELETE /v1/vis/docs/:doc/config/custom/custom.css
  // GET|POST|DELETE /v1/vis/docs/:doc/config/theme
  // GET|POST|DELETE /v1/vis/docs/:doc/config/title
  // GET|POST|DELETE /v1/vis/docs/:doc/config/toc
  // GET|POST|DELETE /v1/vis/docs/:doc/config/type
  // GET /v1/vis/docs/:doc/config
  // GET /v1/vis/docs/:doc/config/custom
  // GET /v1/vis/docs/:doc/shared
  // PUT|DELETE /v1/vis/docs/:doc/shared/:entry
  // GET /v1/vis/docs/:doc/tags
  // PUT|DELETE /v1/vis/docs/:doc/tags/:tag
  // GET /v1/vis/docs/:doc/log
  resourceRoutes(api, docKind, (r) => {
    // GET /v1/vis/docs/:doc/assets
    // POST|GET|DELETE /v1/vis/docs/:doc/assets/:asset
    assetRoutes(r);
    // GET /v1/vis/docs/:doc/vars
    // PUT|GET|DELETE /v1/vis/docs/:doc/vars/:var
    // GET|POST|DELETE /v1/vis/docs/:doc/vars/:var/:attr
    varRoutes(r);
    // GET|POST|DELETE /v1/vis/docs/:doc/notifications
    notificationRoutes(r);
    // GET /v1/vis/docs/:doc/threads
    // PUT|GET|POST|DELETE /v1/vis/docs/:doc/threads/:topic
    // POST /v1/vis/docs/:doc/threads/:ref/msg
    // PUT /v1/vis/docs/:doc/threads/:topic/comments/:path+
    // POST /v1/vis/docs/:doc/threads/:topic/comments/:path+/msg
    // GET|DELETE /v1/vis/docs/:doc/threads/:topic/:comment
    docThreadRoutes(r);
  });
  // GET /v1/u/:user/d
  // GET /v1/u/:user/d/:doc
  // GET /v1/u/:user/d/:doc/img
  // GET /v1/u/:user/d/:doc/txt
  // GET /v1/u/:user/d/:doc/ansi
  // GET /v1/u/:user/d/:doc/v
  // GET /v1/u/:user/d/:doc/v/:var
  // GET /v1/u/:user/d/:doc/v/:var/txt
  // GET /v1/u/:user/d/:doc/v/:var/ansi
  aliasRoutes(api);
}
