/**
 * Endpoints: create (the secret shown this once), read, list, change, delete, rotate the
 * secret, send a test ping. At most MAX_ENDPOINTS per user or organisation. Each records who
 * created it (`created_by`): an organisation's admin, or the owner.
 */
import { eq } from 'drizzle-orm';
import * as z from 'zod';
import { now, nowIso } from '../core/clock';
import { EVENT_TYPES, eventWrite } from '../core/events';
import { badRequest, conflict, isUniqueViolation, notFound } from '../core/errors';
import { jsonResponse, noContent } from '../core/http';
import { BY_NAME, byName, listingQuery } from '../core/listing';
import { nextLink, pageItems, pageRequest } from '../core/paging';
import { checkName } from '../core/names';
import { d1Of } from '../core/context';
import type { Scope } from '../core/scope';
import { endpointOf, endpointsOf, endpointView, type Endpoint } from './endpoints';
import type { OwnerCtx } from './owner';
import { webhooks, type Webhook } from './schema';
import { queued, queuedResponses } from './record';
import { newSecret } from './sign';
import { wake } from './wake';
import { endpointUrlRefusal } from './urls';
import { once } from '../core/once';

const MAX_ENDPOINTS = 20;
/** Both secrets sign deliveries for this long after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const ENDPOINT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const ENDPOINT_EXAMPLE = {
  name: 'ci',
  url: 'https://hooks.example.com/platform',
  events: ['run.failed', 'document.updated'],
  description: 'Posts failed runs to the team channel',
  enabled: true,
  disabled_reason: null,
  created_on: '2025-09-30T08:12:44.120Z',
  created_by: 'alice',
};
const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwC0bz5wHm3Xk=';
const endpoint = once(() =>
  z
    .object({
      name: z.string(),
      url: z.string(),
      events: z.array(z.string()),
      description: z.string(),
      enabled: z.boolean(),
      disabled_reason: z.string().nullable(),
      created_on: z.string(),
      created_by: z.string().nullable().describe('The username of the account that created it (null once deleted)'),
    })
    .meta({
      id: 'WebhookEndpoint',
      description: 'A URL the platform delivers events to, signed by Standard Webhooks',
      example: ENDPOINT_EXAMPLE,
    }),
);

const writable = once(() => ({
  url: z.string().max(2048),
  events: z
    .array(z.string().max(64))
    .min(1)
    .max(EVENT_TYPES.length + 1),
  description: z.string().max(1024),
}));

function checkUrl(ctx: OwnerCtx, url: string): string {
  const refused = endpointUrlRefusal(ctx.env, url, ctx.url.host);
  if (refused) throw badRequest(`url ${url} refused: ${refused}`);
  return url;
}

/** The event list, each a known type or `*` (400 naming the first unknown one). */
function checkEvents(events: string[]): string {
  const unknown = events.find((e) => e !== '*' && !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown !== undefined) throw badRequest(`unknown event type ${unknown}: one of *, ${EVENT_TYPES.join(', ')}`);
  return JSON.stringify([...new Set(events)]);
}

export async function loadEndpoint(ctx: OwnerCtx): Promise<Endpoint> {
  const hook = await endpointOf(ctx.db, ctx.ownerId, ctx.params.name ?? '');
  if (!hook) throw notFound(`no webhook endpoint ${ctx.params.name}`);
  return hook;
}

