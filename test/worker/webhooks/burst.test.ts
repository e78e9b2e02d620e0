// A burst of events to one endpoint: the isolate sends one wake for the events it records
// within GATHER_MS (webhooks/wake.ts), its object gathers the wakes (an alarm GATHER_MS ahead,
// a wake during a pass asks for one pass more), and no event is left behind or sent twice:
// every delivery is attempted once, long before the first retry (5 s) could pick up one a
// wake missed.
import { describe, expect, it } from 'vitest';
import { GATHER_MS, RETRY_DELAYS_MS } from '../../../src/webhooks/schedule';
import { until } from '../../client';
import { call, unique } from '../helpers';
import { person } from '../groups/fixtures';

const N = 12;

/** Waits until each of the endpoint's `n` deliveries was attempted, before the first retry is due; answers their attempts. */
async function attemptsOnce(token: string, name: string, n: number, started: number): Promise<number[]> {
  const rows = await until(
    'every delivery attempted',
    async () => {
      const log = (await (await call('GET', `/v1/admin/webhooks/${name}/deliveries`, { token })).json()) as {
        attempt: number;
      }[];
      return log.length === n && log.every((d) => d.attempt >= 1) && log;
    },
    RETRY_DELAYS_MS[0]! - 1000,
  );
  expect(Date.now() - started).toBeLessThan(RETRY_DELAYS_MS[0]!);
  return rows.map((d) => d.attempt);
}

describe('a burst of events to one endpoint', () => {
  it('each delivery of a burst is attempted once by the wakes alone, before any retry is due', async () => {
    const u = await person('burst');
    const hook = await call('PUT', '/v1/admin/webhooks/b', {
      token: u.token,
      json: { url: 'https://steps.jobs.test/fail', events: ['document.created'] },
    });
    expect(hook.status).toBe(201);
    const started = Date.now();
    // Two waves: the second lands while the object delivers (or gathers) the first.
    for (const wave of [0, 1]) {
      const created = await Promise.all(
        Array.from({ length: N / 2 }, () => call('PUT', `/v1/vis/docs/${unique(`b${wave}`)}`, { token: u.token })),
      );
      expect(created.map((r) => r.status)).toEqual(Array(N / 2).fill(201));
    }
    expect(await attemptsOnce(u.token, 'b', N, started)).toEqual(Array(N).fill(1));
  });

  it('events spread over several gathering windows each ride a wake: none waits for a retry', async () => {
    const u = await person('spread');
    const hook = await call('PUT', '/v1/admin/webhooks/s', {
      token: u.token,
      json: { url: 'https://steps.jobs.test/fail', events: ['document.created'] },
    });
    expect(hook.status).toBe(201);
    const started = Date.now();
    // One write at a time, a few ms apart: some land while a wake waits to be sent, some just
    // after one was sent, some while the object delivers.
    const n = 24;
    for (let i = 0; i < n; i++) {
      expect((await call('PUT', `/v1/vis/docs/${unique('s')}`, { token: u.token })).status).toBe(201);
      await new Promise((ok) => setTimeout(ok, (i % 4) * (GATHER_MS / 3)));
    }
    expect(await attemptsOnce(u.token, 's', n, started)).toEqual(Array(n).fill(1));
  });
});
