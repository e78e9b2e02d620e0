import { unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { call, makeUser, OPS } from '../helpers';
import { makeJob, putCode, trigger, waitStatus } from './fixtures';

const J = '/v1/code/jobs';

describe('POST data runs code/index.js in a sandbox and answers the result', () => {
  it('a string return is output.txt with X-Run-Id; ctx.log writes the run log', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'hello',
      `export default { async run(input, ctx) { const j = JSON.parse(await input[0].text()); ctx.log('got ' + input[0].name); return 'hi ' + j.who; } }`,
    );
    const res = await trigger(u.token, `${J}/hello`, { who: 'bob' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hi bob');
    expect(res.headers.get('Content-Type')).toContain('text/plain');
    expect(res.headers.get('Content-Disposition')).toContain('output.txt');
    const run = res.headers.get('X-Run-Id')!;
    expect(run).toMatch(/^\d{8}-\d{6}-[a-z0-9]+$/);
    expect(await (await call('GET', `${J}/hello/runs/${run}/log`, { token: u.token })).text()).toContain(
      'INFO got input.json',
    );
    expect(await (await call('GET', `${J}/hello/runs/${run}/status`, { token: u.token })).text()).toBe('success');
  });
  it('a JSON value is output.json; a File is returned with its name and type', async () => {
    const u = await makeUser();
    await makeJob(u, 'j', `export default { async run() { return { a: [1, 2] }; } }`);
    const res = await trigger(u.token, `${J}/j`);
    expect(res.headers.get('Content-Disposition')).toContain('output.json');
    expect(await res.json()).toEqual({ a: [1, 2] });
    await makeJob(
      u,
      'f',
      `export default { async run() { return new File(['<b>x</b>'], 'page.html', { type: 'text/html' }); } }`,
    );
    const f = await trigger(u.token, `${J}/f`);
    expect(f.headers.get('Content-Type')).toBe('text/html');
    expect(f.headers.get('Content-Disposition')).toContain('page.html');
    expect(await f.text()).toBe('<b>x</b>');
  });
  it('several files are bundled into one zip', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'z',
      `export default { async run() { return [new File(['1'], 'a.txt'), new File(['2'], 'b.txt')]; } }`,
    );
    const res = await trigger(u.token, `${J}/z`);
    expect(res.headers.get('Content-Type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['a.txt', 'b.txt']);
    // the stored output is the same bundle
    const out = await call('GET', `${J}/z/runs/${res.headers.get('X-Run-Id')}/output`, { token: u.token });
    expect(Object.keys(unzipSync(new Uint8Array(await out.arrayBuffer()))).sort()).toEqual(['a.txt', 'b.txt']);
  });
  it('small outputs live with the run, large ones in R2: both read back whole', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'big',
      `export default { async run(input) { const n = JSON.parse(await input[0].text()).n; return 'y'.repeat(n); } }`,
    );
    for (const n of [10, 300_000]) {
      const res = await trigger(u.token, `${J}/big`, { n });
      expect((await res.text()).length).toBe(n);
      const out = await call('GET', `${J}/big/runs/${res.headers.get('X-Run-Id')}/output`, { token: u.token });
      expect((await out.text()).length).toBe(n);
    }
  });
  it('no output answers 204 with X-Run-Id, and the output entry answers 204', async () => {
    const u = await makeUser();
    await makeJob(u, 'n', `export default { async run() {} }`);
    const res = await trigger(u.token, `${J}/n`);
    expect(res.status).toBe(204);
    const run = res.headers.get('X-Run-Id')!;
    expect((await call('GET', `${J}/n/runs/${run}/output`, { token: u.token })).status).toBe(204);
  });
  it('a thrown error fails the run: 502 with a generic {status, message, run, log}; the reason is in the log', async () => {
    const u = await makeUser();
    await makeJob(u, 'boom', `export default { async run() { throw new Error('disk on fire'); } }`);
    const res = await trigger(u.token, `${J}/boom`);
    expect(res.status).toBe(502);
    const body = (await res.json()) as { status: number; message: string; run: string; log: string };
    expect(body.status).toBe(502);
    expect(body.message).not.toContain('disk on fire');
    expect(body.run).toBe(res.headers.get('X-Run-Id'));
    // the answer names where the reason is
    expect(body.log).toBe(`${J}/boom/runs/${body.run}/log`);
    expect(body.message).toBe(`the run failed: read its log, GET ${body.log}`);
    expect(await (await call('GET', `${J}/boom/runs/${body.run}/status`, { token: u.token })).text()).toBe('failed');
    expect(await (await call('GET', body.log, { token: u.token })).text()).toContain('disk on fire');
    expect((await call('GET', `${J}/boom/runs/${body.run}/output`, { token: u.token })).status).toBe(204);
  });
  it('a log entry is always one line: line breaks in a message read as ⏎', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'lines',
      `export default { run(input, ctx) { ctx.log('first\\nsecond\\r\\nthird'); throw new Error('a\\nb'); } }`,
    );
    const res = await trigger(u.token, `${J}/lines`);
    const { log } = (await res.json()) as { log: string };
    const text = await (await call('GET', log, { token: u.token })).text();
    expect(text).toContain('first ⏎ second ⏎ third');
    for (const line of text.split('\n').filter(Boolean)) expect(line).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
  it('a job without code/index.js fails and says so in the log', async () => {
    const u = await makeUser();
    await makeJob(u, 'empty');
    const res = await trigger(u.token, `${J}/empty`);
    expect(res.status).toBe(502);
    const { run } = (await res.json()) as { run: string };
    expect(await (await call('GET', `${J}/empty/runs/${run}/log`, { token: u.token })).text()).toContain(
      'no code/index.js',
    );
  });
  it('ctx.env holds the env values; the sandbox has no network by default', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'envy',
      `export default { async run(i, ctx) { let net = 'ok'; try { await fetch('https://example.com'); } catch (e) { net = 'blocked'; } return { key: ctx.env.API_KEY, net, bindings: typeof DB }; } }`,
    );
    expect((await call('POST', `${J}/envy/config/env/API_KEY`, { token: u.token, text: 's3cret' })).status).toBe(204);
    const res = await trigger(u.token, `${J}/envy`);
    expect(await res.json()).toEqual({ key: 's3cret', net: 'blocked', bindings: 'undefined' });
  });
  it("the sandbox has no platform bindings: ctx carries only env, log and signal; ctx.env only the job's env values; no binding is reachable", async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'probe',
      `import * as cfw from 'cloudflare:workers';
      export default { async run(i, ctx) {
        const names = ['DB', 'BLOBS', 'RUNS', 'MAILS', 'LOADER', 'BROWSER', 'SEND_EMAIL', 'OPS_TOKEN'];
        const workerEnv = cfw.env ?? {};
        return { ctx: Object.keys(ctx).sort(), env: Object.keys(ctx.env), globals: names.filter((n) => n in globalThis), workerEnv: Object.keys(workerEnv) };
      } }`,
    );
    expect((await call('POST', `${J}/probe/config/env/ONLY_THIS`, { token: u.token, text: 'x' })).status).toBe(204);
    const res = await trigger(u.token, `${J}/probe`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ctx: ['env', 'log', 'signal'], env: ['ONLY_THIS'], globals: [], workerEnv: [] });
  });
  it('code may import its other code files', async () => {
    const u = await makeUser();
    await makeJob(u, 'mods', `import { twice } from './lib.js'; export default { async run() { return twice(21); } }`);
    await putCode(u, 'mods', 'lib.js', 'export const twice = (x) => x * 2;');
    expect(await (await trigger(u.token, `${J}/mods`)).json()).toBe(42);
  });
  it('replacing code/index.js takes effect on the next run', async () => {
    const u = await makeUser();
    await makeJob(u, 'v', `export default { async run() { return 'one'; } }`);
    expect(await (await trigger(u.token, `${J}/v`)).text()).toBe('one');
    await putCode(u, 'v', 'index.js', `export default { async run() { return 'two'; } }`);
    expect(await (await trigger(u.token, `${J}/v`)).text()).toBe('two');
  });
});

