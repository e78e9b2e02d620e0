import { describe, expect, it } from 'vitest';
import {
  childRunsRefusal,
  fanOutRefusal,
  logFull,
  MAX_CHILD_RUNS,
  MAX_FAN_OUT,
  MAX_LOG_BYTES,
  MAX_LOG_ENTRIES,
} from '../../../src/jobs/caps';
import { resourceVerdict } from '../../../src/core/resource';
import { refText, withAuthority } from '../../../src/jobs/chain-access';

const grants = (...g: { group_id: number | null; perms: string; role: string | null }[]) => JSON.stringify(g);

describe('who may run a step: every user the run acts for (the core verdict, need x)', () => {
  /** The job (id 9, owner 1) with the share grants of each user (by id). */
  const row = (g: Record<number, string>) => ({
    id: 9,
    owner_id: 1,
    kind: 'job' as const,
    grants: new Map(Object.entries(g).map(([k, v]) => [Number(k), v])),
  });
  const verdict = (r: ReturnType<typeof row> | undefined, who: number[]) => resourceVerdict(r, who, 'x');
  it('a missing job, or one any of them cannot read, is missing (its existence is not revealed)', () => {
    expect(verdict(undefined, [1])).toEqual({ ok: false, missing: 1 });
    expect(verdict(row({ 2: grants(), 3: grants({ group_id: 5, perms: 'rx', role: 'members' }) }), [2, 3])).toEqual({
      ok: false,
      missing: 2,
    });
    // a public share lets them read, never execute
    expect(verdict(row({ 2: grants({ group_id: null, perms: 'r', role: null }) }), [2])).toEqual({
      ok: false,
      lacks: 2,
    });
  });
  it('the first user who can read but not execute is named; the owner may always execute', () => {
    const readOnly = grants({ group_id: 5, perms: 'r', role: 'members' });
    const exec = grants({ group_id: 5, perms: 'rx', role: 'members' });
    expect(verdict(row({ 2: readOnly, 3: readOnly }), [2, 3])).toEqual({ ok: false, lacks: 2 });
    expect(verdict(row({ 2: exec, 3: readOnly }), [2, 3])).toEqual({ ok: false, lacks: 3 });
    expect(verdict(row({ 2: exec }), [2, 1])).toEqual({ ok: true, id: 9, ownerId: 1 });
    // a pending membership grants nothing
    expect(verdict(row({ 2: grants({ group_id: 5, perms: 'rx', role: null }) }), [2])).toEqual({
      ok: false,
      missing: 2,
    });
  });
  it('no principal at all is nobody: refused, never everything', () => {
    expect(verdict(row({}), [])).toEqual({ ok: false, missing: -1 });
  });
  it('a child run adds its job owner to the users it acts for, without repeats, keeping the triggerer first', () => {
    expect(withAuthority([7], 7)).toEqual([7]);
    expect(withAuthority([7, 1], 2)).toEqual([7, 1, 2]);
    expect(withAuthority([7, 1, 2], 1)).toEqual([7, 1, 2]);
  });
  it('refs read as written', () => {
    expect(refText({ kind: 'job', owner: null, job: 'x' })).toBe('x');
    expect(refText({ kind: 'job', owner: 'bob', job: 'x' })).toBe('@bob/x');
  });
});

describe('chain caps', () => {
  it(`a fan-out over at most ${MAX_FAN_OUT} files starts; one more is refused with the numbers`, () => {
    expect(fanOutRefusal(MAX_FAN_OUT)).toBeUndefined();
    expect(fanOutRefusal(MAX_FAN_OUT + 1)).toBe(
      `the step fans out over ${MAX_FAN_OUT + 1} files, more than the cap of ${MAX_FAN_OUT}`,
    );
  });
  it(`at most ${MAX_CHILD_RUNS} child runs per top-level run`, () => {
    expect(childRunsRefusal(0, MAX_CHILD_RUNS)).toBeUndefined();
    expect(childRunsRefusal(MAX_CHILD_RUNS - 1, 1)).toBeUndefined();
    expect(childRunsRefusal(MAX_CHILD_RUNS, 1)).toContain(`more than the cap of ${MAX_CHILD_RUNS}`);
    expect(childRunsRefusal(200, 64)).toContain('264 child runs');
  });
  it(`the ${MAX_LOG_ENTRIES}th log entry, or the one past ${MAX_LOG_BYTES} bytes, is the truncation line`, () => {
    expect(logFull(MAX_LOG_ENTRIES - 2, 0, 10)).toBe(false);
    expect(logFull(MAX_LOG_ENTRIES - 1, 0, 10)).toBe(true);
    expect(logFull(5, MAX_LOG_BYTES - 10, 10)).toBe(false);
    expect(logFull(5, MAX_LOG_BYTES - 10, 11)).toBe(true);
  });
});
