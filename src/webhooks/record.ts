/**
 * Recording an event (the recorder core/events.ts calls): the event row and one delivery
 * per endpoint that takes it, two statements that join the batch of the change itself or
 * run as a batch of their own (one round trip, one transaction), so an answered request has
 * its deliveries already; waking the endpoints' Durable Objects is left to the background
 * (the scheduled() tick wakes any a kill cut off).
 *
 * An endpoint takes an event when it is enabled, belongs to the event's owner (the
 * subject's owner: a user, or an organisation's account for its resources and groups),
 * subscribes to its type (`*`: every type; `ping` always) and, at that moment, its owner
 * still owns the subject (a subject gone by then only for its own `*.deleted` event): no
 * leak through events. A group's event (group_id) goes to a user group's owner only while
 * that owner is an active member of the group (one removed or gone hears nothing more of
 * it); an organisation's endpoints, owned by the organisation's account, take the events of
 * the organisation and its groups whoever created them. Nothing is written when no enabled
 * endpoint of the owner exists.
 */
import { is, SQL, sql } from 'drizzle-orm';
import * as z from 'zod';
import type { EventRecorder, PlatformEvent } from '../core/events';
import { webhookDeliveries, webhookEvents } from './schema';
import { wakeSoon } from './wake';
import { once } from '../core/once';

// Both inserts select every column of their table in the schema's order (drizzle's insert-select names them all).
export const recordEvent: EventRecorder = {
  statements(db, event, at) {
    const createdOn = new Date(at).toISOString();
    const body = bodyOf(event, createdOn);
    const resourceId = event.resourceId ?? null;
    const groupId = event.groupId ?? null;
    return [
      // The event, when its owner (read from the subject's row unless given) has an enabled endpoint.
      db.insert(webhookEvents).select(sql`
        SELECT NULL, o.owner, ${event.type}, ${resourceId}, ${groupId}, ${body}, ${event.webhookId ?? null}, ${createdOn}
        FROM (SELECT coalesce(${event.ownerId ?? null},
          (SELECT owner_id FROM resources WHERE id = ${resourceId}),
          (SELECT coalesce(g.owner_id, p.owner_id) FROM groups g LEFT JOIN groups p ON p.id = g.parent_id
            WHERE g.id = ${groupId})) AS owner) o
        WHERE EXISTS (SELECT 1 FROM webhooks WHERE owner_id = o.owner AND enabled = 1)${event.when ? sql` AND (${event.when})` : sql``}`),
      // Its deliveries, one per endpoint that takes it. The event is the row the statement just before inserted
      // (last_insert_rowid, same transaction); changes() = 1, its time and its type make sure one was inserted.
      db
        .insert(webhookDeliveries)
        .select(
          sql`
        SELECT NULL, w.id, e.id, 'msg_' || lower(hex(randomblob(12))), e.type, e.body, 0, 'pending', 0, NULL, NULL, NULL,
          e.created_on, e.created_on
        FROM webhook_events e JOIN webhooks w ON w.owner_id = e.owner_id AND w.enabled = 1
        WHERE changes() = 1 AND e.id = last_insert_rowid() AND e.created_on = ${createdOn} AND e.type = ${event.type}
          AND (e.webhook_id IS NULL OR w.id = e.webhook_id)
          AND (e.type = 'ping' OR EXISTS (SELECT 1 FROM json_each(w.events) WHERE value IN ('*', e.type)))
          AND (e.resource_id IS NULL
            OR EXISTS (SELECT 1 FROM resources r WHERE r.id = e.resource_id AND r.owner_id = w.owner_id)
            OR (e.type LIKE '%.deleted' AND NOT EXISTS (SELECT 1 FROM resources r WHERE r.id = e.resource_id)))
          AND (e.group_id IS NULL OR EXISTS (SELECT 1 FROM groups g LEFT JOIN groups p ON p.id = g.parent_id
            WHERE g.id = e.group_id AND w.owner_id IN (g.owner_id, p.owner_id)
              AND (g.kind <> 'user_group' OR EXISTS (SELECT 1 FROM members m
                WHERE m.group_id = g.id AND m.user_id = w.owner_id AND m.state = 'active'))))`,
        )
        .returning({ id: webhookDeliveries.id, webhook_id: webhookDeliveries.webhook_id }),
    ];
  },

  after(env, results) {
    const endpoints = queued(results).map((d) => d.webhook_id);
    if (endpoints.length === 0) return null;
    return async () => void (await Promise.all(endpoints.map((id) => wakeSoon(env, id))));
  },
};

/**
 * The body as SQL: the JSON of the event, its SQL data values (read in the batch) set in
 * their places (a JSON null until then, so the keys keep their order).
 */
function bodyOf(event: PlatformEvent, createdOn: string): SQL {
  const computed = Object.entries(event.data).filter((e): e is [string, SQL] => is(e[1], SQL));
  const data = Object.fromEntries(Object.entries(event.data).map(([k, v]) => [k, is(v, SQL) ? null : v]));
  const json = JSON.stringify({ type: event.type, timestamp: createdOn, data });
  if (!computed.length) return sql`${json}`;
  return sql`json_set(${json}, ${sql.join(
    computed.map(([k, v]) => sql`${`$.data.${k}`}, (${v})`),
    sql`, `,
  )})`;
}

/** The deliveries an event's statements queued, from their results (the second statement's rows). */
export const queued = (results: unknown[]) => (results[1] ?? []) as { id: number; webhook_id: number }[];

/** What test and redeliver answer: the delivery they queued (202), or 409 for a disabled endpoint. */
const queuedBody = once(() =>
  z
    .object({ status: z.literal('queued'), delivery: z.number().int().describe('The delivery id (deliveries/<id>)') })
    .meta({ id: 'QueuedDelivery', example: { status: 'queued', delivery: 1207 } }),
);
export const queuedResponses = {
  202: { description: 'Queued: {status, delivery} (the delivery id)', type: 'application/json', schema: queuedBody },
  409: { description: 'The endpoint is disabled' },
};
