/** Starting runs: the one entry point shared by POST data, the scheduler and inbound mail. */
import { now } from '../core/clock';
import type { Resource } from '../db/schema';
import type { RunObject, RunOutcome } from '../../durable/run';
import type { RunFile } from './files';
import { requestId, runName } from './runs';
import type { Trigger } from './schema';

export function runStub(env: Env, name: string): DurableObjectStub<RunObject> {
  return env.RUNS.get(env.RUNS.idFromName(name)) as DurableObjectStub<RunObject>;
}

export interface TriggerSpec {
  job: Resource;
  trigger: Trigger;
  source: string;
  createdBy: string;
  input: RunFile[];
  req?: Request;
}

/** Runs the job to its end (the run's Durable Object executes it) and answers the outcome. */
export async function startRun(env: Env, t: TriggerSpec): Promise<RunOutcome> {
  const name = runName(now(), requestId(t.req));
  const out = await runStub(env, name).execute({
    name,
    jobId: t.job.id,
    ownerId: t.job.owner_id,
    rootJobId: t.job.id,
    parentId: null,
    parentStep: null,
    trigger: t.trigger,
    source: t.source,
    createdBy: t.createdBy,
    input: t.input,
    depth: 0,
  });
  return out as unknown as RunOutcome;
}

/** Records a run that the permission check blocked (it never starts); answers its name. */
export async function rejectRun(env: Env, t: Omit<TriggerSpec, 'input'>, reason: string): Promise<string> {
  const name = runName(now(), requestId(t.req));
  await runStub(env, name).reject(
    { name, jobId: t.job.id, ownerId: t.job.owner_id, rootJobId: t.job.id, parentId: null, parentStep: null, trigger: t.trigger, source: t.source, createdBy: t.createdBy },
    reason,
  );
  return name;
}
