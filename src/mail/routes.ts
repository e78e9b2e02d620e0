/**
 * Routes of the mail area: e-mails as resources (common routes from the core), sending
 * through POST status (validated in the spec's order, decided by the MailObject), status,
 * stats/runs, assets, and the public unsubscribe link.
 */
import { resourceThreadRoutes } from '../core/resource/thread-routes';
import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Api } from '../core/api';
import { badRequest, forbidden, HttpError, notFound } from '../core/errors';
import { jsonResponse, mediaType, noContent, readJson, readText, textResponse, wantsJson } from '../core/http';
import { listingResponse, listingResponses } from '../core/listing';
import { appendLog } from '../core/log';
import { fixedFolderRoute, listingItem, resourceRoutes, type ResourceCtx } from '../core/resource';
import { resources } from '../db/schema';
import { assetName, assetTags, deleteAsset, getAsset, listAssets, putAsset } from './assets';
import { composeStored, contentKey } from './compose';
import { mailKind, mailObject } from './kind';
import { planOf } from './recipients';
import { isAddress, isFalsy, normaliseAddress, parseSendJson, parseSendText, recipientKey, SendRequestError, type SendRequest } from './rules';
import { mailRuns, type MailRun } from './schema';
import { sha256Hex } from '../core/crypto';
import { suppress, verifyUnsubscribeToken } from './unsubscribe';

const runSchema = z.object({
  timestamp: z.string(),
  duration: z.number(),
  status: z.enum(['delivered', 'partial', 'failed']),
  action: z.enum(['send', 'test']),
  adhoc: z.boolean(),
  created_by: z.string(),
  recipients: z.number(),
  delivered: z.number(),
  suppressed: z.number(),
  skipped: z.number(),
  failed: z.number(),
});

const runRow = (r: MailRun): z.infer<typeof runSchema> => ({
  timestamp: r.started_on,
  duration: r.duration,
  status: r.status,
  action: r.action,
  adhoc: r.adhoc,
  created_by: r.created_by,
  recipients: r.recipients,
  delivered: r.delivered,
  suppressed: r.suppressed,
  skipped: r.skipped,
  failed: r.failed,
});

