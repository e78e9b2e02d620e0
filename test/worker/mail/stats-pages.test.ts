/**
 * stats/runs of an e-mail pages as every listing pages (?limit, ?cursor, the Link header), by the same mechanism as a
 * job's history (core/paging.ts, a listing in two parts): the rolled-up days, then the sends oldest first, each once,
 * sends recorded between pages last; unpaged it is the whole history. Rows are written straight into the local D1.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call, makeUser, type TestUser } from '../helpers';
import { newMail } from './fixtures';

const JSON_ACCEPT = { Accept: 'application/json' };

/** `n` sends of the e-mail, a minute apart from `from` on (every third partial). */
async function insertSends(mailId: number, n: number, from = 0) {
  await env.DB.batch(
    Array.from({ length: n }, (_, i) =>
      env.DB.prepare(
        `INSERT INTO mail_runs (resource_id, action, created_by, started_on, completed_on, duration, status, recipients,
           delivered, suppressed, skipped, failed, send_id) VALUES (?, 'send', 'x', ?, ?, 1.5, ?, 2, 2, 0, 0, 0, ?)`,
      ).bind(
        mailId,
        new Date(Date.UTC(2026, 0, 1, 0, from + i)).toISOString(),
        new Date(Date.UTC(2026, 0, 1, 0, from + i, 2)).toISOString(),
        (from + i) % 3 ? 'delivered' : 'partial',
        `send-${from + i}`,
      ),
    ),
  );
}

async function rollUp(mailId: number) {
  await env.DB.batch(
    (
      [
        ['2025-12-02', 'delivered', 4],
        ['2025-12-01', 'partial', 1],
        ['2025-12-01', 'delivered', 2],
      ] as const
    ).map(([day, status, runs]) =>
      env.DB.prepare(
        `INSERT INTO mail_run_days (resource_id, day, status, runs, recipients, delivered, suppressed, skipped, failed)
         VALUES (?, ?, ?, ?, 2, 2, 0, 0, 0)`,
      ).bind(mailId, day, status, runs),
    ),
  );
}

type Row = { send_id?: string; day?: string; status: string; rolled_up?: true };
const keyOf = (r: Row) => (r.rolled_up ? `${r.day} ${r.status}` : r.send_id!);

async function walk(u: TestUser, first: string, between?: () => Promise<void>) {
  const rows: Row[] = [];
  for (let path: string | null = first; path;) {
    const res = await call('GET', path, { token: u.token, headers: JSON_ACCEPT });
    expect(res.status).toBe(200);
    rows.push(...((await res.json()) as Row[]));
    const next = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('Link') ?? '')?.[1];
    path = next ? new URL(next).pathname + new URL(next).search : null;
    if (path) await between?.();
  }
  return rows;
}

describe('stats/runs of an e-mail, paged', () => {
  it('pages through the rolled-up days, then every send once, oldest first, as the whole answer lists them', async () => {
    const u = await makeUser();
    const mail = await newMail(u);
    await insertSends(mail.id, 11);
    await rollUp(mail.id);
    const whole = (await (
      await call('GET', `${mail.path}/stats/runs`, { token: u.token, headers: JSON_ACCEPT })
    ).json()) as Row[];
    expect(whole.map(keyOf)).toEqual([
      '2025-12-01 delivered',
      '2025-12-01 partial',
      '2025-12-02 delivered',
      ...Array.from({ length: 11 }, (_, i) => `send-${i}`),
    ]);
    for (const limit of [1, 2, 3, 4, 13, 14, 100])
      expect((await walk(u, `${mail.path}/stats/runs?limit=${limit}`)).map(keyOf), `limit ${limit}`).toEqual(
        whole.map(keyOf),
      );
    // A page in text is a table of its rows; the Link header names the next page.
    const res = await call('GET', `${mail.path}/stats/runs?limit=4`, { token: u.token });
    const lines = (await res.text()).trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^timestamp\s+duration\s+status/);
    expect(lines[1]).toContain('(2 sends)');
    expect(res.headers.get('Link')).toMatch(/[?&]cursor=[\w-]+>; rel="next"$/);
    expect((await call('GET', `${mail.path}/stats/runs?limit=abc`, { token: u.token })).status).toBe(400);
  });

  it('sends recorded between pages are not repeated and none is skipped: they come last', async () => {
    const u = await makeUser();
    const mail = await newMail(u);
    await insertSends(mail.id, 6);
    await rollUp(mail.id);
    let added = 6;
    const seen = await walk(u, `${mail.path}/stats/runs?limit=2`, async () => {
      await insertSends(mail.id, 1, added++);
    });
    const keys = seen.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.slice(0, 3 + 6)).toEqual([
      '2025-12-01 delivered',
      '2025-12-01 partial',
      '2025-12-02 delivered',
      ...Array.from({ length: 6 }, (_, i) => `send-${i}`),
    ]);
    // Every send recorded before the walk ended is in it, in order.
    expect(keys.slice(9)).toEqual(Array.from({ length: keys.length - 9 }, (_, i) => `send-${6 + i}`));
    expect(keys.length).toBeGreaterThan(9);
  });
});
