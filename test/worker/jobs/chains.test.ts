import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { call, makeUser } from '../helpers';
import { groupWith, makeJob, newestRun, sleep, trigger, waitStatus } from './fixtures';
import { STEP_HOST } from './outbound';

const J = '/v1/code/jobs';
const SPLIT = `export default { async run(input) { const n = JSON.parse(await input[0].text()).n; return Array.from({ length: n }, (_, i) => new File(['part' + i], 'p' + i + '.txt', { type: 'text/plain' })); } }`;
const UPPER = `export default { async run(input, ctx) { ctx.log('upper ' + input.length); return Promise.all(input.map(async (f) => new File([(await f.text()).toUpperCase()], f.name, { type: f.type }))); } }`;

interface Stats {
  status: string;
  children: {
    name: string;
    shortname: string;
    job: string;
    job_shortname: string;
    parent_step: string;
    status: string;
    started_on: string;
    completed_on: string;
    duration: number;
  }[];
}

describe('composed chains', () => {
  it('steps run in order; a dot fans the step out over the previous output (one child run per file); several outputs zip', async () => {
    const u = await makeUser();
    await makeJob(u, 'split', SPLIT);
    await makeJob(u, 'upper', UPPER);
    await makeJob(u, 'pipeline', undefined, {
      'config/chains': '# split then upper each part\ncut <- split\nup <- upper\ncut -> .up',
    });
    const res = await trigger(u.token, `${J}/pipeline`, { n: 3 });
    expect(res.status).toBe(200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, new TextDecoder().decode(v)]))).toEqual({
      'p0.txt': 'PART0',
      'p1.txt': 'PART1',
      'p2.txt': 'PART2',
    });
    const run = res.headers.get('X-Run-Id')!;
    const stats = (await (
      await call('GET', `${J}/pipeline/runs/${run}/stats`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as Stats;
    expect(stats.children).toHaveLength(4);
    expect(stats.children.map((c) => c.parent_step)).toEqual(['cut', 'up', 'up', 'up']);
    const c = stats.children[1]!;
    expect(Object.keys(c).sort()).toEqual(
      [
        'completed_on',
        'duration',
        'job',
        'job_shortname',
        'name',
        'parent_step',
        'shortname',
        'started_on',
        'status',
      ].sort(),
    );
    expect(c).toMatchObject({ job: 'upper', status: 'success' });
    // children are readable by the top-level run's readers, listed nowhere as standalone runs
    expect(await (await call('GET', `${J}/pipeline/runs/${c.name}/log`, { token: u.token })).text()).toContain(
      'upper 1',
    );
    expect(await (await call('GET', `${J}/upper/runs`, { token: u.token })).json()).toEqual([]);
    // ... and under the child's own job too (jobs-child-runs.test.ts)
    expect(await (await call('GET', `${J}/upper/runs/${c.name}/log`, { token: u.token })).text()).toContain('upper 1');
    const hist = (await (
      await call('GET', `${J}/pipeline/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as unknown[];
    expect(hist).toHaveLength(1);
  });
  it('a failed step fails the chain (502); the child shows failed', async () => {
    const u = await makeUser();
    await makeJob(u, 'bad', `export default { async run() { throw new Error('nope'); } }`);
    await makeJob(u, 'ch', undefined, { 'config/chains': 'bad' });
    const res = await trigger(u.token, `${J}/ch`);
    expect(res.status).toBe(502);
    const { run } = (await res.json()) as { run: string };
    const stats = (await (
      await call('GET', `${J}/ch/runs/${run}/stats`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as Stats;
    expect(stats.children[0]).toMatchObject({ job: 'bad', parent_step: 'bad', status: 'failed' });
    expect(await (await call('GET', `${J}/ch/runs/${run}/log`, { token: u.token })).text()).toContain('step bad');
  });
  it('a ref to a missing job fails the run with a message in the log', async () => {
    const u = await makeUser();
    await makeJob(u, 'dangling', undefined, { 'config/chains': 'ghost' });
    const res = await trigger(u.token, `${J}/dangling`);
    expect(res.status).toBe(502);
    const { run } = (await res.json()) as { run: string };
    expect(await (await call('GET', `${J}/dangling/runs/${run}/log`, { token: u.token })).text()).toContain(
      'no such job: ghost',
    );
  });
  it('a chain that calls itself stops at the nesting limit', async () => {
    const u = await makeUser();
    await makeJob(u, 'loop', undefined, { 'config/chains': 'loop' });
    expect((await trigger(u.token, `${J}/loop`)).status).toBe(502);
  });
  it("@user/job runs another user's job shared with execute access; without it the step fails", async () => {
    const alice = await makeUser();
    const bob = await makeUser();
    await makeJob(bob, 'tool', `export default { async run() { return 'from bob'; } }`);
    await makeJob(alice, 'uses', undefined, { 'config/chains': `t <- @${bob.username}/tool\nt` });
    expect((await trigger(alice.token, `${J}/uses`)).status).toBe(502);
    // bob shares the job with a group where alice is a superuser (execute)
    const ref = await groupWith(bob, alice, 'superusers');
    expect((await call('PUT', `${J}/tool/shared/${ref}`, { token: bob.token })).status).toBe(201);
    const ok = await trigger(alice.token, `${J}/uses`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('from bob');
  });
  it("@user/job needs execute access of the caller who triggers, not only of the chain's owner", async () => {
    const [alice, bob, carol] = await Promise.all([makeUser(), makeUser(), makeUser()]);
    await makeJob(bob, 'tool', `export default { async run() { return 'from bob'; } }`);
    await makeJob(alice, 'uses', undefined, { 'config/chains': `t <- @${bob.username}/tool\nt` });
    expect(
      (await call('PUT', `${J}/tool/shared/${await groupWith(bob, alice, 'superusers')}`, { token: bob.token })).status,
    ).toBe(201);
    expect(
      (await call('PUT', `${J}/uses/shared/${await groupWith(alice, carol, 'admins')}`, { token: alice.token })).status,
    ).toBe(201);
    const via = `/v1/users/${alice.username}/code/jobs/uses`;
    // carol may execute alice's chain, but bob's tool is not shared with her
    const denied = await trigger(carol.token, via);
    expect(denied.status).toBe(502);
    const { run } = (await denied.json()) as { run: string };
    expect(await (await call('GET', `${via}/runs/${run}/log`, { token: carol.token })).text()).toContain(
      `no such job: @${bob.username}/tool`,
    );
    // read access only is not enough either
    expect(
      (await call('PUT', `${J}/tool/shared/${await groupWith(bob, carol, 'members')}`, { token: bob.token })).status,
    ).toBe(201);
    const readOnly = await trigger(carol.token, via);
    expect(readOnly.status).toBe(502);
    const { run: run2 } = (await readOnly.json()) as { run: string };
    expect(await (await call('GET', `${via}/runs/${run2}/log`, { token: carol.token })).text()).toContain(
      `${carol.username} has no execute access to @${bob.username}/tool`,
    );
    // with execute access of her own the step runs
    expect(
      (await call('PUT', `${J}/tool/shared/${await groupWith(bob, carol, 'superusers')}`, { token: bob.token })).status,
    ).toBe(201);
    const ok = await trigger(carol.token, via);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('from bob');
  });
});

describe('https:// steps (a stub server answers the reserved host in tests)', () => {
  const url = (path: string) => `https://${STEP_HOST}${path}`;
  it('an https step receives the input as multipart/form-data, one file part per input file, and its answer is the output', async () => {
    const u = await makeUser();
    await makeJob(u, 'hook', undefined, { 'config/chains': `echo <- ${url('/echo')}\necho` });
    const form = new FormData();
    form.append('x', new File(['alpha'], 'a.csv', { type: 'text/csv' }));
    form.append('y', new File(['beta'], 'b.txt', { type: 'text/plain' }));
    const res = await call('POST', `${J}/hook/data`, { token: u.token, body: form });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Disposition')).toContain('output.json');
    expect(await res.json()).toEqual({
      method: 'POST',
      parts: [
        { field: 'file', name: 'a.csv', type: 'text/csv', text: 'alpha' },
        { field: 'file', name: 'b.txt', type: 'text/plain', text: 'beta' },
      ],
    });
  });
  it('a multipart answer is one output file per part (several zip); a job step can follow', async () => {
    const u = await makeUser();
    await makeJob(u, 'upper', UPPER);
    await makeJob(u, 'hook2', undefined, { 'config/chains': `pair <- ${url('/pair')}\nup <- upper\npair -> .up` });
    const res = await trigger(u.token, `${J}/hook2`);
    expect(res.status).toBe(200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, new TextDecoder().decode(v)]))).toEqual({
      'one.txt': 'FIRST',
      'two.txt': 'SECOND',
    });
  });
  it('a non-2xx answer fails the step and the run (502); the log names the URL and the status', async () => {
    const u = await makeUser();
    await makeJob(u, 'hook3', undefined, { 'config/chains': `down <- ${url('/fail')}\ndown` });
    const res = await trigger(u.token, `${J}/hook3`);
    expect(res.status).toBe(502);
    const { run } = (await res.json()) as { run: string };
    expect(await (await call('GET', `${J}/hook3/runs/${run}/log`, { token: u.token })).text()).toContain(
      `${url('/fail')} answered 500`,
    );
  });
  it('a cancel aborts a pending https step: the run ends canceled at once (409)', async () => {
    const u = await makeUser();
    await makeJob(u, 'hook4', undefined, { 'config/chains': `wait <- ${url('/slow')}\nwait` });
    const data = trigger(u.token, `${J}/hook4`);
    const run = await newestRun(u.token, 'hook4');
    await waitStatus(u.token, `${J}/hook4`, run, (s) => s === 'processing');
    await sleep(100);
    const started = Date.now();
    expect((await call('POST', `${J}/hook4/runs/${run}/status`, { token: u.token, text: 'canceled' })).status).toBe(
      202,
    );
    expect((await data).status).toBe(409);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await (await call('GET', `${J}/hook4/runs/${run}/status`, { token: u.token })).text()).toBe('canceled');
    // the request was aborted (not merely abandoned after the teardown grace)
    expect(await (await call('GET', `${J}/hook4/runs/${run}/log`, { token: u.token })).text()).toContain(
      'teardown completed: step wait: canceled',
    );
  });
});
