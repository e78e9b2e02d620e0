/**
 * Writing the D1 row of a run (job_runs: started or rejected, canceling, ended; its object
 * is the only writer) and the job's failure streak that pauses it. The rows are read by
 * run/reads.ts; the log and a small output live in the run's object.
 */
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../core/context';
import { writeEntry } from '../../core/entries';
import { batchWithEvent, type Background } from '../../core/events';
import { newShortname } from '../../core/names';
import { resources } from '../../db/schema';
import type { Bundle } from '../files';
import { runEndEvent } from './events';
import type { RunHead, RunOutcome, RunRecordSpec, RunSpec } from './machine';
import { durationOf } from './reads';
import { jobMeta, jobRuns, jobSchedules } from '../schema';

/** Consecutive failed runs after which a job is paused. */
const AUTO_PAUSE_AFTER = 5;

type Log = (message: string, severity: string) => void;

/** The row of a run as it starts. */
function newRunRow(spec: RunRecordSpec, status: 'processing' | 'rejected', started: string) {
  return {
    name: spec.name,
    shortname: newShortname(),
    job_id: spec.jobId,
    top: spec.parentId === null ? 1 : 0,
    parent_id: spec.parentId,
    root_job_id: spec.rootJobId,
    parent_step: spec.parentStep,
    status,
    trigger: spec.trigger,
    source: spec.source,
    created_by: spec.createdBy,
    started_on: started,
  };
}

/** Records a run that never starts (it ends as it begins). */
export async function insertRejected(db: Db, spec: RunRecordSpec, at: string): Promise<void> {
  await db.insert(jobRuns).values({
    ...newRunRow({ ...spec, parentId: null, parentStep: null }, 'rejected', at),
    completed_on: at,
    duration: 0,
  });
}

/** Records a started run; answers its id. */
export async function insertStarted(db: Db, spec: RunSpec, started: string): Promise<number> {
  const row = await db
    .insert(jobRuns)
    .values(newRunRow(spec, 'processing', started))
    .returning({ id: jobRuns.id })
    .get();
  return row.id;
}

/**
 * The row says canceling (a row that exists: before it does, execute() marks it once it does).
 * A D1 error is logged, not thrown: the cancel has taken effect and the run's end rewrites the row.
 */
export async function markCanceling(db: Db, runId: number, log: Log): Promise<void> {
  try {
    if (runId)
      await db
        .update(jobRuns)
        .set({ status: 'canceling' })
        .where(and(eq(jobRuns.id, runId), eq(jobRuns.status, 'processing')));
  } catch (err) {
    log(`the run record could not be marked canceling: ${(err as Error).message}`, 'warning');
  }
}

/**
 * The row of an ended run (a top-level one's with its run.* event, delivered in `bg`), and
 * the failure streak of its job (top-level runs only). Never throws.
 */
export async function recordEnd(
  env: Env,
  db: Db,
  bg: Background,
  head: RunHead,
  status: RunOutcome['status'],
  out: Bundle | null,
  completed: string,
  log: Log,
): Promise<void> {
  try {
    const row = db
      .update(jobRuns)
      .set({
        status,
        completed_on: completed,
        duration: durationOf(head.started, completed),
        output_name: out?.filename ?? null,
        output_type: out?.type ?? null,
        output_size: out?.data.byteLength ?? null,
      })
      .where(eq(jobRuns.name, head.name));
    if (!head.top) return void (await row);
    // A top-level run's row and its run.* event (run/events.ts) in one batch. A successful one
    // ends any failure streak there too (conditional, so the common case writes nothing more).
    const event = runEndEvent(env, head, status, completed);
    if (status === 'success')
      await batchWithEvent(
        env,
        db,
        bg,
        [
          row,
          db
            .update(jobMeta)
            .set({ failures: 0 })
            .where(and(eq(jobMeta.job_id, head.jobId), gt(jobMeta.failures, 0))),
        ],
        event,
      );
    else
      await Promise.all([batchWithEvent(env, db, bg, [row], event), countFailures(env, db, head.jobId, status, log)]);
  } catch (err) {
    log(`the run record could not be updated: ${(err as Error).message}`, 'error');
  }
}

/**
 * Auto-pause: the fifth consecutive failed run sets config/enabled to false. A job
 * deleted during its run has no row left to count on: that is not an error of the run.
 */
async function countFailures(env: Env, db: Db, jobId: number, status: 'failed' | 'canceled', log: Log): Promise<void> {
  if (status === 'canceled') return; // not a failure, and not a success either (success resets in recordEnd)
  try {
    const row = await db
      .insert(jobMeta)
      .values({ job_id: jobId, failures: 1 })
      .onConflictDoUpdate({ target: jobMeta.job_id, set: { failures: sql`${jobMeta.failures} + 1` } })
      .returning({ failures: jobMeta.failures })
      .get();
    if (row.failures < AUTO_PAUSE_AFTER) return;
    const job = await db.select().from(resources).where(eq(resources.id, jobId)).get();
    if (!job) return;
    await writeEntry(env, db, job, 'config/enabled', 'false', null);
    await db.batch([
      db.delete(jobSchedules).where(eq(jobSchedules.job_id, jobId)),
      db.update(jobMeta).set({ failures: 0 }).where(eq(jobMeta.job_id, jobId)),
    ]);
    log(
      `job paused: ${AUTO_PAUSE_AFTER} consecutive failed runs; config/enabled is now false (scheduled runs stop; manual runs still work)`,
      'warning',
    );
  } catch (err) {
    const gone = !(await db
      .select({ id: resources.id })
      .from(resources)
      .where(eq(resources.id, jobId))
      .get()
      .catch(() => null));
    log(
      gone
        ? 'the job was deleted during the run: nothing to count toward auto-pause'
        : `auto-pause bookkeeping failed: ${(err as Error).message}`,
      'warning',
    );
  }
}