/** stats/runs as a plain-text table: a header, then one row per send, oldest first. */
export function runsTable(rows: z.infer<typeof runSchema>[]): string {
  const head = ['timestamp', 'duration', 'status', 'action', 'recipients', 'delivered', 'suppressed', 'skipped', 'failed'];
  const cells = rows.map((r) => [r.timestamp, r.duration.toFixed(2), r.status, r.action + (r.adhoc ? '(to)' : ''), ...[r.recipients, r.delivered, r.suppressed, r.skipped, r.failed].map(String)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [head, ...cells].map((c) => c.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}

async function readSendRequest(rc: ResourceCtx): Promise<SendRequest> {
  try {
    if (mediaType(rc.req) === 'application/json') return parseSendJson(await readJson(rc.req, 64 * 1024));
    return parseSendText(await readText(rc.req, 64 * 1024));
  } catch (err) {
    if (err instanceof SendRequestError) throw badRequest(err.message);
    throw err;
  }
}

/** POST status: the validation order of the spec, steps 1-2 here, 3-5 in the MailObject. */
async function send(rc: ResourceCtx): Promise<Response> {
  if (!rc.access.owner) throw notFound(`no such e-mail: ${rc.resource.name}`); // 1: only the owner sends
  const who = rc.caller!.username;
  // Rejections are logged after the answer: a burst of held re-fires must not queue on log writes.
  const reject = async (err: HttpError): Promise<never> => {
    rc.exec.waitUntil(appendLog(rc.db, rc.resource.id, `send by ${who} rejected (${err.status}): ${err.message}`, 'warning').catch(() => undefined));
    throw err;
  };
  let req: SendRequest;
  try {
    req = await readSendRequest(rc);
  } catch (err) {
    if (err instanceof HttpError) return reject(err);
    throw err;
  }
  // The caller as D1 has it now (not the auth cache) and the mail's entries came with the
  // mail itself (preload): one D1 round trip before the MailObject decides.
  const caller = rc.preloaded?.caller ?? rc.caller!;
  if (!caller.email || !caller.email_verified) return reject(forbidden('verify your own e-mail address before sending')); // 2
  const allowance = planOf(caller).direct;
  if (req.to && req.to.length > allowance) {
    return reject(badRequest(`to names ${req.to.length} addresses: the ${caller.plan} plan allows ${allowance} direct addresses per send`));
  }
  const key = recipientKey(req);
  let windowKey: string | null = null;
  let enabled = true;
  if (req.action === 'send') {
    const values = rc.preloaded?.entries ?? new Map<string, string>();
    enabled = !isFalsy(values.get('config/enabled') ?? 'true');
    const composed = await composeStored(rc, values);
    windowKey = await sha256Hex(`${await contentKey(composed, await assetTags(rc.env, rc.resource.id, composed.assets))}|${key}`);
  }
  const outcome = await mailObject(rc.env, rc.resource.id).trigger({
    job: { action: req.action, key, resourceId: rc.resource.id, callerId: caller.id, callerName: who, callerEmail: caller.email, ...(req.to ? { to: req.to } : {}) },
    windowKey,
    enabled,
  });
  if (outcome.status !== 202) {
    return reject(new HttpError(outcome.status, outcome.message, outcome.retry_after_seconds ? { retry_after_seconds: outcome.retry_after_seconds } : {}));
  }
  // The trigger line is the first thing delivery logs (off the acceptance path).
  return jsonResponse({ status: 202, message: `accepted: ${outcome.state}`, id: outcome.id, state: outcome.state }, { status: 202 });
}

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
      handler: async (rc) => {
        const rows = (await rc.db.select().from(mailRuns).where(eq(mailRuns.resource_id, rc.resource.id)).orderBy(asc(mailRuns.id))).map(runRow);
        return wantsJson(rc.req) ? jsonResponse(rows, { nvmType: 'file' }) : textResponse(runsTable(rows));
      },
    });
    r.get('/assets', {
      summary: 'List the assets of an e-mail',
      need: 'r',
      responses: listingResponses,
      handler: async (rc) => {
        const actions = rc.access.w ? (['GET', 'POST', 'DELETE'] as const) : (['GET'] as const);
        const items = (await listAssets(rc.env, rc.resource.id)).map((o) =>
          listingItem(rc, assetName(o), `${rc.base}/assets/${assetName(o)}`, 'file', [...actions], o.uploaded.toISOString(), o.uploaded.toISOString()),
        );
        return listingResponse(items);
      },
    });
    r.get('/assets/:asset', {
      summary: 'Download an asset',
      need: 'r',
      responses: { 200: { description: 'The asset', type: 'application/octet-stream' } },
      handler: async (rc) => {
        const obj = await getAsset(rc.env, rc.resource.id, rc.params.asset!);
        if (!obj) throw notFound(`no asset ${rc.params.asset}`);
        return new Response(obj.body, { headers: { 'Content-Type': obj.httpMetadata?.contentType ?? 'application/octet-stream', 'X-NVM-Type': 'file', ETag: obj.httpEtag } });
      },
    });
    r.post('/assets/:asset', {
      summary: 'Upload or replace an asset (PNG, JPEG, GIF, SVG, WebP, WOFF, WOFF2, TTF, OTF; at most 5 MiB, 25 per e-mail)',
      need: 'w',
      body: { type: 'application/octet-stream', description: 'The raw file with its Content-Type' },
      responses: { 201: { description: 'Uploaded' }, 204: { description: 'Replaced' }, 409: { description: '25 assets already' }, 413: { description: 'Too large' }, 415: { description: 'Type not allowed' } },
      handler: async (rc) => {
        const created = await putAsset(rc, rc.params.asset!);
        await appendLog(rc.db, rc.resource.id, `asset ${rc.params.asset} ${created ? 'uploaded' : 'replaced'}`);
        return created ? jsonResponse({ status: 201, message: `uploaded ${rc.params.asset}` }, { status: 201 }) : noContent();
      },
    });
    r.delete('/assets/:asset', {
      summary: 'Remove an asset',
      need: 'w',
      responses: { 204: { description: 'Removed' } },
      handler: async (rc) => {
        await deleteAsset(rc.env, rc.resource.id, rc.params.asset!);
        await appendLog(rc.db, rc.resource.id, `asset ${rc.params.asset} removed`);
        return noContent();
      },
    });
  });

  const unsubscribe = async (ctx: { env: Env; db: import('../core/context').Db; params: Record<string, string> }) => {
    const p = await verifyUnsubscribeToken(ctx.env, ctx.db, ctx.params.token!);
    if (!p) throw notFound('this unsubscribe link is not valid');
    await suppress(ctx.db, p.owner, p.email, 'unsubscribed');
    const mail = await ctx.db.select({ id: resources.id }).from(resources).where(eq(resources.id, p.mail)).get();
    if (mail) await appendLog(ctx.db, mail.id, `${p.email} unsubscribed`);
    return textResponse(`${p.email} is unsubscribed: you will get no more e-mails from this sender.\n`);
  };
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
    handler: async (ctx) => {
      if (!isAddress(ctx.params.address!)) throw badRequest(`not an e-mail address: ${ctx.params.address}`);
      await suppress(ctx.db, 0, normaliseAddress(ctx.params.address!), 'bounced');
      return noContent();
    },
  });
}
