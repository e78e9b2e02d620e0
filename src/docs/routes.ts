/**
 * Routes of the docs area: the document resource (common routes from the core plus
 * assets, vars, notifications, threads) and the read-only alias /v1/u/:user/d. A
 * document's files/ are the render area's (render/routes.ts).
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { aliasRoutes } from './alias';
import { assetRoutes } from './assets';
import { docKind } from './kind';
import { notificationRoutes } from './notification-routes';
import { docThreadRoutes } from './thread-routes';
import { varRoutes } from './var-routes';

export function docRoutes(api: Api): void {
  resourceRoutes(api, docKind, (r) => {
    assetRoutes(r);
    varRoutes(r);
    notificationRoutes(r);
    docThreadRoutes(r);
  });
  aliasRoutes(api);
}
