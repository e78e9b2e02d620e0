// What a delivery record keeps of the receiver's answer: its first 4 KiB, whether the answer
// is short or long, has a length or is streamed without one. The endpoints point at the test's stub host (https://steps.jobs.test).
import { describe, expect, it } from 'vitest';
import { until } from '../../client';
import { call, unique } from '../helpers';
import { person } from '../groups/fixtures';

const json = async <T = any>(res: Response): Promise<T> => (await res.json()) as T;

interface Delivery {
  id: number;
  attempt: number;
  status: string;
  next_attempt_on: string | null;
  response_code: number | null;
  response_body: string;
  duration_ms: number | null;
}

describe('what a delivery keeps of the answer', () => {
  it('the first 4 KiB of every answer: short, empty, long, or streamed without a length', async () => {
    const u = await person('answers');
    const answers = {
      short: 'bytes=2',
      empty: 'bytes=0',
      long: 'bytes=70000',
      streamed: 'bytes=70000&chunked=1',
      'streamed-short': 'bytes=3&chunked=1',
    };
    for (const [name, query] of Object.entries(answers))
      expect(
        (
          await call('PUT', `/v1/admin/webhooks/${name}`, {
            token: u.token,
            json: { url: `https://steps.jobs.test/answer?${query}`, events: ['document.created'] },
          })
        ).status,
      ).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${unique('d')}`, { token: u.token })).status).toBe(201);
    const kept = async (name: string) => {
      const [row] = await json<{ id: number; status: string }[]>(
        await call('GET', `/v1/admin/webhooks/${name}/deliveries`, { token: u.token }),
      );
      if (row?.status !== 'delivered') return undefined;
      return json<Delivery>(await call('GET', `/v1/admin/webhooks/${name}/deliveries/${row.id}`, { token: u.token }));
    };
    const rows = await Promise.all(Object.keys(answers).map((name) => until(`${name} delivered`, () => kept(name))));
    expect(rows.map((d) => d.response_body)).toEqual(['aa', '', 'a'.repeat(4096), 'a'.repeat(4096), 'aaa']);
    for (const d of rows)
      expect(d).toMatchObject({ attempt: 1, status: 'delivered', next_attempt_on: null, response_code: 200 });
    expect(rows.every((d) => typeof d.duration_ms === 'number')).toBe(true);
  });
});
