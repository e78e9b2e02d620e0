/**
 * Forgetting runs when their job goes: each run's Durable Object storage (state, log, alarm), then its row. In
 * batches, so a job with a long history is forgotten over several calls (account deletion's steps).
 */
import { desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../core/context';
import { runStub } from './run-stub';
import { jobRuns } from './schema';

/** Forgets up to `limit` runs of the job, newest first (storage first, then rows: a cut-off call leaves them to the next). */
export async function forgetRuns(env: Env, db: Db, jobId: number, limit: number): Promise<number> {
  const rows = await db
    .select({ id: jobRuns.id, name: jobRuns.name })
    .from(jobRuns)
    .where(eq(jobRuns.job_id, jobId))
    .orderBy(desc(jobRuns.id))
    .limit(limit);
  if (!rows.length) return 0;
  await Promise.all(rows.map((r) => runStub(env, r.name).forget()));
  await db.delete(jobRuns).where(
    inArray(
      jobRuns.id,
      rows.map((r) => r.id),
    ),
  );
  return rows.length;
}
