/**
 * The scheduled() tick's part (and the recovery after a restart): wake every endpoint with
 * a delivery due. Deliveries are written with their event (src/webhooks/record.ts); this
 * catches a wake a kill cut off, an alarm lost, or platform time moved by a test.
 */
import { and, eq, lte } from 'drizzle-orm';
import { nowIso } from '../core/clock';
import { dbFor } from '../core/context';
import { webhookDeliveries, webhooks } from './schema';
import { wake } from './wake';

const BATCH = 200;

export async function sweepWebhooks(env: Env): Promise<void> {
  // Disabled endpoints keep their due deliveries until turned back on (which wakes them).
  const due = await dbFor(env)
    .selectDistinct({ id: webhookDeliveries.webhook_id })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhook_id))
    .where(and(lte(webhookDeliveries.next_attempt_on, nowIso()), eq(webhooks.enabled, true)))
    .limit(BATCH);
  await Promise.all(due.map((d) => wake(env, d.id)));
}
