/** The delivery log of an endpoint: newest first, one record with its request and response, redelivery. */
import { and, desc, eq, lt } from 'drizzle-orm';
import * as z from 'zod';
import { nowIso } from '../core/clock';
import { badRequest, conflict, notFound } from '../core/errors';
import { jsonResponse } from '../core/http';
import { listingQuery } from '../core/listing';
import { BY_ID, nextLink, pageOf, pageRequest } from '../core/paging';
import type { Scope } from '../core/scope';
import { loadEndpoint } from './endpoint-routes';
import { queuedResponses } from './record';
import type { OwnerCtx } from './owner';
import { DELIVERY_STATUSES, webhookDeliveries, type Delivery, type Webhook } from './schema';
import { wake } from './wake';
import { once } from '../core/once';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

const DELIVERY_EXAMPLE = {
  id: 5120,
  event_id: 'msg_4f1a9c0e7b2d6a3f8e5c1b09',
  type: 'run.failed',
  attempt: 2,
  status: 'failed',
  response_code: 503,
  duration_ms: 412,
  next_attempt_on: '2025-10-02T09:35:00.000Z',
  created_on: '2025-10-02T09:30:00.118Z',
} as const;
const delivery = once(() =>
  z
    .object({
      id: z.number(),
      event_id: z.string(),
      type: z.string(),
      attempt: z.number(),
      status: z.enum(DELIVERY_STATUSES),
      response_code: z.number().nullable(),
      duration_ms: z.number().nullable(),
      next_attempt_on: z.string().nullable(),
      created_on: z.string(),
    })
    .meta({
      id: 'Delivery',
      description: 'One delivery of an event to a webhook endpoint, with its last attempt',
      example: DELIVERY_EXAMPLE,
    }),
);

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
    summary: 'List deliveries, newest first (?limit, ?status; older ones by ?cursor, the Link header)',
    query: () => listingQuery().extend({ status: z.string().optional() }),
    responses: {
      200: { description: 'The deliveries', type: 'application/json', schema: () => z.array(delivery()) },
      400: { description: 'A bad limit or status' },
    },
    handler: async (ctx) => {
      const hook = await loadEndpoint(ctx);
      const page = pageRequest(ctx.url, BY_ID, DEFAULT_LIMIT, MAX_LIMIT);
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
            page.after ? lt(webhookDeliveries.id, page.after[0] as number) : undefined,
          ),
        )
        .orderBy(desc(webhookDeliveries.id))
        .limit(page.limit + 1);
      const { items, next } = pageOf(rows, page, (d) => [d.id]);
      return jsonResponse(items.map(deliveryView), { headers: nextLink(ctx.url, next) });
    },
  });

  scope.get('/:name/deliveries/:id', {
    summary: 'Read a delivery: its request body and the first 4 KiB of the last response',
    responses: {
      200: {
        description: 'The delivery',
        type: 'application/json',
        schema: () =>
          delivery()
            .extend({ request_body: z.string(), response_body: z.string().nullable() })
            .meta({
              id: 'DeliveryDetail',
              description: 'A delivery with the body it sends and the start of the last answer',
              example: {
                ...DELIVERY_EXAMPLE,
                request_body:
                  '{"type":"run.failed","timestamp":"2025-10-02T09:30:00.118Z","data":{"job":"nightly","run":"20251002-093000-8f1c2a7b"}}',
                response_body: 'Service Unavailable',
              },
            }),
      },
    },
    handler: async (ctx) => {
      const { d } = await loadDelivery(ctx);
      return jsonResponse({ ...deliveryView(d), request_body: d.body, response_body: d.response_body });
    },
  });

  scope.post('/:name/deliveries/:id/redeliver', {
    summary: 'Attempt a delivery once more (same webhook-id, signed with the current secret); answers its id',
    responses: queuedResponses,
    idempotent: true,
    handler: async (ctx) => {
      const { hook, d } = await loadDelivery(ctx);
      if (!hook.enabled) throw conflict(`webhook endpoint ${hook.name} is disabled: enable it first`);
      await ctx.db
        .update(webhookDeliveries)
        .set({ status: 'pending', manual: 1, next_attempt_on: nowIso() })
        .where(eq(webhookDeliveries.id, d.id));
      ctx.exec.waitUntil(wake(ctx.env, d.webhook_id));
      return jsonResponse({ status: 'queued', delivery: d.id }, { status: 202 });
    },
  });
}
