/**
 * The cancel rule: once a cancel has been accepted (202), a run ends `canceled` unless it
 * succeeds before its teardown completes. Whatever the code does after the cancel (reject
 * with its own error, ignore the signal, throw) is the teardown, never `failed`; for own
 * code, https steps, child job steps, fan-outs and nested children, and for every trigger.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { RunObject } from '../../../durable/run';
import { handleInbound } from '../../../src/jobs/inbound';
import { call, makeUser, type TestUser } from '../helpers';
import { makeJob, newestRun, statusOf, trigger, waitStatus } from './fixtures';
import { mailGroup, rawMail, repliesTo } from './mail-fixtures';
import { STEP_HOST } from './outbound';

const J = '/v1/code/jobs';
const cancel = (token: string, job: string, run: string) =>
  call('POST', `${J}/${job}/runs/${run}/status`, { token, text: 'canceled' });

/** The ordinary way to honour ctx.signal: a wait that rejects with the code's own error. */
const OWN_ERROR = `export default { async run(i, ctx) { ctx.log('waiting'); await new Promise((res, rej) => { ctx.signal.addEventListener('abort', () => rej(new Error('canceled'))); setTimeout(res, 20000); }); return 'late'; } }`;
const IGNORES = `export default { async run(i, ctx) { ctx.log('waiting'); await new Promise((r) => setTimeout(r, 20000)); return 'never'; } }`;
const THROWS = `export default { async run(i, ctx) { ctx.log('waiting'); await new Promise((r) => ctx.signal.addEventListener('abort', r)); throw new Error('cleanup broke'); } }`;
const IN_GRACE = `export default { async run(i, ctx) { ctx.log('waiting'); await new Promise((r) => ctx.signal.addEventListener('abort', r)); return 'done'; } }`;
const SPLIT = `export default { async run(input) { const n = JSON.parse(await input[0].text()).n; return Array.from({ length: n }, (_, i) => new File(['part' + i], 'p' + i + '.txt', { type: 'text/plain' })); } }`;

type Final = 'canceled' | 'success';
const behaviours: { what: string; code: string; final: Final }[] = [
  { what: 'code that rejects with its own error on abort', code: OWN_ERROR, final: 'canceled' },
  { what: 'code that ignores the signal', code: IGNORES, final: 'canceled' },
  { what: 'code that throws after the abort', code: THROWS, final: 'canceled' },
  { what: 'code that succeeds inside the grace', code: IN_GRACE, final: 'success' },
];

const dataCode = (final: Final) => (final === 'canceled' ? 409 : 200);

interface Child {
  name: string;
  job: string;
  status: string;
}
async function children(token: string, job: string, run: string): Promise<Child[]> {
  const res = await call('GET', `${J}/${job}/runs/${run}/stats`, { token, headers: { Accept: 'application/json' } });
  return ((await res.json()) as { children: Child[] }).children;
}

/** Waits until the run has children matching `ok` and answers them. */
async function waitChildren(token: string, job: string, run: string, ok: (c: Child[]) => boolean): Promise<Child[]> {
  for (let i = 0; i < 300; i++) {
    const c = await children(token, job, run);
    if (ok(c)) return c;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`run ${run} never had the wanted children`);
}

const ended = (s: string) => s !== 'processing' && s !== 'canceling';

/** Waits until the code is running: its log says 'waiting'. */
async function waitLogged(token: string, base: string, run: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await (await call('GET', `${base}/runs/${run}/log`, { token })).text()).includes('waiting')) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`run ${run} never started its code`);
}

async function running(u: TestUser, job: string, code: string): Promise<{ data: Promise<Response>; run: string }> {
  await makeJob(u, job, code);
  const data = trigger(u.token, `${J}/${job}`);
  const run = await newestRun(u.token, job);
  await waitLogged(u.token, `${J}/${job}`, run);
  return { data, run };
}

