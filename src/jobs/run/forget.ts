/**
 * Forgetting runs when their job goes: each run's Durable Object storage (state, log, alarm), then its row. In
 * batches, so a job with a long history is forgotten over several calls (account deletion's steps); a job's DELETE
 * forgets the storage of its newest finished runs at once (forgetFinishedRuns).
 */
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../core/context';
import { runStub } from './stub';
import { FINAL_STATUSES, jobRuns, type RunRow } from '../schema';

/** Durable Object calls made at once. */
const PARALLEL = 25;

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

/**
 * A job's DELETE: forgets the Durable Object storage of its newest `limit` finished runs (their rows go with the job).
 * A run still going is left alone: it ends as a run of a deleted job does and keeps its 30-day retention alarm, as do
 * runs beyond `limit`. Answers the runs forgotten.
 */
export async function forgetFinishedRuns(env: Env, db: Db, jobId: number, limit: number): Promise<number> {
  const rows = await db
    .select({ name: jobRuns.name })
    .from(jobRuns)
    .where(and(eq(jobRuns.job_id, jobId), inArray(jobRuns.status, [...FINAL_STATUSES] as RunRow['status'][])))
    .orderBy(desc(jobRuns.id))
    .limit(limit);
  for (let i = 0; i < rows.length; i += PARALLEL)
    await Promise.all(rows.slice(i, i + PARALLEL).map((r) => runStub(env, r.name).forget()));
  return rows.length;
}
