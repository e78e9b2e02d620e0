/**
 * The event of a top-level run's end (core/events.ts): run.succeeded, run.failed or
 * run.canceled, about the job (a resource: its owner's endpoints receive it, as long as
 * they may read the job). Thin: names and times, never the output. Recorded in the batch
 * of the run's final row (run-writes.recordEnd): the owner's and the job's names are read
 * there, so a job deleted during its run (its row gone) records nothing.
 */
import { sql } from 'drizzle-orm';
import type { PlatformEvent } from '../../core/events';
import type { RunHead, RunOutcome } from './machine';

const TYPE = { success: 'run.succeeded', failed: 'run.failed', canceled: 'run.canceled' } as const;

export function runEndEvent(env: Env, head: RunHead, status: RunOutcome['status'], finished: string): PlatformEvent {
  const owner = sql`(SELECT u.username FROM resources r JOIN users u ON u.id = r.owner_id WHERE r.id = ${head.jobId})`;
  const job = sql`(SELECT name FROM resources WHERE id = ${head.jobId})`;
  return {
    type: TYPE[status],
    resourceId: head.jobId,
    data: {
      owner,
      job,
      run: head.name,
      status,
      started_on: head.started,
      finished_on: finished,
      trigger: head.trigger ?? null,
      url: sql`${`${env.PUBLIC_ORIGIN}/v1/users/`} || ${owner} || '/code/jobs/' || ${job} || ${`/runs/${head.name}`}`,
    },
  };
}
