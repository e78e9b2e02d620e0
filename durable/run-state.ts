/**
 * What a RunObject keeps in its key-value storage (beside the log, in its SQL storage, and
 * a small output): one typed record, loaded once when the object is constructed and saved
 * field by field as it changes.
 *
 * Each field lives under its own key, the keys and values the object has always stored, so
 * a run in flight across a deploy (or a rollback) reads its state unchanged: no migration.
 */
import type { RunStatus } from '../src/jobs/schema';

export interface RunState {
  /** null: the run has not started (no execute() or reject() yet). */
  status: RunStatus | null;
  /** The run's D1 row id (0 until the row is written). */
  runId: number;
  /** A teardown arrived before execute(): the run ends canceled without running. */
  pendingCancel: boolean;
  /** The truncation line is in the log: nothing more is stored. */
  logTruncated: boolean;
  /** What finishing needs (RunHead), kept so that a reset object can still finish the run; null: not stored yet. */
  jobId: number | null;
  name: string | null;
  top: boolean;
  started: string | null;
  /** Child runs claimed so far by this top-level run's tree (see claimChildren). */
  childRuns: number;
  /** When (Date.now()) the retention of a final run ends; null before it is set. */
  retainUntil: number | null;
}

/** The part of the object's key-value storage the record uses. */
type Kv = Pick<SyncKvStorage, 'get' | 'put'>;

/** The storage key of each field. */
const KEYS: { readonly [F in keyof RunState]: string } = {
  status: 'status',
  runId: 'run_id',
  pendingCancel: 'pending_cancel',
  logTruncated: 'log_truncated',
  jobId: 'job_id',
  name: 'name',
  top: 'top',
  started: 'started',
  childRuns: 'child_runs',
  retainUntil: 'retain_until',
};

/** A field never stored reads as this. */
const UNSET: Readonly<RunState> = {
  status: null,
  runId: 0,
  pendingCancel: false,
  logTruncated: false,
  jobId: null,
  name: null,
  top: true,
  started: null,
  childRuns: 0,
  retainUntil: null,
};

function load<F extends keyof RunState>(kv: Kv, state: RunState, field: F): void {
  const stored = kv.get<RunState[F]>(KEYS[field]);
  if (stored !== undefined) state[field] = stored;
}

export function loadRunState(kv: Kv): RunState {
  const state = { ...UNSET };
  for (const field of Object.keys(KEYS) as (keyof RunState)[]) load(kv, state, field);
  return state;
}

/** Stores the fields of `changes` (and only those). */
export function saveRunState(kv: Kv, changes: Partial<RunState>): void {
  for (const [field, value] of Object.entries(changes) as [keyof RunState, RunState[keyof RunState]][])
    kv.put(KEYS[field], value);
}
