import { describe, expect, it } from 'vitest';
import { call, makeUser } from '../helpers';
import { makeJob, newestRun, startedRun, statusOf, trigger, waitStatus } from './fixtures';

const J = '/v1/code/jobs';
const cancel = (token: string, job: string, run: string, text = 'canceled') =>
  call('POST', `${J}/${job}/runs/${run}/status`, { token, text });

const HONOURS_CANCEL = `export default { async run(i, ctx) { ctx.log('waiting'); await new Promise((res, rej) => { ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason)); setTimeout(res, 20000); }); return 'late'; } }`;
// These see the cancel and then finish (or break) on their own, before the teardown completes.
const FINISHES_ANYWAY = `export default { async run(i, ctx) { await new Promise((r) => ctx.signal.addEventListener('abort', r)); return 'done'; } }`;
const BREAKS_ANYWAY = `export default { async run(i, ctx) { await new Promise((r) => ctx.signal.addEventListener('abort', r)); throw new Error('broke'); } }`;
const IGNORES_CANCEL = `export default { async run() { await new Promise((r) => setTimeout(r, 20000)); return 'never'; } }`;

const started = startedRun;

describe('run state machine', () => {
  it('processing → canceling (202) → canceled: the data call answers 409, the log is kept, no output, not a failure', async () => {
    const u = await makeUser();
    const { data, run } = await started(u, 'c1', HONOURS_CANCEL);
    const res = await cancel(u.token, 'c1', run);
    expect(res.status).toBe(202);
    const blocked = await data;
    expect(blocked.status).toBe(409);
    expect(await blocked.json()).toMatchObject({ status: 409, run });
    expect(await statusOf(u.token, `${J}/c1`, run)).toBe('canceled');
    const log = await (await call('GET', `${J}/c1/runs/${run}/log`, { token: u.token })).text();
    expect(log).toContain('waiting');
    expect(log).toContain('cancel requested');
    expect((await call('GET', `${J}/c1/runs/${run}/output`, { token: u.token })).status).toBe(204);
  });
  it('canceling → canceled when the code ignores the signal: torn down after the grace period', async () => {
    const u = await makeUser();
    const { data, run } = await started(u, 'c2', IGNORES_CANCEL);
    expect((await cancel(u.token, 'c2', run)).status).toBe(202);
    expect((await data).status).toBe(409);
    expect(await statusOf(u.token, `${J}/c2`, run)).toBe('canceled');
  });
  it('race: the run finishes first while canceling → success', async () => {
    const u = await makeUser();
    const { data, run } = await started(u, 'c3', FINISHES_ANYWAY);
    expect((await cancel(u.token, 'c3', run)).status).toBe(202);
    const res = await data;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('done');
    expect(await statusOf(u.token, `${J}/c3`, run)).toBe('success');
  });
  it('a break after the accepted cancel is the teardown → canceled, not failed', async () => {
    const u = await makeUser();
    const { data, run } = await started(u, 'c4', BREAKS_ANYWAY);
    expect((await cancel(u.token, 'c4', run)).status).toBe(202);
    expect((await data).status).toBe(409);
    expect(await statusOf(u.token, `${J}/c4`, run)).toBe('canceled');
    expect(await (await call('GET', `${J}/c4/runs/${run}/log`, { token: u.token })).text()).toContain(
      'after the cancel: broke',
    );
  });
  it('a failure decided before the cancel arrived stays failed: the cancel answers 409 with failed', async () => {
    const u = await makeUser();
    await makeJob(u, 'c11', `export default { async run() { throw new Error('broke'); } }`);
    const run = (await trigger(u.token, `${J}/c11`)).headers.get('X-Run-Id')!;
    const res = await cancel(u.token, 'c11', run);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ status: 'failed', final_status: 'failed', run });
  });
  it('concurrent cancels: exactly one 202, the others 200 while the cancel is pending (409 once it ended)', async () => {
    const u = await makeUser();
    const { data, run } = await started(u, 'c5', IGNORES_CANCEL);
    const answers = await Promise.all(Array.from({ length: 6 }, () => cancel(u.token, 'c5', run)));
    const codes = answers.map((a) => a.status);
    expect(codes.filter((c) => c === 202)).toHaveLength(1);
    expect(codes.filter((c) => c !== 202).every((c) => c === 200 || c === 409)).toBe(true);
    expect((await data).status).toBe(409);
    expect(await statusOf(u.token, `${J}/c5`, run)).toBe('canceled');
  });
  it('canceling + cancel again answers 200 and stays canceling', async () => {
    const u = await makeUser();
    const { data, run } = await started(u, 'c10', IGNORES_CANCEL);
    expect((await cancel(u.token, 'c10', run)).status).toBe(202);
    const again = await cancel(u.token, 'c10', run);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ run_status: 'canceling' });
    expect(await statusOf(u.token, `${J}/c10`, run)).toBe('canceling');
    await data;
  });
  it('cancel after the end answers 409 with the final status; the state is unchanged', async () => {
    const u = await makeUser();
    await makeJob(u, 'c6', `export default { async run() { return 'x'; } }`);
    const run = (await trigger(u.token, `${J}/c6`)).headers.get('X-Run-Id')!;
    const res = await cancel(u.token, 'c6', run);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ status: 'success', final_status: 'success', run });
    expect(await statusOf(u.token, `${J}/c6`, run)).toBe('success');
  });
  it('cancel of a canceled run answers 409 with canceled', async () => {
    const u = await makeUser();
    const { data, run } = await started(u, 'c7', HONOURS_CANCEL);
    await cancel(u.token, 'c7', run);
    await data;
    expect(await (await cancel(u.token, 'c7', run)).json()).toMatchObject({
      status: 'canceled',
      final_status: 'canceled',
    });
  });
  it('a status body other than canceled answers 400; form-urlencoded 415', async () => {
    const u = await makeUser();
    const { data, run } = await started(u, 'c8', HONOURS_CANCEL);
    expect((await cancel(u.token, 'c8', run, 'success')).status).toBe(400);
    expect(
      (
        await call('POST', `${J}/c8/runs/${run}/status`, {
          token: u.token,
          body: 'canceled',
          type: 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(415);
    expect(await statusOf(u.token, `${J}/c8`, run)).toBe('processing');
    await cancel(u.token, 'c8', run);
    await data;
  });
  it('a live tail streams the log as Server-Sent Events while the run runs, then ends with the status', async () => {
    const u = await makeUser();
    const { data, run } = await started(
      u,
      'c9',
      `export default { async run(i, ctx) { ctx.log('one'); await new Promise((r) => setTimeout(r, 300)); ctx.log('two'); return 'x'; } }`,
    );
    const res = await call('GET', `${J}/c9/runs/${run}/log`, {
      token: u.token,
      headers: { Accept: 'text/event-stream' },
    });
    expect(res.headers.get('Content-Type')).toBe('text/event-stream');
    const text = await res.text(); // ends when the run ends
    expect(text).toContain('"message":"one"');
    expect(text).toContain('"message":"two"');
    expect(text).toMatch(/event: end\ndata: \{"status":"success"\}/);
    await data;
  });
});

describe('composed runs', () => {
  it('a child run cannot be canceled alone (409); canceling the top-level run tears the tree down', async () => {
    const u = await makeUser();
    await makeJob(u, 'slow', HONOURS_CANCEL);
    await makeJob(u, 'parent', undefined, { 'config/chains': 'step <- slow\nstep' });
    const data = trigger(u.token, `${J}/parent`);
    const run = await newestRun(u.token, 'parent');
    let child = '';
    for (let i = 0; i < 200 && !child; i++) {
      const stats = (await (
        await call('GET', `${J}/parent/runs/${run}/stats`, { token: u.token, headers: { Accept: 'application/json' } })
      ).json()) as {
        children: { name: string; status: string }[];
      };
      if (stats.children[0]?.status === 'processing') child = stats.children[0].name;
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(child).not.toBe('');
    // the child is readable through the top-level job's runs, and not listed as a standalone run
    expect(await statusOf(u.token, `${J}/parent`, child)).toBe('processing');
    expect(((await (await call('GET', `${J}/slow/runs`, { token: u.token })).json()) as unknown[]).length).toBe(0);
    const alone = await cancel(u.token, 'parent', child);
    expect(alone.status).toBe(409);
    expect(await statusOf(u.token, `${J}/parent`, child)).toBe('processing');
    expect((await cancel(u.token, 'parent', run)).status).toBe(202);
    expect((await data).status).toBe(409);
    expect(await statusOf(u.token, `${J}/parent`, run)).toBe('canceled');
    expect(await waitStatus(u.token, `${J}/parent`, child, (s) => s !== 'processing' && s !== 'canceling')).toBe(
      'canceled',
    );
  });
});
