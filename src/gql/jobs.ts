/**
 * The last run of a job. Runs are never public: the run is shown only to callers whose
 * access to the job comes from ownership or a group share (src/core/perms.ts), exactly
 * as REST hides runs/ from a public-only reader.
 */
import DataLoader from 'dataloader';
import type { Db } from '../core/context';
import { accessFromGrants, OWNER_ACCESS, type Access } from '../core/perms';
import type { User } from '../db/schema';
import { lastRuns, type LastRun } from '../jobs/runs';
import type { Item } from './items';
import type { Loaders } from './loaders';

/** The caller's access to a listed item, from the share rows its listing fetched. */
export async function accessOf(loaders: Loaders, caller: User | null, item: Item): Promise<Access> {
  if (caller?.id === item.row.owner_id) return OWNER_ACCESS;
  const roles = await loaders.rolesOfCaller();
  return accessFromGrants(
    item.row.kind,
    item.shares.map((s) => ({ group_id: s.group_id, perms: s.perms, role: s.group_id === null ? null : (roles.get(s.group_id) ?? null) })),
  );
}

export function lastRunLoader(db: Db): DataLoader<number, LastRun | null> {
  return new DataLoader(async (ids) => {
    const runs = await lastRuns(db, [...ids]);
    return ids.map((id) => runs.get(id) ?? null);
  });
}

export async function lastRunOf(c: { caller: User | null; loaders: Loaders }, item: Item): Promise<LastRun | null> {
  const access = await accessOf(c.loaders, c.caller, item);
  if (!access.r || access.viaPublicOnly) return null;
  return c.loaders.lastRun.load(item.row.id);
}
