// Delivery records and the accounts around them: the retention sweep removes finished
// records past 30 days (one waiting for a retry stays), ?status and ?limit filter the log,
// and deleting an account removes its endpoints, their deliveries and its events.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sweepRetention } from '../../../src/accounts/retention';
import { RETENTION_DEFAULTS } from '../../../src/accounts/retention-plan';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';

const FAILING = 'https://steps.jobs.test/fail';
const DAY = 24 * 3600_000;
const json = async <T = any>(res: Response): Promise<T> => (await res.json()) as T;

async function withDeliveries(n: number): Promise<{ u: TestUser; id: number }> {
  const u = await makeUser();
  expect(
    (
      await call('PUT', '/v1/admin/webhooks/w', {
        token: u.token,
        json: { url: FAILING, events: ['document.created'] },
      })
    ).status,
  ).toBe(201);
  for (let i = 0; i < n; i++) await call('PUT', `/v1/vis/docs/${unique('d')}`, { token: u.token });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await json<{ attempt: number }[]>(
      await call('GET', '/v1/admin/webhooks/w/deliveries', { token: u.token }),
    );
    if (rows.length === n && rows.every((r) => r.attempt >= 1)) break;
    if (Date.now() > deadline) throw new Error('deliveries not attempted');
    await new Promise((r) => setTimeout(r, 50));
  }
  const { id } = (await env.DB.prepare(`SELECT id FROM users WHERE username = ?`)
    .bind(u.username)
    .first<{ id: number }>())!;
  return { u, id };
}

const count = async (sql: string, id: number) => (await env.DB.prepare(sql).bind(id).first<number>('n')) ?? 0;

describe('webhook delivery records', () => {
  it('?status and ?limit filter the log; a bad one is 400', async () => {
    const { u } = await withDeliveries(3);
    const failed = await json<unknown[]>(
      await call('GET', '/v1/admin/webhooks/w/deliveries?status=failed&limit=2', { token: u.token }),
    );
    expect(failed).toHaveLength(2);
    expect(
      await json(await call('GET', '/v1/admin/webhooks/w/deliveries?status=delivered', { token: u.token })),
    ).toEqual([]);
    expect((await call('GET', '/v1/admin/webhooks/w/deliveries?status=lost', { token: u.token })).status).toBe(400);
    expect((await call('GET', '/v1/admin/webhooks/w/deliveries?limit=0', { token: u.token })).status).toBe(400);
    expect((await call('GET', '/v1/admin/webhooks/w/deliveries/abc', { token: u.token })).status).toBe(404);
  });

  it('the retention sweep removes finished delivery records older than 30 days; one waiting for a retry stays', async () => {
    const { u, id } = await withDeliveries(2);
    const rows = await json<{ id: number }[]>(await call('GET', '/v1/admin/webhooks/w/deliveries', { token: u.token }));
    // One of the two has run out of retries (as after its eighth attempt).
    await env.DB.prepare(`UPDATE webhook_deliveries SET status = 'exhausted', next_attempt_on = NULL WHERE id = ?`)
      .bind(rows[0]!.id)
      .run();
    const inHook = `SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE owner_id = ?)`;
    await sweepRetention(env, Date.now() + 29 * DAY, RETENTION_DEFAULTS);
    expect(await count(inHook, id)).toBe(2);
    const swept = await sweepRetention(env, Date.now() + 31 * DAY, RETENTION_DEFAULTS);
    expect(swept!.removed.webhook_deliveries).toBeGreaterThanOrEqual(1);
    const left = await json<{ id: number }[]>(await call('GET', '/v1/admin/webhooks/w/deliveries', { token: u.token }));
    expect(left.map((r) => r.id)).toEqual([rows[1]!.id]);
  });

  it('deleting an account removes its endpoints, their delivery records and its events', async () => {
    const { u, id } = await withDeliveries(2);
    const hook = (await env.DB.prepare(`SELECT id FROM webhooks WHERE owner_id = ?`).bind(id).first<number>('id'))!;
    const deliveries = `SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?`;
    expect(await count(deliveries, hook)).toBe(2);
    expect((await call('DELETE', `/v1/ops/users/${u.username}`, { token: OPS })).status).toBe(204);
    expect(await count(`SELECT count(*) AS n FROM webhooks WHERE owner_id = ?`, id)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM webhook_events WHERE owner_id = ?`, id)).toBe(0);
    expect(await count(deliveries, hook)).toBe(0);
  });
});
