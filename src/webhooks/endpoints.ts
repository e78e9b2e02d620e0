/**
 * Reading endpoints: as their owner sees them (never the secret, with the username of whoever
 * registered it), and an account's list.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../core/context';
import { users } from '../db/schema';
import { webhooks, type Webhook } from './schema';

/** An endpoint with the username of the account that registered it (null once that account is gone). */
export interface Endpoint extends Webhook {
  creator: string | null;
}

export function endpointView(hook: Endpoint) {
  return {
    name: hook.name,
    url: hook.url,
    events: JSON.parse(hook.events) as string[],
    description: hook.description,
    enabled: hook.enabled,
    disabled_reason: hook.disabled_reason,
    created_on: hook.created_on,
    created_by: hook.creator,
  };
}

/** Endpoints of `ownerId` (one by name, or all by name), each with its creator's username, in one query. */
function selectEndpoints(db: Db, ownerId: number, name?: string) {
  return db
    .select({ hook: webhooks, creator: users.username })
    .from(webhooks)
    .leftJoin(users, eq(users.id, webhooks.created_by))
    .where(
      name === undefined
        ? eq(webhooks.owner_id, ownerId)
        : and(eq(webhooks.owner_id, ownerId), eq(webhooks.name, name)),
    )
    .orderBy(asc(webhooks.name));
}

/** One endpoint of the account by name, or undefined. */
export async function endpointOf(db: Db, ownerId: number, name: string): Promise<Endpoint | undefined> {
  const row = await selectEndpoints(db, ownerId, name).get();
  return row && { ...row.hook, creator: row.creator };
}

/** The account's endpoints by name. */
export async function endpointsOf(db: Db, ownerId: number): Promise<ReturnType<typeof endpointView>[]> {
  const rows = await selectEndpoints(db, ownerId);
  return rows.map((r) => endpointView({ ...r.hook, creator: r.creator }));
}
