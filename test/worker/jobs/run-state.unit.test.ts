/**
 * The run object's stored state record (durable/run-state.ts): one key per field, the keys
 * objects stored before the record existed, so a run in flight across a deploy reads its state.
 */
import { describe, expect, it } from 'vitest';
import { loadRunState, saveRunState } from '../../../durable/run-state';

/** The storage of an object, as a map of keys to values (only get and put are used). */
function storage(entries: Record<string, unknown> = {}) {
  const map = new Map(Object.entries(entries));
  return {
    map,
    kv: {
      get: <T>(key: string) => map.get(key) as T | undefined,
      put: <T>(key: string, value: T) => void map.set(key, value),
    },
  };
}

describe('run state record', () => {
  it('reads every field from the keys a run object has always stored', () => {
    const { kv } = storage({
      status: 'canceling',
      run_id: 7,
      pending_cancel: true,
      log_truncated: true,
      job_id: 3,
      name: '20260101-000000-abcdef',
      top: false,
      started: '2026-01-01T00:00:00.000Z',
      child_runs: 2,
      retain_until: 1234,
    });
    expect(loadRunState(kv)).toEqual({
      status: 'canceling',
      runId: 7,
      pendingCancel: true,
      logTruncated: true,
      jobId: 3,
      name: '20260101-000000-abcdef',
      top: false,
      started: '2026-01-01T00:00:00.000Z',
      childRuns: 2,
      retainUntil: 1234,
    });
  });
  it('an object that stored nothing reads as a run not started', () => {
    expect(loadRunState(storage().kv)).toEqual({
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
    });
  });
  it('saves only the fields given, each under its key', () => {
    const { kv, map } = storage({ status: 'processing' });
    saveRunState(kv, { runId: 9, childRuns: 4 });
    expect(Object.fromEntries(map)).toEqual({ status: 'processing', run_id: 9, child_runs: 4 });
  });
});