describe('trigger input', () => {
  const echo = `export default { async run(input) { return input.map((f) => f.name + ':' + f.type.split(';')[0]).join(','); } }`;
  it('a JSON body is stored as input.json', async () => {
    const u = await makeUser();
    await makeJob(u, 'echo', echo);
    expect(await (await trigger(u.token, `${J}/echo`, [1])).text()).toBe('input.json:application/json');
  });
  it('a multipart upload stores each file with its original name', async () => {
    const u = await makeUser();
    await makeJob(u, 'echo', echo);
    const form = new FormData();
    form.append('a', new File(['x'], 'report.csv', { type: 'text/csv' }));
    form.append('b', new File(['y'], 'pic.png', { type: 'image/png' }));
    const res = await call('POST', `${J}/echo/data`, { token: u.token, body: form });
    expect(await res.text()).toBe('report.csv:text/csv,pic.png:image/png');
  });
  const SEND = 'send a JSON document (application/json) or files (multipart/form-data)';
  const EMPTY = `the body is empty: ${SEND}`;
  const NOT_JSON = `the body is not a JSON document: ${SEND}`;
  const takes = (type: string) =>
    `POST data takes Content-Type application/json (a JSON document) or multipart/form-data (files), got ${type}`;
  it.each([
    ['an empty JSON body', '', 'application/json', 400, EMPTY],
    ['a non-JSON body', '{nope', 'application/json', 400, NOT_JSON],
    ['no body at all', undefined, undefined, 400, EMPTY],
    ['a JSON body with a charset that is not JSON', '{nope', 'application/json; charset=utf-8', 400, NOT_JSON],
    ['a text/plain body that is not JSON', 'hello', 'text/plain', 415, takes('text/plain')],
    [
      'a form-urlencoded body',
      'a=b',
      'application/x-www-form-urlencoded',
      415,
      takes('application/x-www-form-urlencoded'),
    ],
    ['a body of another type that is empty', ' ', 'text/plain', 415, takes('text/plain')],
  ])(
    'empty or non-JSON body → 400 (spec error table), other content types 415: %s answers %s and starts no run',
    async (_what, body, type, code, message) => {
      const u = await makeUser();
      await makeJob(u, 'echo', echo);
      const res = await call('POST', `${J}/echo/data`, { token: u.token, body, type });
      expect(res.status).toBe(code);
      expect(((await res.json()) as { message: string }).message).toBe(message);
      expect(await (await call('GET', `${J}/echo/runs`, { token: u.token })).json()).toEqual([]);
    },
  );
  it('a JSON document is input.json when sent as application/json, with any charset', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'echo',
      `export default { async run(input) { return input[0].name + ' ' + (await input[0].text()); } }`,
    );
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      const res = await call('POST', `${J}/echo/data`, { token: u.token, body: '{"a":1}', type });
      expect(res.status, type).toBe(200);
      expect(await res.text()).toBe('input.json {"a":1}');
    }
  });
  it('the 400 messages say what is wrong: empty versus not JSON', async () => {
    const u = await makeUser();
    await makeJob(u, 'echo', echo);
    const empty = (await (
      await call('POST', `${J}/echo/data`, { token: u.token, body: '', type: 'application/json' })
    ).json()) as { message: string };
    expect(empty.message).toMatch(/^the body is empty/);
    const bad = (await (
      await call('POST', `${J}/echo/data`, { token: u.token, body: 'a=b', type: 'application/json' })
    ).json()) as { message: string };
    expect(bad.message).toMatch(/^the body is not a JSON document/);
  });
  it('a malformed multipart body answers 400', async () => {
    const u = await makeUser();
    await makeJob(u, 'echo', echo);
    const res = await call('POST', `${J}/echo/data`, {
      token: u.token,
      body: 'garbage',
      type: 'multipart/form-data; boundary=zzz',
    });
    expect(res.status).toBe(400);
  });
});

