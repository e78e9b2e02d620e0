/**
 * The runs of a job (its last run, its run statistics). Runs are never public: they are
 * shown only to callers whose access to the job comes from ownership or a group share
 * (src/core/perms.ts), exactly as REST hides runs/ from a public-only reader.
 */
import { accessFromGrants, OWNER_ACCESS, type Access } from '../core/perms';
import type { User } from '../db/schema';
import type { LastRun } from '../jobs/run/reads';
import type { Item } from './item-lists';
import type { JobStats } from './job-stats';
import type { Loaders } from './loaders';

/** What the run fields read of a request: who asks, and its loaders. */
interface RunReader {
  caller: User | null;
  loaders: Loaders;
}

/** The caller's access to a listed item, from the share rows its listing fetched. */
async function accessOf(loaders: Loaders, caller: User | null, item: Item): Promise<Access> {
  if (caller?.id === item.row.owner_id) return OWNER_ACCESS;
  const roles = await loaders.rolesOfCaller();
  return accessFromGrants(
    item.row.kind,
    item.shares
      .filter((s) => s.live)
      .map((s) => ({
        group_id: s.group_id,
        perms: s.perms,
        role: s.group_id === null ? null : (roles.get(s.group_id) ?? null),
      })),
  );
}

async function runsShown(c: RunReader, item: Item): Promise<boolean> {
  const access = await accessOf(c.loaders, c.caller, item);
  return access.r && !access.viaPublicOnly;
}

export async function lastRunOf(c: RunReader, item: Item): Promise<LastRun | null> {
  if (!(await runsShown(c, item))) return null;
  return c.loaders.lastRun.load(item.row.id);
}

/** Run statistics, shown where `last_run` is. */
export async function runStats(item: Item, c: RunReader): Promise<{ shown: boolean; stats: JobStats | null }> {
  if (!(await runsShown(c, item))) return { shown: false, stats: null };
  return { shown: true, stats: await c.loaders.jobStats.load(item.row.id) };
}
