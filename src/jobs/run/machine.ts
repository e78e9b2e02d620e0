/**
 * The run's state machine (its Durable Object, durable/run.ts, holds the state):
 *
 *   (none) → processing → success | failed
 *   processing → canceling (cancel: 202) → canceled (anything but a success: see afterCancel)
 *                                        → success (the run finished first)
 *   processing → failed (decided before any cancel; a later cancel answers 409)
 *   canceling → failed (only a child's failure decided before the cancel, still on its way: see afterCancel)
 *   canceling + cancel → canceling (200);  success | failed | canceled + cancel → 409
 */
import type { Bundle, RunFile } from '../files';
import { FINAL_STATUSES, type RunStatus, type Trigger } from '../schema';

/**
 * While a run executes, its alarm is a watchdog that fires this often: a live execution
 * re-arms it; a run found unfinished without one (the object was reset mid-run, or the
 * whole server was killed: local alarms outlive a restart) fails. Short, so a cut-off run
 * ends failed within seconds even when nothing else touches its object; the step's own
 * wall limit (STEP_WALL_MS) is enforced by the live execution, not by this alarm.
 */
export const WATCHDOG_MS = 15_000;
export const INTERRUPTED = 'the run was interrupted (its Durable Object was reset) before it finished';

export interface RunSpec {
  name: string;
  jobId: number;
  ownerId: number;
  rootJobId: number;
  parentId: number | null;
  parentStep: string | null;
  trigger: Trigger;
  source: string;
  createdBy: string;
  /**
   * The users whose rights the run acts with: who triggered the top-level run, then the
   * owner of every job from the top-level one down to this run's. A job step of this run's
   * chain needs execute access of each (chain-access.ts); a child run adds its job's owner.
   */
  authority: number[];
  /** The top-level run of the tree (itself for a top-level run): its object counts the tree's child runs. */
  rootName: string;
  input: RunFile[];
  depth: number;
}

/** What a run's D1 row is made of (a rejected run has only this). */
export type RunRecordSpec = Omit<RunSpec, 'input' | 'depth' | 'authority' | 'rootName'>;

/** What finishing a run needs; kept in storage so a reset object can still finish it. */
export interface RunHead {
  name: string;
  jobId: number;
  top: boolean;
  started: string;
  /** How the run was started (for its end's event; unknown to a run resumed from storage). */
  trigger?: Trigger;
}

export interface RunOutcome {
  name: string;
  status: 'success' | 'failed' | 'canceled';
  /** Files of the output (children hand them to the next step). */
  files: RunFile[];
  /** What the caller downloads. */
  bundle: Bundle | null;
  message: string;
  /** A failed run: when (Date.now()) its failure was decided, for its parent's cancel rule (see afterCancel). */
  decidedAt?: number;
}

export type CancelAnswer = { code: 202 | 200; status: 'canceling' } | { code: 409; status: string } | { code: 404 };

/** decidedAt: a child run's failure, decided in that run at that time (see afterCancel). */
export type StepResult =
  | { kind: 'ok'; files: RunFile[] }
  | { kind: 'failed'; message: string; decidedAt?: number }
  | { kind: 'aborted'; message: string };

/** A run that has not started or has ended: no live tail, no cancel. */
export const isFinal = (status: RunStatus | null): boolean => status === null || FINAL_STATUSES.has(status);

/** A running run that is not being canceled has no answer here: the cancel is accepted (202). */
export function cancelRefusal(status: RunStatus | null): CancelAnswer | null {
  if (status === null) return { code: 404 };
  if (FINAL_STATUSES.has(status)) return { code: 409, status };
  if (status === 'canceling') return { code: 200, status: 'canceling' };
  return null;
}

/**
 * Once a cancel has been accepted (202, or the teardown of a child run), the run ends
 * canceled unless it succeeded: whatever the step did after the cancel (rejected with
 * its own error, threw, broke the sandbox, a child or https step failed) is the
 * teardown, not a failure. A failure decided before the cancel arrived has already
 * finished the run (finish runs without yielding first), so that cancel answered 409;
 * a child run's failure decided before the cancel but still on its way here (the child
 * was writing its row) stays a failure too, though that cancel answered 202.
 */
export function afterCancel(
  result: StepResult,
  canceling: boolean,
  canceledAt: number,
  log: (message: string, severity: string) => void,
): StepResult {
  if (result.kind !== 'failed' || !canceling) return result;
  if (result.decidedAt !== undefined && result.decidedAt < canceledAt) {
    log('the step had failed before the cancel was accepted: the run ends failed', 'info');
    return result;
  }
  log(`after the cancel: ${result.message}`, 'info');
  return { kind: 'aborted', message: 'the step stopped after the cancel' };
}

/** The final status a step result gives the run. */
export const statusOf = (result: StepResult): RunOutcome['status'] =>
  result.kind === 'ok' ? 'success' : result.kind === 'aborted' ? 'canceled' : 'failed';
