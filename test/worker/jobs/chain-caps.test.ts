/**
 * What one run may cost: fan-out width, child runs over the whole tree (counted by the
 * top-level run's object, nested chains included) and the run log (truncated, and read
 * page by page). A cap hit fails the run with a log line naming it (the log truncates).
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LOG_TRUNCATED, MAX_CHILD_RUNS, MAX_FAN_OUT, MAX_LOG_ENTRIES } from '../../../src/jobs/caps';
import { call, makeUser } from '../helpers';
import { makeJob, trigger } from './fixtures';

const J = '/v1/code/jobs';
const json = { Accept: 'application/json' };
const SPLIT = `export default { async run(input) { const n = JSON.parse(await input[0].text()).n; return Array.from({ length: n }, (_, i) => new File(['part' + i], 'p' + i + '.txt', { type: 'text/plain' })); } }`;
const NOOP = `export default { async run() { return 'ok'; } }`;

type Stats = { status: string; children: { name: string; job: string; status: string }[] };
const statsOf = async (token: string, job: string, run: string) =>
  (await (await call('GET', `${J}/${job}/runs/${run}/stats`, { token, headers: json })).json()) as Stats;

describe('chain caps', () => {
  it(`a fan-out over more than ${MAX_FAN_OUT} files fails the run before any of its children starts`, async () => {
    const u = await makeUser();
    await makeJob(u, 'split', SPLIT);
    await makeJob(u, 'noop', NOOP);
    await makeJob(u, 'wide', undefined, { 'config/chains': 'cut <- split\nn <- noop\ncut -> .n' });
    const res = await trigger(u.token, `${J}/wide`, { n: MAX_FAN_OUT + 1 });
    expect(res.status).toBe(502);
    const { run } = (await res.json()) as { run: string };
    expect(await (await call('GET', `${J}/wide/runs/${run}/log`, { token: u.token })).text()).toContain(
      `step n: the step fans out over ${MAX_FAN_OUT + 1} files, more than the cap of ${MAX_FAN_OUT}`,
    );
    expect((await statsOf(u.token, 'wide', run)).children.map((c) => c.job)).toEqual(['split']);
  });

  it(`child runs are counted over the whole tree: nested chains stop at ${MAX_CHILD_RUNS} per top-level run`, async () => {
    const u = await makeUser();
    await makeJob(u, 'split', SPLIT);
    await makeJob(u, 'noop', NOOP);
    // each `four` run starts 4 children of its own: 1 + 64 + 64 * 4 = 321 child runs would be started
    await makeJob(u, 'four', undefined, {
      'config/chains': 'a <- noop\nb <- noop\nc <- noop\nd <- noop\na -> b -> c -> d',
    });
    await makeJob(u, 'tree', undefined, { 'config/chains': 'cut <- split\nf <- four\ncut -> .f' });
    const res = await trigger(u.token, `${J}/tree`, { n: MAX_FAN_OUT });
    expect(res.status).toBe(502);
    const { run } = (await res.json()) as { run: string };
    const top = await statsOf(u.token, 'tree', run);
    // the refusal is decided in a nested run (a `four`), which the top-level run's object answered; every child's
    // log is read (a child's row may still say processing while the top-level answer is already out)
    const logs = await Promise.all(
      top.children.map(async (c) => (await call('GET', `${J}/tree/runs/${c.name}/log`, { token: u.token })).text()),
    );
    expect(logs.some((l) => l.includes(`more than the cap of ${MAX_CHILD_RUNS} per top-level run`))).toBe(true);
    const rows = await env.DB.prepare(
      'SELECT COUNT(*) AS n FROM job_runs WHERE root_job_id = (SELECT job_id FROM job_runs WHERE name = ?) AND top = 0',
    )
      .bind(run)
      .first<{ n: number }>();
    expect(rows!.n).toBeLessThanOrEqual(MAX_CHILD_RUNS);
  });

  it(`a run log keeps ${MAX_LOG_ENTRIES} entries, the last saying it was truncated; the run itself goes on; readers get it page by page`, async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'chatty',
      `export default { async run(i, ctx) { for (let k = 0; k < ${MAX_LOG_ENTRIES + 50}; k++) ctx.log('line ' + k); return 'done'; } }`,
    );
    const res = await trigger(u.token, `${J}/chatty`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('done');
    const run = res.headers.get('X-Run-Id')!;
    const entries = (await (
      await call('GET', `${J}/chatty/runs/${run}/log`, { token: u.token, headers: json })
    ).json()) as { message: string; severity: string }[];
    expect(entries).toHaveLength(MAX_LOG_ENTRIES);
    expect(entries.at(-1)).toMatchObject({ severity: 'warning', message: LOG_TRUNCATED });
    expect(entries.filter((e) => e.message === LOG_TRUNCATED)).toHaveLength(1);
    const text = await (await call('GET', `${J}/chatty/runs/${run}/log`, { token: u.token })).text();
    expect(text.split('\n').filter(Boolean)).toHaveLength(MAX_LOG_ENTRIES);
    expect(await (await call('GET', `${J}/chatty/log`, { token: u.token, headers: json })).json()).toHaveLength(
      MAX_LOG_ENTRIES,
    );
    // the live tail of the finished run: every stored entry, then the end
    const sse = await (
      await call('GET', `${J}/chatty/runs/${run}/log`, { token: u.token, headers: { Accept: 'text/event-stream' } })
    ).text();
    expect(sse.match(/^event: log$/gm)).toHaveLength(MAX_LOG_ENTRIES);
    expect(sse.trimEnd().endsWith('data: {"status":"success"}')).toBe(true);
  });

  it('large log messages reach the byte cap first: the log ends with the truncation line', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'loud',
      `export default { async run(i, ctx) { const big = 'x'.repeat(64 * 1024); for (let k = 0; k < 80; k++) ctx.log(big); } }`,
    );
    const res = await trigger(u.token, `${J}/loud`);
    expect(res.status).toBe(204);
    const entries = (await (
      await call('GET', `${J}/loud/runs/${res.headers.get('X-Run-Id')}/log`, { token: u.token, headers: json })
    ).json()) as { message: string }[];
    expect(entries.length).toBeLessThan(70);
    expect(entries.at(-1)!.message).toBe(LOG_TRUNCATED);
  });
});
