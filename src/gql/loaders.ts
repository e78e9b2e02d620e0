/**
 * Batched reads. A listing reads its page with the entries, sharing rows and tags of each
 * item in one statement (src/gql/items.ts); fields that need more (the caller's roles,
 * group options, a job's last run) ask a per-request DataLoader, which collects the keys
 * of one execution tick and answers them with one query. Ids travel as one JSON parameter
 * (`json_each`): D1 binds at most 100 per statement.
 */
import DataLoader from 'dataloader';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../core/context';
import { members, type Group, type Role, type User } from '../db/schema';
import { optionsOf } from './groups';
import { lastRunLoader } from './jobs';

export interface ShareRow {
  resource_id: number;
  entry: string;
  group_id: number | null;
  perms: string;
  ref: string | null;
  slug: string | null;
  kind: Group['kind'] | null;
}

/** One of the caller's tags on a resource. */
export interface TagRow {
  id: number;
  tag: string;
}

export function makeLoaders(db: Db, caller: User | null) {
  // The caller's active roles by group id (one query, only when a field needs them).
  let roles: Promise<Map<number, Role>> | undefined;
  const rolesOfCaller = (): Promise<Map<number, Role>> =>
    (roles ??= caller
      ? db
          .select({ group_id: members.group_id, role: members.role })
          .from(members)
          .where(and(eq(members.user_id, caller.id), eq(members.state, 'active')))
          .then((rows) => new Map(rows.map((r) => [r.group_id, r.role])))
      : Promise.resolve(new Map()));

  const options = new DataLoader((ids: readonly number[]) => optionsOf(db, ids));

  return { rolesOfCaller, options, lastRun: lastRunLoader(db) };
}

export type Loaders = ReturnType<typeof makeLoaders>;