describe('run entries, listing, stats and history', () => {
  it('GET runs lists at most 30 runs, newest first, in the listing shape', async () => {
    const u = await makeUser();
    await makeJob(u, 'many', `export default { async run() { return 'x'; } }`);
    const names: string[] = [];
    for (let i = 0; i < 31; i++) names.push((await trigger(u.token, `${J}/many`)).headers.get('X-Run-Id')!);
    const res = await call('GET', `${J}/many/runs`, { token: u.token });
    expect(res.headers.get('X-NVM-Type')).toBe('dir');
    const list = (await res.json()) as Record<string, unknown>[];
    expect(list).toHaveLength(30);
    expect(list.map((x) => x.name)).toEqual(names.slice(1).reverse());
    expect(list[0]).toEqual({
      name: names[30],
      uri: `${J}/many/runs/${names[30]}`,
      type: 'dir',
      permissions: ['r', 'w', 'd'],
      actions: ['GET', 'POST'],
      created_on: expect.stringMatching(/Z$/),
      last_modified: expect.stringMatching(/Z$/),
    });
    // history is uncapped
    const hist = (await (
      await call('GET', `${J}/many/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as { name: string }[];
    expect(hist).toHaveLength(31);
    expect(hist[0]!.name).toBe(names[30]);
    const text = await (await call('GET', `${J}/many/stats/runs`, { token: u.token })).text();
    expect(text.trim().split('\n')).toHaveLength(32);
  }, 180_000);
  it('a run folder lists log, output, stats, status', async () => {
    const u = await makeUser();
    await makeJob(u, 'r', `export default { async run() { return 'x'; } }`);
    const run = (await trigger(u.token, `${J}/r`)).headers.get('X-Run-Id')!;
    const list = (await (await call('GET', `${J}/r/runs/${run}`, { token: u.token })).json()) as { name: string }[];
    expect(list.map((x) => x.name)).toEqual(['log', 'output', 'stats', 'status']);
  });
  it('stats: text key: value, JSON with every field of the spec', async () => {
    const u = await makeUser();
    await makeJob(u, 'st', `export default { async run() { return 'x'; } }`);
    const run = (await call('POST', `${J}/st/data?source=cli`, { token: u.token, json: {} })).headers.get('X-Run-Id')!;
    const json = (await (
      await call('GET', `${J}/st/runs/${run}/stats`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(
      [
        'children',
        'completed_on',
        'created_by',
        'duration',
        'has_output',
        'name',
        'origin',
        'origin_shortname',
        'shortname',
        'source',
        'started_on',
        'status',
        'trigger',
      ].sort(),
    );
    expect(json).toMatchObject({
      name: run,
      status: 'success',
      origin: 'st',
      trigger: 'api',
      source: 'cli',
      has_output: true,
      created_by: u.username,
      children: [],
    });
    expect(typeof json.duration).toBe('number');
    const text = await (await call('GET', `${J}/st/runs/${run}/stats`, { token: u.token })).text();
    expect(text).toContain(`name: ${run}\n`);
    expect(text).toMatch(/duration: \d+\.\d\d\n/);
  });
  it('log as JSON entries {log_time, severity, message}; GET log is the latest run; an empty log is an empty 200', async () => {
    const u = await makeUser();
    await makeJob(u, 'lg', `export default { async run(i, ctx) { ctx.log('careful', 'warning'); } }`);
    const empty = await call('GET', `${J}/lg/log`, { token: u.token });
    expect(empty.status).toBe(200);
    expect(await empty.text()).toBe('');
    await trigger(u.token, `${J}/lg`);
    const run = (await trigger(u.token, `${J}/lg`)).headers.get('X-Run-Id')!;
    const entries = (await (
      await call('GET', `${J}/lg/runs/${run}/log`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as Record<string, string>[];
    expect(entries.find((e) => e.message === 'careful')).toMatchObject({
      severity: 'warning',
      log_time: expect.stringMatching(/Z$/),
    });
    const latest = await (await call('GET', `${J}/lg/log`, { token: u.token })).text();
    expect(latest).toContain(run.split('-')[2] ? 'careful' : '');
    expect(latest).toBe(await (await call('GET', `${J}/lg/runs/${run}/log`, { token: u.token })).text());
  });
  it('unknown runs answer 404', async () => {
    const u = await makeUser();
    await makeJob(u, 'nr');
    expect((await call('GET', `${J}/nr/runs/20260101-000000-abcdef/status`, { token: u.token })).status).toBe(404);
    expect((await call('GET', `${J}/nr/runs/bogus/stats`, { token: u.token })).status).toBe(404);
  });
});

describe('30-day retention', () => {
  afterEach(async () => {
    await call('POST', '/v1/ops/clock', { token: OPS, json: { offset_ms: 0 } });
  });
  it('log and output answer 410 after 30 days; listing, stats and status stay', async () => {
    const u = await makeUser();
    await makeJob(u, 'old', `export default { async run() { return 'x'; } }`);
    const run = (await trigger(u.token, `${J}/old`)).headers.get('X-Run-Id')!;
    expect(
      (await call('POST', '/v1/ops/clock', { token: OPS, json: { offset_ms: 31 * 24 * 3600 * 1000 } })).status,
    ).toBe(204);
    expect((await call('GET', `${J}/old/runs/${run}/log`, { token: u.token })).status).toBe(410);
    expect((await call('GET', `${J}/old/runs/${run}/output`, { token: u.token })).status).toBe(410);
    expect((await call('GET', `${J}/old/log`, { token: u.token })).status).toBe(410);
    expect((await call('GET', `${J}/old/runs/${run}/status`, { token: u.token })).status).toBe(200);
    expect((await call('GET', `${J}/old/runs/${run}/stats`, { token: u.token })).status).toBe(200);
    expect(((await (await call('GET', `${J}/old/runs`, { token: u.token })).json()) as unknown[]).length).toBe(1);
  });
});

describe('job entries', () => {
  it('a job is created, listed, has the entries of docs/areas/jobs.md, and PUT twice is 409', async () => {
    const u = await makeUser();
    await makeJob(u, 'ent');
    expect((await call('PUT', `${J}/ent`, { token: u.token })).status).toBe(409);
    const list = (await (await call('GET', J, { token: u.token })).json()) as { name: string }[];
    expect(list.map((x) => x.name)).toContain('ent');
    const root = (await (await call('GET', `${J}/ent`, { token: u.token })).json()) as { name: string }[];
    for (const e of ['code', 'config', 'data', 'description', 'log', 'name', 'runs', 'shared', 'stats', 'tags'])
      expect(root.map((x) => x.name)).toContain(e);
    expect(await (await call('GET', `${J}/ent/config/enabled`, { token: u.token })).text()).toBe('true');
  });
  it('config/chains is validated by the chain grammar (400, nothing stored)', async () => {
    const u = await makeUser();
    await makeJob(u, 'ch');
    const bad = await call('POST', `${J}/ch/config/chains`, { token: u.token, text: 'a -> b\nb -> a' });
    expect(bad.status).toBe(400);
    expect(await (await call('GET', `${J}/ch/config/chains`, { token: u.token })).text()).toBe('');
    expect((await call('POST', `${J}/ch/config/chains`, { token: u.token, text: 'x <- other\nx -> .y' })).status).toBe(
      204,
    );
  });
  it('config/schedule and config/enabled are validated', async () => {
    const u = await makeUser();
    await makeJob(u, 'sc');
    expect((await call('POST', `${J}/sc/config/schedule`, { token: u.token, text: 'every minute' })).status).toBe(400);
    expect(
      (await call('POST', `${J}/sc/config/schedule`, { token: u.token, text: 'TZ=Europe/Paris 0 9 * * * # mornings' }))
        .status,
    ).toBe(204);
    expect((await call('POST', `${J}/sc/config/enabled`, { token: u.token, text: 'perhaps' })).status).toBe(400);
  });
  it('env values are write-only: the listing shows names, never values', async () => {
    const u = await makeUser();
    await makeJob(u, 'ev');
    await call('POST', `${J}/ev/config/env/TOKEN`, { token: u.token, text: 'hidden' });
    const list = await (await call('GET', `${J}/ev/config/env`, { token: u.token })).text();
    expect(list).toContain('TOKEN');
    expect(list).not.toContain('hidden');
    expect((await call('GET', `${J}/ev/config/env/TOKEN`, { token: u.token })).status).toBe(403);
    expect((await call('POST', `${J}/ev/config/env/bad-name`, { token: u.token, text: 'x' })).status).toBe(400);
    expect((await call('DELETE', `${J}/ev/config/env/TOKEN`, { token: u.token })).status).toBe(204);
    expect(await (await call('GET', `${J}/ev/config/env`, { token: u.token })).json()).toEqual([]);
  });
  it('code files: POST creates or replaces, GET reads, listing, DELETE; bad names 400; too large 413', async () => {
    const u = await makeUser();
    await makeJob(u, 'cf');
    await putCode(u, 'cf', 'index.js', 'export default {}');
    expect(await (await call('GET', `${J}/cf/code/index.js`, { token: u.token })).text()).toBe('export default {}');
    expect(
      ((await (await call('GET', `${J}/cf/code`, { token: u.token })).json()) as { name: string }[]).map((x) => x.name),
    ).toEqual(['index.js']);
    expect(
      (await call('POST', `${J}/cf/code/..%2Fx`, { token: u.token, body: 'x', type: 'text/javascript' })).status,
    ).toBe(400);
    expect(
      (
        await call('POST', `${J}/cf/code/big.js`, {
          token: u.token,
          body: 'x'.repeat(1024 * 1024 + 1),
          type: 'text/javascript',
        })
      ).status,
    ).toBe(413);
    expect((await call('DELETE', `${J}/cf/code/index.js`, { token: u.token })).status).toBe(204);
    expect((await call('GET', `${J}/cf/code/index.js`, { token: u.token })).status).toBe(404);
  });
  it('a copy carries code but never env values', async () => {
    const u = await makeUser();
    await makeJob(u, 'src', `export default { async run(i, ctx) { return String(ctx.env.K); } }`);
    await call('POST', `${J}/src/config/env/K`, { token: u.token, text: 'v' });
    expect((await call('PATCH', `${J}/src`, { token: u.token, json: { name: 'dst', copy: true } })).status).toBe(201);
    expect(await (await trigger(u.token, `${J}/dst`)).text()).toBe('undefined');
  });
});

describe('lastRuns (for GraphQL)', () => {
  it('answers the latest top-level run of each job in one call; jobs without runs are absent', async () => {
    const { env } = await import('cloudflare:workers');
    const { dbFor } = await import('../../../src/core/context');
    const { lastRuns } = await import('../../../src/jobs/run/reads');
    const { resources, users } = await import('../../../src/db/schema');
    const { and, eq, inArray } = await import('drizzle-orm');
    const u = await makeUser();
    await makeJob(u, 'lr_a', `export default { async run() { return 'x'; } }`);
    await makeJob(u, 'lr_b', `export default { async run() { throw new Error('no'); } }`);
    await makeJob(u, 'lr_c');
    await trigger(u.token, `${J}/lr_a`);
    await trigger(u.token, `${J}/lr_b`);
    const db = dbFor(env);
    const mine = await db
      .select({ id: resources.id, name: resources.name })
      .from(resources)
      .innerJoin(users, eq(users.id, resources.owner_id))
      .where(and(eq(users.username, u.username), inArray(resources.name, ['lr_a', 'lr_b', 'lr_c'])));
    const ids = Object.fromEntries(mine.map((r) => [r.name, r.id]));
    const last = await lastRuns(
      db,
      mine.map((r) => r.id),
    );
    expect(last.get(ids.lr_a!)).toMatchObject({
      status: 'success',
      started_on: expect.stringMatching(/Z$/),
      duration: expect.any(Number),
    });
    expect(last.get(ids.lr_b!)?.status).toBe('failed');
    expect(last.has(ids.lr_c!)).toBe(false);
  });
});

describe('the sandbox is named by the content of the code', () => {
  it('re-uploading identical code keeps the warm isolate; changed code gets a fresh one', async () => {
    const u = await makeUser();
    // A module-level counter tells whether a run reused the isolate of the previous one.
    const code = `let n = 0; export default { run() { n++; return String(n); } }`;
    await makeJob(u, 'counter', code);
    expect(await (await trigger(u.token, `${J}/counter`)).text()).toBe('1');
    expect(await (await trigger(u.token, `${J}/counter`)).text()).toBe('2');
    await putCode(u, 'counter', 'index.js', code);
    expect(await (await trigger(u.token, `${J}/counter`)).text()).toBe('3');
    await putCode(u, 'counter', 'index.js', `${code}\n// changed`);
    expect(await (await trigger(u.token, `${J}/counter`)).text()).toBe('1');
  });
});

describe('Prefer: respond-async', () => {
  it('answers 202 at once with the run, its status as Location, while the run goes on to its end', async () => {
    const u = await makeUser();
    // 400 ms of work: the 202 answers long before the run ends.
    await makeJob(
      u,
      'slow',
      `export default { async run() { await new Promise((r) => setTimeout(r, 400)); return 'done'; } }`,
    );
    const res = await call('POST', `${J}/slow/data`, {
      token: u.token,
      json: {},
      headers: { Prefer: 'respond-async, wait=1' },
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('Preference-Applied')).toBe('respond-async');
    const body = (await res.json()) as { run: string; status: string; location: string };
    expect(body.run).toBe(res.headers.get('X-Run-Id'));
    expect(body.location).toBe(`${J}/slow/runs/${body.run}/status`);
    expect(res.headers.get('Location')).toBe(body.location);
    // the run exists as the 202 answers: processing, then success with its output
    expect(await (await call('GET', body.location, { token: u.token })).text()).toBe('processing');
    expect(await waitStatus(u.token, `${J}/slow`, body.run, (s) => s === 'success')).toBe('success');
    expect(await (await call('GET', `${J}/slow/runs/${body.run}/output`, { token: u.token })).text()).toBe('done');
  });
  it('without the preference the trigger answers when the run ends, as before', async () => {
    const u = await makeUser();
    await makeJob(u, 'quick', `export default { run() { return 'now'; } }`);
    const res = await call('POST', `${J}/quick/data`, {
      token: u.token,
      json: {},
      headers: { Prefer: 'return=minimal' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('now');
  });
});

describe('code is checked when it is written', () => {
  it('a .js file that does not parse is 400 naming line and column, and the code stays as it was', async () => {
    const u = await makeUser();
    await makeJob(u, 'checked', `export default { run() { return 'ok'; } }`);
    const res = await call('POST', `${J}/checked/code/index.js`, {
      token: u.token,
      body: 'export default {\n  run() { return 1 +; }\n}',
      type: 'text/javascript',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 'validation_failed',
      message: 'code/index.js: line 2, column 21: Unexpected token',
      line: 2,
      column: 21,
    });
    expect(await (await trigger(u.token, `${J}/checked`)).text()).toBe('ok');
    // other files are not JavaScript: stored as they are
    const data = await call('POST', `${J}/checked/code/data.json`, {
      token: u.token,
      body: '{not json',
      type: 'application/json',
    });
    expect(data.status).toBe(204);
  });
});
