/**
 * Routes of the mail area: e-mails as resources (common routes from the core), their
 * threads, sending through POST status (checked in the order docs/areas/mail.md gives, decided by the
 * MailObject), stats/runs, assets, the e-mail's web view at its url and the public
 * unsubscribe link, and the signed bounce and complaint reports (POST /v1/ops/mail/events). (The operator's
 * bounce report is under /v1/ops: accounts/routes.ts.)
 *
 * Every path below /v1/vis/mails is also served below /v1/users/:owner/vis/mails (the owner's
 * path, as a share grantee sees it), except PUT (create). docs/ROUTES.md lists each route
 * with the file that declares it.
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { resourceThreadRoutes } from '../core/resource/thread-routes';
import { assetRoutes } from './asset-routes';
import { mailEventRoutes } from './events-routes';
import { mailKind } from './kind';
import { mailPageRoute } from './page-routes';
import { statsRoutes } from './stats-routes';
import { statusRoutes } from './status-routes';
import { unsubscribeRoutes } from './unsubscribe-routes';

export function mailRoutes(api: Api): void {
  // GET /v1/vis/mails
  // PUT|GET|PATCH|DELETE /v1/vis/mails/:mail
  // GET|POST|DELETE /v1/vis/mails/:mail/content
  // GET|POST|DELETE /v1/vis/mails/:mail/name
  // GET|POST|DELETE /v1/vis/mails/:mail/description
  // GET|POST|DELETE /v1/vis/mails/:mail/summary
  // GET|POST|DELETE /v1/vis/mails/:mail/config/subject
  // GET|POST|DELETE /v1/vis/mails/:mail/subject
  // GET|POST|DELETE /v1/vis/mails/:mail/config/theme
  // GET|POST|DELETE /v1/vis/mails/:mail/config/template
  // GET /v1/vis/mails/:mail/shortname
  // GET /v1/vis/mails/:mail/url
  // GET|POST|DELETE /v1/vis/mails/:mail/config/reply_to
  // GET|POST|DELETE /v1/vis/mails/:mail/config/size
  // GET|POST|DELETE /v1/vis/mails/:mail/config/enabled
  // GET|POST|DELETE /v1/vis/mails/:mail/recipients/to
  // GET|POST|DELETE /v1/vis/mails/:mail/recipients/cc
  // GET|POST|DELETE /v1/vis/mails/:mail/recipients/bcc
  // GET /v1/vis/mails/:mail/config
  // GET /v1/vis/mails/:mail/recipients
  // GET /v1/vis/mails/:mail/shared
  // PUT|DELETE /v1/vis/mails/:mail/shared/:entry
  // GET /v1/vis/mails/:mail/tags
  // PUT|DELETE /v1/vis/mails/:mail/tags/:tag
  // GET /v1/vis/mails/:mail/log
  resourceRoutes(api, mailKind, (r) => {
    // GET /v1/vis/mails/:mail/threads
    // PUT|GET|POST|DELETE /v1/vis/mails/:mail/threads/:topic
    // POST /v1/vis/mails/:mail/threads/:ref/msg
    // PUT /v1/vis/mails/:mail/threads/:topic/comments/:path+
    // POST /v1/vis/mails/:mail/threads/:topic/comments/:path+/msg
    // GET|DELETE /v1/vis/mails/:mail/threads/:topic/:comment
    resourceThreadRoutes(r, 'e-mail');
    // GET|POST /v1/vis/mails/:mail/status
    statusRoutes(r);
    // GET /v1/vis/mails/:mail/stats
    // GET /v1/vis/mails/:mail/stats/runs
    statsRoutes(r);
    // GET /v1/vis/mails/:mail/assets
    // GET|POST|DELETE /v1/vis/mails/:mail/assets/:asset
    assetRoutes(r);
  });
  // GET /u/:user/m/:mail
  mailPageRoute(api);
  // GET|POST /v1/mail/unsubscribe/:token
  unsubscribeRoutes(api);
  // POST /v1/ops/mail/events
  mailEventRoutes(api);
}