describe.each(behaviours)('a cancel accepted with $what ends $final', ({ code, final }) => {
  it('POST .../status canceled answers 202, the blocked POST data answers 409 (200 on success), the run ends as the rule says', async () => {
    const u = await makeUser();
    const { data, run } = await running(u, 'job', code);
    expect((await cancel(u.token, 'job', run)).status).toBe(202);
    const res = await data;
    expect(res.status).toBe(dataCode(final));
    if (final === 'canceled') expect(await res.json()).toMatchObject({ status: 409, run });
    expect(await statusOf(u.token, `${J}/job`, run)).toBe(final);
    const log = await (await call('GET', `${J}/job/runs/${run}/log`, { token: u.token })).text();
    expect(log).toContain(`run ${final}`);
    if (final === 'canceled')
      expect((await call('GET', `${J}/job/runs/${run}/output`, { token: u.token })).status).toBe(204);
  });

  it('concurrent cancels: exactly one 202; the others 200 while pending or 409 with the final status', async () => {
    const u = await makeUser();
    const { data, run } = await running(u, 'job', code);
    const answers = await Promise.all(Array.from({ length: 6 }, () => cancel(u.token, 'job', run)));
    const codes = answers.map((a) => a.status);
    expect(codes.filter((c) => c === 202)).toHaveLength(1);
    expect(codes.every((c) => c === 202 || c === 200 || c === 409)).toBe(true);
    for (const a of answers.filter((x) => x.status === 409))
      expect(await a.json()).toMatchObject({ final_status: final });
    expect((await data).status).toBe(dataCode(final));
    expect(await statusOf(u.token, `${J}/job`, run)).toBe(final);
  });

  it('a nested composed chain canceled at the top: the top, the middle and the leaf run all end as the rule says', async () => {
    const u = await makeUser();
    await makeJob(u, 'leaf', code);
    await makeJob(u, 'mid', undefined, { 'config/chains': 'leaf' });
    await makeJob(u, 'top', undefined, { 'config/chains': 'mid' });
    const data = trigger(u.token, `${J}/top`);
    const run = await newestRun(u.token, 'top');
    const [mid] = await waitChildren(u.token, 'top', run, (c) => c.length === 1);
    const [leaf] = await waitChildren(u.token, 'top', mid!.name, (c) => c.length === 1);
    await waitLogged(u.token, `${J}/top`, leaf!.name);
    expect((await cancel(u.token, 'top', run)).status).toBe(202);
    const res = await data;
    expect(res.status).toBe(dataCode(final));
    if (final === 'success') expect(await res.text()).toBe('done');
    expect(await statusOf(u.token, `${J}/top`, run)).toBe(final);
    expect(await waitStatus(u.token, `${J}/top`, mid!.name, ended)).toBe(final);
    expect(await waitStatus(u.token, `${J}/top`, leaf!.name, ended)).toBe(final);
  });

  it('a fan-out canceled at the top: every fanned-out child ends as the rule says, and so does the run', async () => {
    const u = await makeUser();
    await makeJob(u, 'split', SPLIT);
    await makeJob(u, 'worker', code);
    await makeJob(u, 'fan', undefined, { 'config/chains': 'cut <- split\nw <- worker\ncut -> .w' });
    const data = trigger(u.token, `${J}/fan`, { n: 3 });
    const run = await newestRun(u.token, 'fan');
    const kids = await waitChildren(u.token, 'fan', run, (c) => c.filter((x) => x.job === 'worker').length === 3);
    for (const k of kids.filter((x) => x.job === 'worker')) await waitLogged(u.token, `${J}/fan`, k.name);
    expect((await cancel(u.token, 'fan', run)).status).toBe(202);
    expect((await data).status).toBe(dataCode(final));
    expect(await statusOf(u.token, `${J}/fan`, run)).toBe(final);
    for (const k of kids.filter((x) => x.job === 'worker'))
      expect(await waitStatus(u.token, `${J}/fan`, k.name, ended)).toBe(final);
  });

  it('a mail-triggered run: the reply names the cancel (or carries the output)', async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'mailjob', code);
    await call('PUT', `${J}/mailjob/shared/+${g.org}~sales`, { token: g.owner.token });
    const handled = handleInbound(env, rawMail(g.email, g.address, 'Stop me'), g.email, g.address);
    const run = await newestRun(g.owner.token, 'mailjob');
    await waitLogged(g.owner.token, `${J}/mailjob`, run);
    expect((await cancel(g.owner.token, 'mailjob', run)).status).toBe(202);
    expect(await handled).toBe('accepted');
    const replies = await repliesTo(g.email);
    expect(replies).toHaveLength(1);
    if (final === 'canceled') expect(replies[0]!.text).toBe(`Run ${run} of job mailjob was canceled: no output.`);
    else expect(replies[0]!.text).toContain('succeeded');
    expect(await statusOf(g.owner.token, `${J}/mailjob`, run)).toBe(final);
  });
});

