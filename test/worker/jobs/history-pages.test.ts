/**
 * stats/runs of a job: unpaged, the whole history (every run, one line each, then the rolled-up days); with ?limit or
 * ?cursor, pages as every listing pages (the Link header), each run once even when runs are added between pages, a
 * page one D1 round trip. Runs are written straight into the local D1 (thousands through the runner would take
 * minutes).
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../src/core/paging';
import { HISTORY_HEADER, historyLine, rolledUpLine, type HistoryRow } from '../../../src/jobs/run/history';
import { call, makeUser, type TestUser } from '../helpers';
import { makeJob } from './fixtures';

const J = '/v1/code/jobs';
const JSON_ACCEPT = { Accept: 'application/json' };

async function jobId(u: TestUser, name: string): Promise<number> {
  await makeJob(u, name);
  return (await env.DB.prepare(
    `SELECT r.id FROM resources r JOIN users u ON u.id = r.owner_id WHERE u.username = ? AND r.name = ?`,
  )
    .bind(u.username, name)
    .first<number>('id'))!;
}

/**
 * `n` finished top-level runs of the job from run `from` on, a second apart (every fifth without a duration, every
 * third failed), and two pairs share a start (the later created lists first).
 */
async function insertRuns(id: number, n: number, from = 0) {
  await env.DB.prepare(
    `WITH RECURSIVE seq(k) AS (SELECT ?3 UNION ALL SELECT k + 1 FROM seq WHERE k < ?3 + ?2 - 1)
     INSERT INTO job_runs (name, shortname, job_id, top, root_job_id, status, trigger, source, created_by, started_on,
       duration)
     SELECT printf('20260101-000000-h%d-%07d', ?1, k), printf('s%d-%07d', ?1, k), ?1, 1, ?1,
       CASE WHEN k % 3 = 0 THEN 'failed' ELSE 'success' END, CASE WHEN k % 2 THEN 'api' ELSE 'schedule' END, 'api', 'x',
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (k - k % 7 / 6) || ' seconds'),
       CASE WHEN k % 5 = 0 THEN NULL ELSE round(k % 97 * 1.37, 2) END
     FROM seq`,
  )
    .bind(id, n, from)
    .run();
}

async function rollUp(id: number, days: [string, string, number][]) {
  await env.DB.batch(
    days.map(([day, status, runs]) =>
      env.DB.prepare(`INSERT INTO job_run_days (job_id, day, status, runs) VALUES (?, ?, ?, ?)`).bind(
        id,
        day,
        status,
        runs,
      ),
    ),
  );
}

type Item = HistoryRow | { day: string; status: string; runs: number; rolled_up: true };
const keyOf = (i: Item) => ('rolled_up' in i ? `${i.day} ${i.status}` : i.name);

/** Every page from `first` on by the Link header, `between(n)` after page n; the items, and the pages' statuses. */
async function walk(u: TestUser, first: string, between?: (n: number) => Promise<void>) {
  const items: Item[] = [];
  let path: string | null = first;
  for (let n = 0; path; n++) {
    const res = await call('GET', path, { token: u.token, headers: JSON_ACCEPT });
    expect(res.status).toBe(200);
    items.push(...((await res.json()) as Item[]));
    const next = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('Link') ?? '')?.[1];
    path = next ? new URL(next).pathname + new URL(next).search : null;
    if (path) await between?.(n);
  }
  return items;
}

