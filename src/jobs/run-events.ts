/**
 * The event of a top-level run's end (core/events.ts): run.succeeded, run.failed or
 * run.canceled, about the job (a resource: its owner's endpoints receive it, as long as
 * they may read the job). Thin: names and times, never the output.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../core/context';
import { emit, type Background } from '../core/events';
import { resources, users } from '../db/schema';
import type { RunHead, RunOutcome } from './run-machine';

const TYPE = { success: 'run.succeeded', failed: 'run.failed', canceled: 'run.canceled' } as const;

export async function emitRunEnd(
  env: Env,
  db: Db,
  bg: Background,
  head: RunHead,
  status: RunOutcome['status'],
  finished: string,
): Promise<void> {
  const job = await db
    .select({ owner_id: resources.owner_id, name: resources.name, owner: users.username })
    .from(resources)
    .innerJoin(users, eq(users.id, resources.owner_id))
    .where(eq(resources.id, head.jobId))
    .get()
    .catch(() => undefined);
  if (!job) return; // the job was deleted during its run
  await emit(env, bg, {
    type: TYPE[status],
    ownerId: job.owner_id,
    resourceId: head.jobId,
    data: {
      owner: job.owner,
      job: job.name,
      run: head.name,
      status,
      started_on: head.started,
      finished_on: finished,
      trigger: head.trigger ?? null,
      url: `${env.PUBLIC_ORIGIN}/v1/users/${job.owner}/code/jobs/${job.name}/runs/${head.name}`,
    },
  });
}
