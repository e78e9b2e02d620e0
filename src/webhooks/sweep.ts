/**
 * The scheduled() tick's part (and the recovery after a restart): fan out the events whose
 * fan-out a kill cut off, and wake every endpoint with a delivery due (an alarm lost, or
 * platform time moved by a test).
 */
import { and, eq, lt, lte } from 'drizzle-orm';
import { now, nowIso } from '../core/clock';
import { dbFor } from '../core/context';
import type { EventType } from '../core/events';
import { fanOut } from './fanout';
import { webhookDeliveries, webhookEvents, webhooks } from './schema';
import { wake } from './wake';

/** An event younger than this may still be fanned out by the request that emitted it. */
const FANOUT_GRACE_MS = 5_000;
const BATCH = 200;

export async function sweepWebhooks(env: Env): Promise<void> {
  const db = dbFor(env);
  const stuck = await db
    .select()
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.fanned_out, 0),
        lt(webhookEvents.created_on, new Date(now() - FANOUT_GRACE_MS).toISOString()),
      ),
    )
    .limit(BATCH);
  for (const e of stuck) {
    const data = (JSON.parse(e.body) as { data: Record<string, unknown> }).data;
    // One event that cannot be fanned out does not hold back the others (it is tried again next tick).
    await fanOut(env, {
      id: e.id,
      type: e.type as EventType,
      ownerId: e.owner_id,
      resourceId: e.resource_id,
      groupId: e.group_id,
      data,
      body: e.body,
      createdOn: e.created_on,
    }).catch((err) => console.error('webhooks fan-out', e.id, err));
  }
  // Disabled endpoints keep their due deliveries until turned back on (which wakes them).
  const due = await db
    .selectDistinct({ id: webhookDeliveries.webhook_id })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhook_id))
    .where(and(lte(webhookDeliveries.next_attempt_on, nowIso()), eq(webhooks.enabled, true)))
    .limit(BATCH);
  await Promise.all(due.map((d) => wake(env, d.id)));
}
