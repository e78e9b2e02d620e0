/**
 * From a recorded event to deliveries: the enabled endpoints of the event's owner that
 * subscribe to its type and whose owner may read its subject each get a delivery record
 * (one batch, which also marks the event fanned out), then their Durable Objects are woken.
 * Runs after the triggering request answered (waitUntil); the scheduled() tick redoes a
 * fan-out a kill cut off (sweepWebhooks).
 */
import { and, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { nowIso } from '../core/clock';
import type { Db } from '../core/context';
import { dbFor } from '../core/context';
import type { RecordedEvent } from '../core/events';
import { mayRead } from './access';
import { wake } from './wake';
import { webhookDeliveries, webhookEvents, webhooks, type Webhook } from './schema';
import { newMessageId } from './sign';

/** Whether an endpoint's event list takes `type` (`*`: every type; `ping` always). */
export function subscribes(events: string[], type: string): boolean {
  return type === 'ping' || events.includes('*') || events.includes(type);
}

const ROWS_PER_INSERT = 7;

export async function fanOut(env: Env, event: RecordedEvent, only?: Webhook): Promise<void> {
  const db = dbFor(env);
  const candidates = only
    ? [only]
    : await db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.owner_id, event.ownerId), eq(webhooks.enabled, true)));
  const targets: Webhook[] = [];
  for (const hook of candidates) {
    if (!subscribes(JSON.parse(hook.events) as string[], event.type)) continue;
    if (await mayRead(db, hook.owner_id, event)) targets.push(hook);
  }
  await recordDeliveries(db, event, targets);
  await Promise.all(targets.map((hook) => wake(env, hook.id)));
}

async function recordDeliveries(db: Db, event: RecordedEvent, targets: Webhook[]): Promise<void> {
  const at = nowIso();
  const mark = db.update(webhookEvents).set({ fanned_out: 1 }).where(eq(webhookEvents.id, event.id));
  const rows = targets.map((hook) => ({
    webhook_id: hook.id,
    event_id: event.id,
    msg_id: newMessageId(),
    type: event.type,
    body: event.body,
    next_attempt_on: at,
    created_on: at,
  }));
  // D1 binds at most 100 parameters per statement, and drizzle binds every column but the id (14 per row).
  const inserts: BatchItem<'sqlite'>[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
    inserts.push(
      db
        .insert(webhookDeliveries)
        .values(rows.slice(i, i + ROWS_PER_INSERT))
        .onConflictDoNothing(),
    );
  await db.batch([mark, ...inserts]);
}
