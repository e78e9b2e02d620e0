// A job's DELETE forgets its finished runs' Durable Object storage (state, log, output, retention alarm) at once,
// instead of leaving it to the 30-day alarm. A run still going is not torn down: durable.test.ts ("a job deleted
// during its run").
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { call, makeUser } from '../helpers';
import { runStub } from '../../../src/jobs/run/stub';
import { makeJob, newestRun, startedRun, succeededRun, trigger, waitStatus } from './fixtures';

const J = '/v1/code/jobs';

/** What the run's object still holds: stored keys, log lines, its alarm. */
const left = (run: string) =>
  runInDurableObject(env.RUNS.get(env.RUNS.idFromName(run)), async (_i, s) => ({
    kv: (await s.storage.list()).size,
    log: s.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'log'").toArray().length
      ? s.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM log').one().n
      : 0,
    alarm: await s.storage.getAlarm(),
  }));

describe("a job's DELETE", () => {
  it("forgets its finished runs' Durable Object storage at once", async () => {
    const u = await makeUser();
    await makeJob(u, 'gone', `export default { async run(i, ctx) { ctx.log('hello'); return 'out'; } }`);
    const runs: string[] = [];
    for (let i = 0; i < 3; i++) {
      expect((await trigger(u.token, `${J}/gone`)).status).toBe(200);
      const run = await newestRun(u.token, 'gone');
      await waitStatus(u.token, `${J}/gone`, run, (s) => s === 'success');
      runs.push(run);
    }
    expect(new Set(runs).size).toBe(3);
    // Before: each run's object holds its state and log, and a retention alarm.
    for (const run of runs) {
      const before = await left(run);
      expect(before.log, run).toBeGreaterThan(0);
      expect(before.alarm, run).not.toBeNull();
    }
    expect((await call('DELETE', `${J}/gone`, { token: u.token })).status).toBe(204);
    for (const run of runs) expect(await left(run), run).toEqual({ kv: 0, log: 0, alarm: null });
  });
});

describe('a forgotten run object', () => {
  it('a log read that comes after the forget finds an empty log, not an error, and stores nothing', async () => {
    const u = await makeUser();
    const { run } = await succeededRun(u, 'read_after');
    const stub = runStub(env, run);
    expect((await stub.readLog()).length).toBeGreaterThan(0);
    await stub.forget();
    expect(await stub.readLog()).toEqual([]);
    expect(await left(run)).toEqual({ kv: 0, log: 0, alarm: null });
  });
  it('a run forgotten while it executes (account deletion) stores nothing once it ends', async () => {
    const u = await makeUser();
    const wait = `export default { async run(i, ctx) { ctx.log('waiting'); await new Promise((res, rej) => { ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason)); setTimeout(res, 20000); }); return 'late'; } }`;
    const { data, run } = await startedRun(u, 'live_forgotten', wait);
    await runStub(env, run).forget();
    await data;
    expect(await runStub(env, run).getStatus()).toBe('canceled');
    expect(await left(run)).toEqual({ kv: 0, log: 0, alarm: null });
  });
});
