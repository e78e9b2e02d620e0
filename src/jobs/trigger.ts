/** Starting runs: the one entry point shared by POST data, the scheduler and inbound mail. */
import { now } from '../core/clock';
import type { Resource } from '../db/schema';
import { withAuthority } from './chain-access';
import type { RunFile } from './files';
import type { RunOutcome } from './run/machine';
import { requestId, runName } from './run/name';
import { runStub } from './run/stub';
import type { Trigger } from './schema';

export interface TriggerSpec {
  job: Resource;
  trigger: Trigger;
  source: string;
  createdBy: string;
  /** The user who triggers (the owner for scheduled runs). */
  callerId: number;
  input: RunFile[];
  req?: Request;
}

/** The record of a run a trigger starts: the root of its tree, started by `t.trigger`. */
const rootRun = (name: string, t: Omit<TriggerSpec, 'input' | 'callerId'>) => ({
  name,
  jobId: t.job.id,
  ownerId: t.job.owner_id,
  rootJobId: t.job.id,
  parentId: null,
  parentStep: null,
  trigger: t.trigger,
  source: t.source,
  createdBy: t.createdBy,
});

/** The spec of a top-level run. */
const topRun = (name: string, t: TriggerSpec) => ({
  ...rootRun(name, t),
  // Who triggers and the job's owner: a chain acts with the rights both of them have.
  authority: withAuthority([t.callerId], t.job.owner_id),
  rootName: name,
  input: t.input,
  depth: 0,
});

/**
 * Runs the job to its end (the run's Durable Object executes it) and answers the outcome.
 * A broken call to the object (reset mid-run) is a failed outcome: its watchdog finishes the record.
 */
export async function startRun(env: Env, t: TriggerSpec): Promise<RunOutcome> {
  const name = runName(now(), requestId(t.req));
  try {
    return await runStub(env, name).execute(topRun(name, t));
  } catch (err) {
    const status = await runStub(env, name)
      .recover()
      .catch(() => null);
    // A run whose cancel was accepted before the break ends canceled (the object finished it
    // so, or, still executing, is finishing it: canceling ends canceled unless it succeeds).
    if (status === 'canceled' || status === 'canceling')
      return { name, status: 'canceled', files: [], bundle: null, message: 'canceled' };
    return { name, status: 'failed', files: [], bundle: null, message: `the run broke off: ${(err as Error).message}` };
  }
}

/**
 * Starts a run without waiting for it (`Prefer: respond-async`): answers its name once the
 * run's row exists, or the outcome of a run that ended before (failed to be recorded).
 */
export async function launchRun(env: Env, t: TriggerSpec): Promise<{ name: string; ended: RunOutcome | null }> {
  const name = runName(now(), requestId(t.req));
  const ended = await runStub(env, name).start(topRun(name, t));
  return { name, ended };
}

/** Records a run that the permission check blocked (it never starts); answers its name. */
export async function rejectRun(env: Env, t: Omit<TriggerSpec, 'input' | 'callerId'>, reason: string): Promise<string> {
  const name = runName(now(), requestId(t.req));
  await runStub(env, name).reject(rootRun(name, t), reason);
  return name;
}
