/** Reading endpoints: as their owner sees them (never the secret), and an account's list. */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../core/context';
import { webhooks, type Webhook } from './schema';

export function endpointView(hook: Webhook) {
  return {
    name: hook.name,
    url: hook.url,
    events: JSON.parse(hook.events) as string[],
    description: hook.description,
    enabled: hook.enabled,
    disabled_reason: hook.disabled_reason,
    created_on: hook.created_on,
  };
}

/** The account's endpoints by name. */
export async function endpointsOf(db: Db, ownerId: number): Promise<ReturnType<typeof endpointView>[]> {
  const rows = await db.select().from(webhooks).where(eq(webhooks.owner_id, ownerId)).orderBy(asc(webhooks.name));
  return rows.map(endpointView);
}
