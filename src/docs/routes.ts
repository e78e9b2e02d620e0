/**
 * Routes of the docs area: the document resource (common routes from the core plus
 * assets, vars, files, notifications, threads) and the read-only alias /v1/u/:user/d.
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { aliasRoutes } from './alias';
import { assetRoutes } from './assets';
import { fileRoutes } from './file-routes';
import { docKind } from './kind';
import { notificationRoutes } from './notification-routes';
import { docThreadRoutes } from './thread-routes';
import { varRoutes } from './var-routes';

export function docRoutes(api: Api): void {
  resourceRoutes(api, docKind, (r) => {
    assetRoutes(r);
    varRoutes(r);
    fileRoutes(r);
    notificationRoutes(r);
    docThreadRoutes(r);
  });
  aliasRoutes(api);
}