export function endpointRoutes(scope: Scope<OwnerCtx, object>): void {
  scope.get('', {
    summary: 'List the webhook endpoints (?limit, ?cursor: the Link header)',
    query: listingQuery,
    responses: {
      200: { description: 'The endpoints', type: 'application/json', schema: () => z.array(endpoint()) },
    },
    handler: async (ctx) => {
      const all = await endpointsOf(ctx.db, ctx.ownerId);
      const { items, next } = pageItems(all, pageRequest(ctx.url, BY_NAME), byName);
      return jsonResponse(items, { headers: nextLink(ctx.url, next) });
    },
  });

  scope.put('/:name', {
    summary: 'Create a webhook endpoint (its signing secret is shown this once)',
    json: () =>
      z
        .object({ ...writable(), description: writable().description.optional() })
        .strict()
        .meta({
          id: 'NewWebhookEndpoint',
          description: 'A webhook endpoint to create: its url and the event types it receives',
          example: {
            url: ENDPOINT_EXAMPLE.url,
            events: ENDPOINT_EXAMPLE.events,
            description: ENDPOINT_EXAMPLE.description,
          },
        }),
    responses: {
      201: {
        description: 'Created',
        type: 'application/json',
        schema: () =>
          endpoint()
            .extend({ secret: z.string() })
            .meta({
              id: 'CreatedWebhookEndpoint',
              description: 'A webhook endpoint just created, with its signing secret (shown this once)',
              example: { ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE },
            }),
      },
      400: { description: 'A bad name, url or event type' },
      409: { description: `It exists, or ${MAX_ENDPOINTS} endpoints exist already` },
    },
    handler: async (ctx) => {
      const name = checkName(ctx.params.name ?? '', ENDPOINT_NAME, 'webhook name');
      const url = checkUrl(ctx, ctx.body.url);
      const events = checkEvents(ctx.body.events);
      const description = ctx.body.description ?? '';
      const secret = newSecret();
      // The cap is checked in the insert itself: concurrent creations cannot pass it together.
      let inserted: Webhook | undefined;
      try {
        inserted = await d1Of(ctx.db)
          .prepare(
            `INSERT INTO webhooks (owner_id, name, url, events, description, secret, created_on, last_modified, created_by)
           SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?9 WHERE (SELECT count(*) FROM webhooks WHERE owner_id = ?1) < ?8
           RETURNING *`,
          )
          .bind(ctx.ownerId, name, url, events, description, secret, nowIso(), MAX_ENDPOINTS, ctx.caller.id)
          .first<Webhook>()
          .then((r) => r ?? undefined);
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict(`webhook endpoint ${name} exists`);
        throw err;
      }
      if (!inserted) throw conflict(`at most ${MAX_ENDPOINTS} webhook endpoints: delete one first`);
      return jsonResponse(
        { ...endpointView({ ...inserted, enabled: true, creator: ctx.caller.username }), secret },
        { status: 201, headers: { Location: `${ctx.base}/${name}` } },
      );
    },
  });

  scope.get('/:name', {
    summary: 'Read a webhook endpoint (without its secret)',
    responses: { 200: { description: 'The endpoint', type: 'application/json', schema: endpoint } },
    handler: async (ctx) => jsonResponse(endpointView(await loadEndpoint(ctx))),
  });

  scope.post('/:name', {
    summary: 'Change a webhook endpoint (url, events, description, enabled)',
    json: () =>
      z
        .object({ ...writable(), enabled: z.boolean() })
        .partial()
        .strict()
        .meta({
          id: 'WebhookEndpointChange',
          description: 'What to change of a webhook endpoint: any of url, events, description, enabled',
          example: { events: ['run.failed', 'run.canceled'], enabled: true },
        }),
    responses: {
      200: { description: 'The endpoint as changed', type: 'application/json', schema: endpoint },
      400: { description: 'A bad url or event type' },
    },
    handler: async (ctx) => {
      const hook = await loadEndpoint(ctx);
      const set: Partial<Webhook> = { last_modified: nowIso() };
      if (ctx.body.url !== undefined) set.url = checkUrl(ctx, ctx.body.url);
      if (ctx.body.events !== undefined) set.events = checkEvents(ctx.body.events);
      if (ctx.body.description !== undefined) set.description = ctx.body.description;
      if (ctx.body.enabled !== undefined) {
        set.enabled = ctx.body.enabled;
        // Turned back on: a fresh start (no failure streak, no reason).
        if (ctx.body.enabled && !hook.enabled) Object.assign(set, { failing_since: null, disabled_reason: null });
      }
      const changed = await ctx.db.update(webhooks).set(set).where(eq(webhooks.id, hook.id)).returning().get();
      if (changed.enabled && !hook.enabled) ctx.exec.waitUntil(wake(ctx.env, hook.id));
      return jsonResponse(endpointView({ ...changed, creator: hook.creator }));
    },
  });

  scope.delete('/:name', {
    summary: 'Delete a webhook endpoint and its delivery records',
    responses: { 204: { description: 'Deleted' } },
    handler: async (ctx) => {
      const hook = await loadEndpoint(ctx);
      await ctx.db.delete(webhooks).where(eq(webhooks.id, hook.id));
      return noContent();
    },
  });

  scope.post('/:name/rotate', {
    summary: 'Replace the signing secret: for 24 hours deliveries carry signatures by the old and the new one',
    responses: {
      200: {
        description: 'The new secret',
        type: 'application/json',
        schema: () =>
          z.object({ secret: z.string() }).meta({
            id: 'WebhookSecret',
            description: 'A signing secret (Standard Webhooks: whsec_ and base64)',
            example: { secret: SECRET_EXAMPLE },
          }),
      },
    },
    handler: async (ctx) => {
      const hook = await loadEndpoint(ctx);
      const secret = newSecret();
      await ctx.db
        .update(webhooks)
        .set({
          secret,
          old_secret: hook.secret,
          old_secret_until: new Date(now() + ROTATION_OVERLAP_MS).toISOString(),
          last_modified: nowIso(),
        })
        .where(eq(webhooks.id, hook.id));
      return jsonResponse({ secret });
    },
  });

  scope.post('/:name/test', {
    summary: 'Send a ping event to the endpoint through the normal delivery path; answers the delivery queued',
    responses: queuedResponses,
    idempotent: true,
    handler: async (ctx) => {
      const hook = await loadEndpoint(ctx);
      if (!hook.enabled) throw conflict(`webhook endpoint ${hook.name} is disabled: enable it first`);
      const data = { webhook: hook.name, url: `${ctx.url.origin}${ctx.base}/${hook.name}` };
      const write = eventWrite(ctx.env, ctx.db, ctx.exec, {
        type: 'ping',
        ownerId: ctx.ownerId,
        webhookId: hook.id,
        data,
      });
      const [first, ...rest] = write.statements;
      const results = await ctx.db.batch([first!, ...rest]);
      write.recorded(results);
      const [delivery] = queued(results);
      // Disabled between the check and the batch: nothing was queued.
      if (!delivery) throw conflict(`webhook endpoint ${hook.name} is disabled: enable it first`);
      return jsonResponse({ status: 'queued', delivery: delivery.id }, { status: 202 });
    },
  });
}
