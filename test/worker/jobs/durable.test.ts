/**
 * The run object's robustness: resets mid-run (watchdog), cancels that reach a child before
 * it starts, code that ignores a cancel, a job deleted during its run, auto-pause counting.
 * These use the real RunObject through cloudflare:test (no mocks).
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { RunObject } from '../../../durable/run';
import { RELEASE_IDLE_MS, RELEASED } from '../../../src/jobs/run/release';
import { runStub } from '../../../src/jobs/run/stub';
import { INTERRUPTED, WATCHDOG_MS, type RunOutcome } from '../../../src/jobs/run/machine';
import type { Resource } from '../../../src/db/schema';
import { startRun } from '../../../src/jobs/trigger';
import { call, makeUser, type TestUser } from '../helpers';
import { makeJob, newestRun, sleep, startedRun, statusOf, succeededRun, trigger, waitStatus } from './fixtures';

const J = '/v1/code/jobs';
const WAITS = `export default { async run(i, ctx) { ctx.log('waiting'); await new Promise((res, rej) => { ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason)); setTimeout(res, 20000); }); return 'late'; } }`;

const stubOf = (run: string) => env.RUNS.get(env.RUNS.idFromName(run)) as DurableObjectStub<RunObject>;

async function jobId(u: TestUser, job: string): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT r.id FROM resources r JOIN users u ON u.id = r.owner_id WHERE u.username = ? AND r.kind = 'job' AND r.name = ?",
  )
    .bind(u.username, job)
    .first<{ id: number }>();
  return row!.id;
}

async function userId(u: TestUser): Promise<number> {
  return (await env.DB.prepare('SELECT id FROM users WHERE username = ?').bind(u.username).first<{ id: number }>())!.id;
}

async function failures(id: number): Promise<number> {
  return (
    (await env.DB.prepare('SELECT failures FROM job_meta WHERE job_id = ?').bind(id).first<{ failures: number }>())
      ?.failures ?? 0
  );
}

const running = (u: TestUser, job: string, code = WAITS) => startedRun(u, job, code);

describe('watchdog: a run cut off by a reset of its Durable Object', () => {
  it('a reset mid-run fails the run as interrupted (log line, 502 JSON on the data call, a counted failure, tails end)', async () => {
    const u = await makeUser();
    const { data, run } = await running(u, 'reset');
    await runInDurableObject(stubOf(run), (_inst, state) => {
      state.abort('simulated reset');
    }).catch(() => undefined);
    const res = await data;
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ status: 502, run });
    expect(await statusOf(u.token, `${J}/reset`, run)).toBe('failed');
    expect(await (await call('GET', `${J}/reset/runs/${run}/log`, { token: u.token })).text()).toContain(INTERRUPTED);
    expect(await failures(await jobId(u, 'reset'))).toBe(1);
    const tail = await call('GET', `${J}/reset/runs/${run}/log`, {
      token: u.token,
      headers: { Accept: 'text/event-stream' },
    });
    expect(await tail.text()).toMatch(/event: end\ndata: \{"status":"failed"\}/);
    // a cancel of the interrupted run answers 409 with the final status, not a canceling limbo
    const cancel = await call('POST', `${J}/reset/runs/${run}/status`, { token: u.token, text: 'canceled' });
    expect(cancel.status).toBe(409);
    expect(await cancel.json()).toMatchObject({ status: 'failed' });
  });
  it('the watchdog alarm leaves a live run alone (re-armed); once final the alarm is the retention one', async () => {
    const u = await makeUser();
    const { data, run } = await running(u, 'alive');
    expect(await runDurableObjectAlarm(stubOf(run))).toBe(true);
    expect(await statusOf(u.token, `${J}/alive`, run)).toBe('processing');
    expect(await runInDurableObject(stubOf(run), (_i, state) => state.storage.getAlarm())).toBeGreaterThan(
      Date.now() + WATCHDOG_MS / 2,
    );
    expect((await call('POST', `${J}/alive/runs/${run}/status`, { token: u.token, text: 'canceled' })).status).toBe(
      202,
    );
    expect((await data).status).toBe(409);
    const alarm = await runInDurableObject(stubOf(run), (_i, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
  });
  it('a run object reset while its run was canceling ends canceled (not a failure)', async () => {
    const u = await makeUser();
    const { data, run } = await running(
      u,
      'reset_cancel',
      `export default { async run() { await new Promise((r) => setTimeout(r, 20000)); } }`,
    );
    expect(
      (await call('POST', `${J}/reset_cancel/runs/${run}/status`, { token: u.token, text: 'canceled' })).status,
    ).toBe(202);
    await runInDurableObject(stubOf(run), (_inst, state) => {
      state.abort('simulated reset');
    }).catch(() => undefined);
    expect((await data).status).toBe(409);
    expect(await statusOf(u.token, `${J}/reset_cancel`, run)).toBe('canceled');
    expect(await failures(await jobId(u, 'reset_cancel'))).toBe(0);
  });
});

describe('a final run leaves memory on its own', () => {
  it('with no call after it ends, its instance is released after RELEASE_IDLE_MS; its storage stays', async () => {
    const u = await makeUser();
    await makeJob(u, 'release', 'export default { async run() { return { ok: true }; } };');
    // The trigger answers when the run has ended; nothing calls the object after that.
    expect((await trigger(u.token, `${J}/release`)).status).toBe(200);
    const run = await newestRun(u.token, 'release');
    const marked = await runInDurableObject(stubOf(run), (inst) => {
      (inst as unknown as { marker?: boolean }).marker = true;
      return true;
    });
    expect(marked).toBe(true);
    await sleep(RELEASE_IDLE_MS + 1500);
    const again = await runInDurableObject(stubOf(run), async (inst, state) => ({
      marker: (inst as unknown as { marker?: boolean }).marker ?? false,
      retention: await state.storage.getAlarm(),
    }));
    expect(again.marker).toBe(false); // a new instance, built from storage
    expect(again.retention).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    expect(await statusOf(u.token, `${J}/release`, run)).toBe('success');
  });
});

describe('a call that meets a released run object', () => {
  it('is made again through the run stub, on a new stub: the one that met the release stays broken', async () => {
    const u = await makeUser();
    const { run } = await succeededRun(u, 'again');
    const stub = runStub(env, run);
    expect(await stub.getStatus()).toBe('success');
    // The release, as the object does it when idle: every stub that reached it is broken now.
    await runInDurableObject(stubOf(run), (_i, state) => state.abort(RELEASED)).catch(() => undefined);
    expect(await stub.getStatus()).toBe('success');
    expect(await stub.getStatus()).toBe('success');
  });
});

describe('a trigger whose call to the run object broke', () => {
  // The object may still be executing (only the call broke): recover() then answers its live status.
  const broken = (status: string) =>
    ({
      RUNS: {
        idFromName: (n: string) => n,
        get: () => ({
          execute: () => Promise.reject(new Error('connection lost')),
          recover: () => Promise.resolve(status),
        }),
      },
    }) as unknown as Env;
  const spec = {
    job: { id: 1, owner_id: 1 } as Resource,
    trigger: 'api' as const,
    source: 'api',
    createdBy: 'x',
    callerId: 1,
    input: [],
  };
  it('reports canceled for a run still canceling (it ends canceled unless it succeeds), failed for one still processing', async () => {
    expect((await startRun(broken('canceling'), spec)).status).toBe('canceled');
    expect((await startRun(broken('canceled'), spec)).status).toBe('canceled');
    expect((await startRun(broken('processing'), spec)).status).toBe('failed');
  });
});

describe('cancel races of composed runs', () => {
  it('a teardown that reaches a child run before its execute() ends the child canceled without running its code', async () => {
    const u = await makeUser();
    await makeJob(u, 'never', `export default { async run(i, ctx) { ctx.log('code ran'); return 'ran'; } }`);
    const id = await jobId(u, 'never');
    const name = `20260101-000000-race${Math.floor(Math.random() * 1e9).toString(36)}`;
    const child = stubOf(name);
    await child.teardown();
    const out = (await child.execute({
      name,
      jobId: id,
      ownerId: 0,
      rootJobId: id,
      parentId: null,
      parentStep: null,
      trigger: 'api',
      source: 'api',
      createdBy: u.username,
      authority: [await userId(u)],
      rootName: name,
      input: [],
      depth: 0,
    })) as unknown as RunOutcome;
    expect(out.status).toBe('canceled');
    const log = (await child.readLog()) as unknown as { message: string }[];
    expect(log.map((e) => e.message)).not.toContain('code ran');
    expect(await env.DB.prepare('SELECT status FROM job_runs WHERE name = ?').bind(name).first('status')).toBe(
      'canceled',
    );
  });
});

describe('a step that ignores the cancel', () => {
  it('code that keeps logging after the cancel adds no log lines after the final one', async () => {
    const u = await makeUser();
    const { data, run } = await running(
      u,
      'chatty',
      `export default { async run(i, ctx) { setInterval(() => ctx.log('tick'), 50); await new Promise((r) => setTimeout(r, 20000)); } }`,
    );
    expect((await call('POST', `${J}/chatty/runs/${run}/status`, { token: u.token, text: 'canceled' })).status).toBe(
      202,
    );
    expect((await data).status).toBe(409);
    await sleep(400);
    const log = (await (
      await call('GET', `${J}/chatty/runs/${run}/log`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as { message: string }[];
    expect(log.at(-1)!.message).toBe('run canceled');
  });
});

describe('a job deleted during its run', () => {
  it('the run still ends: the data call answers 502 JSON (never 500), tails end and the retention alarm is set', async () => {
    const u = await makeUser();
    const { data, run } = await running(
      u,
      'doomed',
      `export default { async run() { await new Promise((r) => setTimeout(r, 300)); throw new Error('late failure'); } }`,
    );
    expect((await call('DELETE', `${J}/doomed`, { token: u.token })).status).toBeLessThan(300);
    const res = await data;
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ status: 502, run });
    expect(await stubOf(run).getStatus()).toBe('failed');
    const alarm = await runInDurableObject(stubOf(run), (_i, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
  });
});

describe('auto-pause counts consecutive failures only', () => {
  it('a success that started before a streak of failures still resets the count when it ends', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'flaky',
      `export default { async run(input) { const j = JSON.parse(await input[0].text()); if (j.slow) await new Promise((r) => setTimeout(r, 1500)); if (j.fail) throw new Error('flake'); return 'ok'; } }`,
    );
    const id = await jobId(u, 'flaky');
    const slow = trigger(u.token, `${J}/flaky`, { slow: true });
    await waitStatus(u.token, `${J}/flaky`, await newestRun(u.token, 'flaky'), (s) => s === 'processing');
    for (let i = 0; i < 4; i++) expect((await trigger(u.token, `${J}/flaky`, { fail: true })).status).toBe(502);
    expect(await failures(id)).toBe(4);
    expect((await slow).status).toBe(200);
    expect(await failures(id)).toBe(0);
    expect((await trigger(u.token, `${J}/flaky`, { fail: true })).status).toBe(502);
    expect(await (await call('GET', `${J}/flaky/config/enabled`, { token: u.token })).text()).toBe('true');
  });
});
