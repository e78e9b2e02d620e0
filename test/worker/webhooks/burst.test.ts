// A burst of events to one endpoint: its object gathers the wakes (an alarm GATHER_MS ahead,
// a wake during a pass asks for one pass more), and no event is left behind or sent twice:
// every delivery is attempted once, long before the first retry (5 s) could pick up one a
// wake missed.
import { describe, expect, it } from 'vitest';
import { RETRY_DELAYS_MS } from '../../../src/webhooks/schedule';
import { until } from '../../client';
import { call, unique } from '../helpers';
import { person } from '../groups/fixtures';

const N = 12;

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
    const rows = await until(
      'every delivery attempted',
      async () => {
        const log = (await (await call('GET', '/v1/admin/webhooks/b/deliveries', { token: u.token })).json()) as {
          attempt: number;
        }[];
        return log.length === N && log.every((d) => d.attempt >= 1) && log;
      },
      RETRY_DELAYS_MS[0]! - 1000,
    );
    expect(Date.now() - started).toBeLessThan(RETRY_DELAYS_MS[0]!);
    expect(rows.map((d) => d.attempt)).toEqual(Array(N).fill(1));
  });
});
