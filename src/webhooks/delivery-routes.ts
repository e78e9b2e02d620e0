/** The delivery log of an endpoint: newest first, one record with its request and response, redelivery. */
import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { nowIso } from '../core/clock';
import { badRequest, conflict, notFound } from '../core/errors';
import { jsonResponse } from '../core/http';
import type { Scope } from '../core/scope';
import { loadEndpoint } from './endpoint-routes';
import type { OwnerCtx } from './owner';
import { DELIVERY_STATUSES, webhookDeliveries, type Delivery, type Webhook } from './schema';
import { wake } from './wake';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

const delivery = z.object({
  id: z.number(),
  event_id: z.string(),
  type: z.string(),
  attempt: z.number(),
  status: z.enum(DELIVERY_STATUSES),
  response_code: z.number().nullable(),
  duration_ms: z.number().nullable(),
  next_attempt_on: z.string().nullable(),
  created_on: z.string(),
});

/** A delivery record as listed; `event_id` is its webhook-id header. */
function deliveryView(d: Delivery) {
  return {
    id: d.id,
    event_id: d.msg_id,
    type: d.type,
    attempt: d.attempt,
    status: d.status,
    response_code: d.response_code,
    duration_ms: d.duration_ms,
    next_attempt_on: d.next_attempt_on,
    created_on: d.created_on,
  };
}

async function loadDelivery(ctx: OwnerCtx): Promise<{ hook: Webhook; d: Delivery }> {
  const hook = await loadEndpoint(ctx);
  const id = Number(ctx.params.id);
  const row = Number.isSafeInteger(id)
    ? await ctx.db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.webhook_id, hook.id), eq(webhookDeliveries.id, id)))
        .get()
    : undefined;
  if (!row) throw notFound(`no delivery ${ctx.params.id} of webhook endpoint ${hook.name}`);
  return { hook, d: row };
}

export function deliveryRoutes(scope: Scope<OwnerCtx, object>): void {
  scope.get('/:name/deliveries', {
    summary: 'List deliveries, newest first (?limit, ?status)',
    query: z.object({ limit: z.string().optional(), status: z.string().optional() }),
    responses: {
      200: { description: 'The deliveries', type: 'application/json', schema: z.array(delivery) },
      400: { description: 'A bad limit or status' },
    },
    handler: async (ctx) => {
      const hook = await loadEndpoint(ctx);
      const limitText = ctx.url.searchParams.get('limit');
      const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
        throw badRequest(`limit: a whole number from 1 to ${MAX_LIMIT}`);
      const status = ctx.url.searchParams.get('status');
      if (status !== null && !(DELIVERY_STATUSES as readonly string[]).includes(status))
        throw badRequest(`status: one of ${DELIVERY_STATUSES.join(', ')}`);
      const rows = await ctx.db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.webhook_id, hook.id),
            status ? eq(webhookDeliveries.status, status as Delivery['status']) : undefined,
          ),
        )
        .orderBy(desc(webhookDeliveries.id))
        .limit(limit);
      return jsonResponse(rows.map(deliveryView));
    },
  });

  scope.get('/:name/deliveries/:id', {
    summary: 'Read a delivery: its request body and the first 4 KiB of the last response',
    responses: {
      200: {
        description: 'The delivery',
        type: 'application/json',
        schema: delivery.extend({ request_body: z.string(), response_body: z.string().nullable() }),
      },
    },
    handler: async (ctx) => {
      const { d } = await loadDelivery(ctx);
      return jsonResponse({ ...deliveryView(d), request_body: d.body, response_body: d.response_body });
    },
  });

  scope.post('/:name/deliveries/:id/redeliver', {
    summary: 'Attempt a delivery once more (same webhook-id, signed with the current secret)',
    responses: { 202: { description: 'Queued' }, 409: { description: 'The endpoint is disabled' } },
    idempotent: true,
    handler: async (ctx) => {
      const { hook, d } = await loadDelivery(ctx);
      if (!hook.enabled) throw conflict(`webhook endpoint ${hook.name} is disabled: enable it first`);
      await ctx.db
        .update(webhookDeliveries)
        .set({ status: 'pending', manual: 1, next_attempt_on: nowIso() })
        .where(eq(webhookDeliveries.id, d.id));
      ctx.exec.waitUntil(wake(ctx.env, d.webhook_id));
      return jsonResponse({ status: 'queued' }, { status: 202 });
    },
  });
}