describe('stats/runs of a job', () => {
  it('unpaged, the history is every run newest first, one line each, then the rolled-up days', async () => {
    const u = await makeUser();
    const id = await jobId(u, 'whole');
    // More runs than one round trip of the stream reads (5,000): the pages join without a gap or a repeat.
    await insertRuns(id, 5_003);
    await rollUp(id, [
      ['2025-12-01', 'success', 3],
      ['2025-12-01', 'failed', 1],
      ['2025-12-02', 'success', 1],
    ]);
    const rows = (
      await env.DB.prepare(
        `SELECT name, started_on, trigger, duration, status FROM job_runs WHERE job_id = ?
         ORDER BY started_on DESC, id DESC`,
      )
        .bind(id)
        .all<HistoryRow>()
    ).results;
    const days = [
      { day: '2025-12-02', status: 'success', runs: 1, rolled_up: true as const },
      { day: '2025-12-01', status: 'failed', runs: 1, rolled_up: true as const },
      { day: '2025-12-01', status: 'success', runs: 3, rolled_up: true as const },
    ];
    const text = await (await call('GET', `${J}/whole/stats/runs`, { token: u.token })).text();
    expect(text).toBe(HISTORY_HEADER + rows.map(historyLine).join('') + days.map(rolledUpLine).join(''));
    const json = await call('GET', `${J}/whole/stats/runs`, { token: u.token, headers: JSON_ACCEPT });
    expect(json.headers.get('Link')).toBeNull();
    expect(await json.json()).toEqual([...rows, ...days]);
    // A job without runs: the header alone, an empty array.
    await jobId(u, 'none');
    expect(await (await call('GET', `${J}/none/stats/runs`, { token: u.token })).text()).toBe(HISTORY_HEADER);
    expect(await (await call('GET', `${J}/none/stats/runs`, { token: u.token, headers: JSON_ACCEPT })).json()).toEqual(
      [],
    );
  });

  it('paged, every run once in the unpaged order, then the rolled-up days, across the border of the two', async () => {
    const u = await makeUser();
    const id = await jobId(u, 'paged');
    await insertRuns(id, 23);
    await rollUp(id, [
      ['2025-12-01', 'success', 3],
      ['2025-12-02', 'failed', 2],
      ['2025-12-02', 'success', 4],
    ]);
    const whole = (await (
      await call('GET', `${J}/paged/stats/runs`, { token: u.token, headers: JSON_ACCEPT })
    ).json()) as Item[];
    expect(whole).toHaveLength(26);
    for (const limit of [1, 5, 23, 24, 26, 1000])
      expect((await walk(u, `${J}/paged/stats/runs?limit=${limit}`)).map(keyOf), `limit ${limit}`).toEqual(
        whole.map(keyOf),
      );
    // The text of a page: the header and its lines; the Link header names the next page.
    const res = await call('GET', `${J}/paged/stats/runs?limit=2`, { token: u.token });
    const lines = (await res.text()).split('\n');
    expect(lines).toHaveLength(4);
    expect(`${lines[0]}\n`).toBe(HISTORY_HEADER);
    expect(lines[1]).toContain((whole[0] as HistoryRow).name);
    expect(res.headers.get('Link')).toMatch(/^<.*\/stats\/runs\?limit=2&cursor=[\w-]+>; rel="next"$/);
  });

  it('runs added between pages neither repeat nor shift what follows (they are newer than the cursor)', async () => {
    const u = await makeUser();
    const id = await jobId(u, 'growing');
    await insertRuns(id, 20);
    await rollUp(id, [['2025-12-01', 'success', 3]]);
    const before = (await (
      await call('GET', `${J}/growing/stats/runs`, { token: u.token, headers: JSON_ACCEPT })
    ).json()) as Item[];
    let added = 20;
    const seen = await walk(u, `${J}/growing/stats/runs?limit=4`, async () => {
      await insertRuns(id, 3, added); // newer than every run listed so far
      added += 3;
    });
    expect(seen.map(keyOf)).toEqual(before.map(keyOf));
    // The next walk has them all, newest first.
    const after = await walk(u, `${J}/growing/stats/runs?limit=7`);
    expect(after.length).toBe(added + 1);
    expect(new Set(after.map(keyOf)).size).toBe(after.length);
  });

  it('a page is one D1 round trip after the job is loaded, at any depth; a cursor of another listing is a 400', async () => {
    const u = await makeUser();
    const id = await jobId(u, 'trips');
    await insertRuns(id, 40);
    await rollUp(id, [['2025-12-01', 'success', 3]]);
    const trips = async (path: string) => {
      const res = await call('GET', path, { token: u.token });
      await res.text();
      return Number(/d1;desc="(\d+) round trips?"/.exec(res.headers.get('Server-Timing') ?? '')?.[1]);
    };
    await trips(`${J}/trips/runs?limit=10`); // the token is read once, then cached
    const runs = await trips(`${J}/trips/runs?limit=10`); // the run listing: the job, then one page
    expect(await trips(`${J}/trips/stats/runs?limit=10`)).toBe(runs);
    expect(await trips(`${J}/trips/stats/runs?cursor=${encodeCursor([1, '2025-12-02', 'a'])}`)).toBe(runs);
    for (const bad of ['?limit=0', '?limit=1001', `?cursor=${encodeCursor(['x', 1])}`, `?cursor=${encodeCursor([2])}`])
      expect((await call('GET', `${J}/trips/stats/runs${bad}`, { token: u.token })).status, bad).toBe(400);
  });
});