describe('the cancel rule for an https:// step', () => {
  // Regression guard: this already held before the cancel rule was written down.
  it('regression guard: a chain waiting on an https step ends canceled when canceled at the top', async () => {
    const u = await makeUser();
    await makeJob(u, 'web', undefined, { 'config/chains': `slow <- https://${STEP_HOST}/slow\nslow` });
    const data = trigger(u.token, `${J}/web`);
    const run = await newestRun(u.token, 'web');
    for (let i = 0; i < 200; i++) {
      if ((await (await call('GET', `${J}/web/runs/${run}/log`, { token: u.token })).text()).includes('step slow'))
        break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await cancel(u.token, 'web', run)).status).toBe(202);
    expect((await data).status).toBe(409);
    expect(await statusOf(u.token, `${J}/web`, run)).toBe('canceled');
  });
});

describe('a failure decided before the cancel stays failed', () => {
  /** Part 0 fails at once; the others wait on their signal. */
  const HALF = `export default { async run(input, ctx) { if ((await input[0].text()) === 'part0') throw new Error('bad part'); ctx.log('waiting'); await new Promise((res, rej) => { ctx.signal.addEventListener('abort', () => rej(new Error('canceled'))); setTimeout(res, 20000); }); } }`;

  it('a fan-out ends failed as soon as one branch fails (the others are torn down): a later cancel answers 409 with the final status failed', async () => {
    const u = await makeUser();
    await makeJob(u, 'split', SPLIT);
    await makeJob(u, 'half', HALF);
    await makeJob(u, 'fan', undefined, { 'config/chains': 'cut <- split\nw <- half\ncut -> .w' });
    const data = trigger(u.token, `${J}/fan`, { n: 2 });
    const run = await newestRun(u.token, 'fan');
    await waitChildren(u.token, 'fan', run, (c) => c.some((x) => x.job === 'half' && x.status === 'failed'));
    const res = await cancel(u.token, 'fan', run);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ status: 'failed', final_status: 'failed' });
    expect((await data).status).toBe(502);
    expect(await statusOf(u.token, `${J}/fan`, run)).toBe('failed');
    const kids = (await children(u.token, 'fan', run)).filter((x) => x.job === 'half');
    expect(kids).toHaveLength(2);
    for (const k of kids) expect(await waitStatus(u.token, `${J}/fan`, k.name, ended)).toMatch(/^(failed|canceled)$/);
  });

  it('a child failure decided before the cancel but reaching the parent after it (202) still ends the parent failed', async () => {
    const stub = env.RUNS.get(
      env.RUNS.idFromName(`20260101-000000-late${Math.floor(Math.random() * 1e9).toString(36)}`),
    ) as DurableObjectStub<RunObject>;
    const status = await runInDurableObject(stub, async (inst) => {
      const o = inst as unknown as {
        setStatus(s: string): void;
        finish(h: object, r: object): Promise<{ status: string }>;
      };
      o.setStatus('processing');
      const decidedAt = Date.now() - 1000; // the child failed, then wrote its row ...
      expect((await inst.cancel('tester')).code).toBe(202); // ... while the cancel reached the parent
      const out = await o.finish(
        { name: 'late', jobId: 0, top: false, started: new Date().toISOString() },
        { kind: 'failed', message: 'child run x failed', decidedAt },
      );
      return [out.status, inst.getStatus()];
    });
    expect(status).toEqual(['failed', 'failed']);
  });
});

