/**
 * Routes of the mail area: e-mails as resources (common routes from the core), sending
 * through POST status (validated in the spec's order, decided by the MailObject), status,
 * stats/runs, assets, and the public unsubscribe link. Handlers live in the files named
 * after their entry family (send.ts, stats-routes.ts, asset-routes.ts, suppression-routes.ts).
 */
import { z } from 'zod';
import type { Api } from '../core/api';
import { textResponse } from '../core/http';
import { listingResponses } from '../core/listing';
import { fixedFolderRoute, resourceRoutes } from '../core/resource';
import { resourceThreadRoutes } from '../core/resource/thread-routes';
import { assetDownload, assetListing, assetRemoval, assetUpload } from './asset-routes';
import { mailKind, mailObject } from './kind';
import { mailPageRoute } from './page-routes';
import { send } from './send';
import { statsRuns } from './stats-routes';
import { recordBounce, unsubscribe } from './suppression-routes';

export function mailRoutes(api: Api): void {
  resourceRoutes(api, mailKind, (r) => {
    resourceThreadRoutes(r, 'e-mail');
    r.get('/status', {
      summary: 'Send state: ready, sending or testing',
      need: 'r',
      responses: { 200: { description: 'ready, sending or testing', type: 'text/plain' } },
      handler: async (rc) => textResponse(await mailObject(rc.env, rc.resource.id).status()),
    });
    r.post('/status', {
      summary: 'Send: text sent|test, or JSON {action: send|test, to?: [addresses]}',
      need: 'r',
      body: { type: 'text/plain', description: 'sent or test; or application/json {action, to}' },
      responses: {
        202: {
          description: 'Accepted; delivery is asynchronous',
          type: 'application/json',
          schema: z.object({ status: z.literal(202), message: z.string(), id: z.string(), state: z.enum(['sending', 'testing']) }),
        },
        400: { description: 'Malformed body, unknown action, bad to' },
        403: { description: "Caller's address unverified, or config/enabled falsy" },
        404: { description: 'Not the owner' },
        425: { description: 'A send is in flight' },
        429: { description: 'More than 10 sends of this content in 30 minutes (retry_after_seconds)' },
      },
      preload: { entries: true, caller: true },
      handler: send,
    });
    fixedFolderRoute(r, 'stats', ['runs']);
    r.get('/stats/runs', {
      summary: 'One row per send: timestamp, duration (s), final status; text table or JSON',
      need: 'r',
      responses: { 200: { description: 'Send history, oldest first', type: 'text/plain' } },
      handler: statsRuns,
    });
    r.get('/assets', {
      summary: 'List the assets of an e-mail',
      need: 'r',
      responses: listingResponses,
      handler: assetListing,
    });
    r.get('/assets/:asset', {
      summary: 'Download an asset',
      need: 'r',
      responses: { 200: { description: 'The asset', type: 'application/octet-stream' } },
      handler: assetDownload,
    });
    r.post('/assets/:asset', {
      summary: 'Upload or replace an asset (PNG, JPEG, GIF, SVG, WebP, WOFF, WOFF2, TTF, OTF; at most 5 MiB, 25 per e-mail)',
      need: 'w',
      body: { type: 'application/octet-stream', description: 'The raw file with its Content-Type' },
      responses: {
        201: { description: 'Uploaded' },
        204: { description: 'Replaced' },
        409: { description: '25 assets already' },
        413: { description: 'Too large' },
        415: { description: 'Type not allowed' },
      },
      handler: assetUpload,
    });
    r.delete('/assets/:asset', {
      summary: 'Remove an asset',
      need: 'w',
      responses: { 204: { description: 'Removed' } },
      handler: assetRemoval,
    });
  });

  // /u/<user>/m/<mail>, the e-mail's url: its web view
  mailPageRoute(api);

  const unsubscribeSpec = {
    tag: 'vis/mails',
    auth: 'none' as const,
    responses: { 200: { description: 'Unsubscribed', type: 'text/plain' }, 404: { description: 'Forged or malformed link' } },
    handler: unsubscribe,
  };
  api.get('/v1/mail/unsubscribe/:token', { ...unsubscribeSpec, summary: 'Unsubscribe link of every e-mail: records the suppression' });
  api.post('/v1/mail/unsubscribe/:token', { ...unsubscribeSpec, summary: 'One-click unsubscribe (RFC 8058 List-Unsubscribe-Post)' });

  api.put('/v1/ops/mail/bounces/:address', {
    summary: 'Record a bounced address: no platform e-mail goes to it any more',
    tag: 'ops',
    auth: 'ops',
    responses: { 204: { description: 'Recorded' }, 400: { description: 'Not an address' } },
    handler: recordBounce,
  });
}
