/**
 * The last run of jobs, for many jobs in one statement (src/jobs/run/reads.ts `lastRuns`). Who
 * may see it is src/gql/jobs.ts's rule.
 */
import DataLoader from 'dataloader';
import type { Db } from '../core/context';
import { lastRuns, type LastRun } from '../jobs/run/reads';

export function lastRunLoader(db: Db): DataLoader<number, LastRun | null> {
  return new DataLoader(async (ids) => {
    const runs = await lastRuns(db, [...ids]);
    return ids.map((id) => runs.get(id) ?? null);
  });
}
