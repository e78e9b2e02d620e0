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
import { webhookDeliveries, webhookEvents } from './schema';
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
    await fanOut(env, {
      id: e.id,
      type: e.type as EventType,
      ownerId: e.owner_id,
      resourceId: e.resource_id,
      groupId: e.group_id,
      data,
      body: e.body,
      createdOn: e.created_on,
    });
  }
  const due = await db
    .selectDistinct({ id: webhookDeliveries.webhook_id })
    .from(webhookDeliveries)
    .where(lte(webhookDeliveries.next_attempt_on, nowIso()))
    .limit(BATCH);
  await Promise.all(due.map((d) => wake(env, d.id)));
}
