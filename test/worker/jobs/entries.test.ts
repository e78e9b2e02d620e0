/**
 * Smaller rules of the jobs area: `config` lists the `env/` folder (names only), POST data
 * takes application/json or multipart/form-data only (415 otherwise, no run recorded),
 * and runs list newest first to the millisecond, ties by creation order.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call, makeUser } from '../helpers';
import { groupWith, makeJob } from './fixtures';

const J = '/v1/code/jobs';
const json = { Accept: 'application/json' };

describe('config lists the env/ folder', () => {
  it('GET config lists env/ beside chains, enabled, network, schedule and type; GET config/env lists names, never values', async () => {
    const u = await makeUser();
    await makeJob(u, 'envjob', `export default { async run() {} }`);
    expect(
      (await call('POST', `${J}/envjob/config/env/API_KEY`, { token: u.token, text: 'sekrit-value' })).status,
    ).toBe(204);
    const res = await call('GET', `${J}/envjob/config`, { token: u.token });
    const text = await res.text();
    const listing = JSON.parse(text) as { name: string; type: string; uri: string }[];
    expect(listing.map((e) => e.name)).toEqual(['chains', 'enabled', 'env', 'network', 'schedule', 'type']);
    expect(listing.find((e) => e.name === 'env')).toMatchObject({ type: 'dir', uri: `${J}/envjob/config/env` });
    expect(text).not.toContain('sekrit');
    const names = await (await call('GET', `${J}/envjob/config/env`, { token: u.token })).text();
    expect((JSON.parse(names) as { name: string }[]).map((e) => e.name)).toEqual(['API_KEY']);
    expect(names).not.toContain('sekrit');
    // the root listing is unchanged: config is one folder there
    const root = (await (await call('GET', `${J}/envjob`, { token: u.token })).json()) as { name: string }[];
    expect(root.map((e) => e.name)).not.toContain('config/env');
    expect(root.map((e) => e.name)).toContain('config');
  });
});

describe('POST data content types', () => {
  const echo = `export default { async run(input) { return input.map((f) => f.name).join(','); } }`;

  it.each([
    ['a JSON text sent as text/plain', '{"a":1}', 'text/plain'],
    ['a JSON text sent as text/plain with a charset', '{"a":1}', 'text/plain; charset=utf-8'],
    ['a form-urlencoded body', 'a=1', 'application/x-www-form-urlencoded'],
    ['an octet stream', '{"a":1}', 'application/octet-stream'],
  ])('%s answers 415 naming both accepted types, and records no run', async (_what, body, type) => {
    const u = await makeUser();
    await makeJob(u, 'typed', echo);
    const res = await call('POST', `${J}/typed/data`, { token: u.token, body, type });
    expect(res.status).toBe(415);
    const { message } = (await res.json()) as { message: string };
    expect(message).toContain('application/json');
    expect(message).toContain('multipart/form-data');
    expect(await (await call('GET', `${J}/typed/runs`, { token: u.token })).json()).toEqual([]);
  });

  it('a body without a Content-Type answers 415 too; no body at all is the empty body (400)', async () => {
    const u = await makeUser();
    await makeJob(u, 'typed', echo);
    const bytes = new TextEncoder().encode('{"a":1}');
    expect((await call('POST', `${J}/typed/data`, { token: u.token, body: bytes })).status).toBe(415);
    expect((await call('POST', `${J}/typed/data`, { token: u.token })).status).toBe(400);
    expect(await (await call('GET', `${J}/typed/runs`, { token: u.token })).json()).toEqual([]);
  });

  it('a reader without execute access sending another content type gets 415 and no rejected run is recorded', async () => {
    const owner = await makeUser();
    const reader = await makeUser();
    await makeJob(owner, 'typed', echo);
    const ref = await groupWith(owner, reader, 'members');
    expect((await call('PUT', `${J}/typed/shared/${ref}`, { token: owner.token })).status).toBe(201);
    const res = await call('POST', `/v1/users/${owner.username}/code/jobs/typed/data`, {
      token: reader.token,
      body: '{}',
      type: 'text/plain',
    });
    expect(res.status).toBe(415);
    expect(await (await call('GET', `${J}/typed/runs`, { token: owner.token })).json()).toEqual([]);
  });
});

describe('runs list newest first to the millisecond, ties by creation order', () => {
  /** Rows as D1 holds them; inserted in this order (creation order), whatever their start times. */
  async function seed(
    owner: string,
    job: string,
    runs: { name: string; started: string; status: string }[],
  ): Promise<void> {
    const row = await env.DB.prepare(
      `SELECT r.id FROM resources r JOIN users u ON u.id = r.owner_id WHERE u.username = ? AND r.name = ? AND r.kind = 'job'`,
    )
      .bind(owner, job)
      .first<{ id: number }>();
    for (const r of runs) {
      await env.DB.prepare(
        `INSERT INTO job_runs (name, shortname, job_id, top, parent_id, root_job_id, parent_step, status, trigger, source, created_by, started_on, completed_on, duration)
         VALUES (?, ?, ?, 1, NULL, ?, NULL, ?, 'api', 'api', ?, ?, ?, 0)`,
      )
        .bind(r.name, `s${r.name.slice(-8)}`, row!.id, row!.id, r.status, owner, r.started, r.started)
        .run();
    }
  }

  it('runs/, stats/runs and GraphQL last_run agree: a later start first even when created earlier; equal starts by creation, the later created first', async () => {
    const u = await makeUser();
    await makeJob(u, 'ordered', `export default { async run() {} }`);
    const tag = Math.random().toString(36).slice(2, 8);
    // all four in the same second
    const runs = [
      { name: `20260101-000000-${tag}aa`, started: '2026-01-01T00:00:00.500Z', status: 'success' },
      { name: `20260101-000000-${tag}bb`, started: '2026-01-01T00:00:00.100Z', status: 'failed' },
      { name: `20260101-000000-${tag}cc`, started: '2026-01-01T00:00:00.300Z', status: 'failed' },
      { name: `20260101-000000-${tag}dd`, started: '2026-01-01T00:00:00.300Z', status: 'canceled' },
    ];
    await seed(u.username, 'ordered', runs);
    const want = [runs[0]!.name, runs[3]!.name, runs[2]!.name, runs[1]!.name];
    const listed = (await (await call('GET', `${J}/ordered/runs`, { token: u.token })).json()) as { name: string }[];
    expect(listed.map((r) => r.name)).toEqual(want);
    const history = (await (
      await call('GET', `${J}/ordered/stats/runs`, { token: u.token, headers: json })
    ).json()) as { name: string }[];
    expect(history.map((r) => r.name)).toEqual(want);
    const table = await (await call('GET', `${J}/ordered/stats/runs`, { token: u.token })).text();
    expect(
      table
        .split('\n')
        .slice(1, 5)
        .map((l) => l.split(' ')[0]),
    ).toEqual(want);
    const gql = (await (
      await call('POST', '/gql', { token: u.token, json: { query: '{ jobs { id last_run { status started_on } } }' } })
    ).json()) as {
      data: { jobs: { id: string; last_run: { status: string; started_on: string } | null }[] };
    };
    expect(gql.data.jobs.find((j) => j.id === 'ordered')!.last_run).toEqual({
      status: 'success',
      started_on: runs[0]!.started,
    });
  });
});
