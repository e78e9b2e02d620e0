/**
 * Routes of the mail area: e-mails as resources (common routes from the core), their
 * threads, sending through POST status (validated in the spec's order, decided by the
 * MailObject), stats/runs, assets, the e-mail's web view at its url and the public
 * unsubscribe link. (The operator's bounce report is under /v1/ops: accounts/routes.ts.)
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { resourceThreadRoutes } from '../core/resource/thread-routes';
import { assetRoutes } from './asset-routes';
import { mailKind } from './kind';
import { mailPageRoute } from './page-routes';
import { statsRoutes } from './stats-routes';
import { statusRoutes } from './status-routes';
import { unsubscribeRoutes } from './unsubscribe-routes';

export function mailRoutes(api: Api): void {
  resourceRoutes(api, mailKind, (r) => {
    resourceThreadRoutes(r, 'e-mail');
    statusRoutes(r);
    statsRoutes(r);
    assetRoutes(r);
  });
  mailPageRoute(api);
  unsubscribeRoutes(api);
}