describe('a cancel whose D1 bookkeeping fails', () => {
  it('still answers 202 (the cancel took effect) and the run ends canceled', async () => {
    const u = await makeUser();
    const { data, run } = await running(u, 'dbfail', OWN_ERROR);
    const trig = `fail_canceling_${Math.floor(Math.random() * 1e9).toString(36)}`;
    await env.DB.prepare(
      `CREATE TRIGGER ${trig} BEFORE UPDATE OF status ON job_runs WHEN NEW.status = 'canceling' AND NEW.name = '${run}' BEGIN SELECT RAISE(ABORT, 'simulated D1 failure'); END`,
    ).run();
    try {
      const res = await cancel(u.token, 'dbfail', run);
      expect(res.status).toBe(202);
      expect((await data).status).toBe(409);
      expect(await statusOf(u.token, `${J}/dbfail`, run)).toBe('canceled');
      expect(await (await call('GET', `${J}/dbfail/runs/${run}/log`, { token: u.token })).text()).toContain(
        'could not be marked canceling',
      );
    } finally {
      await env.DB.prepare(`DROP TRIGGER IF EXISTS ${trig}`).run();
    }
  });
});

describe('canceled runs and auto-pause', () => {
  async function cancelOnce(u: TestUser, job: string, known: Set<string>): Promise<void> {
    const data = trigger(u.token, `${J}/${job}`);
    let run = '';
    for (let i = 0; i < 300 && !run; i++) {
      const list = (await (await call('GET', `${J}/${job}/runs`, { token: u.token })).json()) as { name: string }[];
      run = list.map((r) => r.name).find((n) => !known.has(n)) ?? '';
      if (!run) await new Promise((r) => setTimeout(r, 20));
    }
    known.add(run);
    await waitLogged(u.token, `${J}/${job}`, run);
    expect((await cancel(u.token, job, run)).status).toBe(202);
    expect((await data).status).toBe(409);
  }

  it('five canceled runs in a row (code rejecting with its own error) do not pause the job', async () => {
    const u = await makeUser();
    await makeJob(u, 'coop', OWN_ERROR, { 'config/schedule': '*/5 * * * *' });
    const known = new Set<string>();
    for (let i = 0; i < 5; i++) await cancelOnce(u, 'coop', known);
    expect(await (await call('GET', `${J}/coop/config/enabled`, { token: u.token })).text()).toBe('true');
    expect(await (await call('GET', `${J}/coop/log`, { token: u.token })).text()).not.toContain('job paused');
  });

  it('a canceled run does not reset the failure streak either', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'streak',
      `export default { async run(input, ctx) { const j = JSON.parse(await input[0].text()); if (j.fail) throw new Error('down'); ctx.log('waiting'); await new Promise((res, rej) => { ctx.signal.addEventListener('abort', () => rej(new Error('canceled'))); setTimeout(res, 20000); }); } }`,
    );
    for (let i = 0; i < 4; i++) expect((await trigger(u.token, `${J}/streak`, { fail: true })).status).toBe(502);
    const known = new Set(
      ((await (await call('GET', `${J}/streak/runs`, { token: u.token })).json()) as { name: string }[]).map(
        (r) => r.name,
      ),
    );
    await cancelOnce(u, 'streak', known);
    expect(await (await call('GET', `${J}/streak/config/enabled`, { token: u.token })).text()).toBe('true');
    expect((await trigger(u.token, `${J}/streak`, { fail: true })).status).toBe(502);
    expect(await (await call('GET', `${J}/streak/config/enabled`, { token: u.token })).text()).toBe('false');
  });
});
