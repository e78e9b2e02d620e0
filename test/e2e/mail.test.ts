// E-mail sending over HTTP against the server started as `npm start` does: the whole
// send cycle, concurrency, the clock-moved rate window, and the public unsubscribe link.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { burstProblems, type BurstRun } from '../worker/mail/burst';
import { http, makeUser, opsToken, unique, type E2EUser } from './harness';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

const sender = async () => {
  const email = `${unique('m')}@example.com`;
  return { ...(await makeUser({ email, email_verified: true })), email };
};

async function newMail(u: E2EUser, entries: Record<string, string>): Promise<string> {
  const path = `/v1/vis/mails/${unique('m')}`;
  expect((await http('PUT', path, { token: u.token })).status).toBe(201);
  for (const [k, v] of Object.entries(entries))
    expect((await http('POST', `${path}/${k}`, { token: u.token, text: v })).status).toBe(204);
  return path;
}

async function untilReady(u: E2EUser, path: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    if ((await (await http('GET', `${path}/status`, { token: u.token })).text()) === 'ready') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('never ready');
}

const outboxTo = async (a: string) =>
  (
    (await (await http('GET', '/v1/ops/outbox', { token: opsToken() })).json()) as {
      to: string[];
      text: string;
      kind: string;
    }[]
  ).filter((m) => m.to.includes(a));

afterAll(async () => {
  await http('POST', '/v1/ops/clock', { token: opsToken(), json: { offset_ms: 0 } });
});

describe('e-mail sending over HTTP', () => {
  it('send, status back to ready, outbox, stats/runs, unsubscribe link, suppression', async () => {
    const u = await sender();
    const a = `${unique('a')}@example.com`;
    const path = await newMail(u, { content: '# Hi\n\nNews', subject: 'Weekly', 'recipients/to': `${a} me` });
    const res = await http('POST', `${path}/status`, { token: u.token, text: 'sent' });
    expect(res.status).toBe(202);
    await untilReady(u, path);
    const [m] = await outboxTo(a);
    expect(m).toMatchObject({ kind: 'mail' });
    const link = new URL(/Unsubscribe: (\S+)/.exec(m!.text)![1]!);
    expect((await http('GET', link.pathname)).status).toBe(200);
    expect((await http('POST', `${path}/status`, { token: u.token, json: { action: 'send' } })).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(a)).toHaveLength(1);
    const runs = (await (
      await http('GET', `${path}/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as { status: string; suppressed: number }[];
    expect(runs.map((r) => [r.status, r.suppressed])).toEqual([
      ['delivered', 0],
      ['delivered', 1],
    ]);
  });

  it(
    '50 concurrent sends are decided exactly: never two in flight, the held ones answer 425',
    { timeout: 240_000 },
    async () => {
      // A newsletter-sized list keeps the accepted send in flight while the burst is decided.
      const email = `${unique('m')}@example.com`;
      const u = await makeUser({ email, email_verified: true, plan: 'premium' });
      const path = await newMail(u, {
        'recipients/to': Array.from({ length: 60 }, (_, i) => `${unique('n')}${i}@example.com`).join('\n'),
      });
      const codes = (
        await Promise.all(
          Array.from({ length: 50 }, () => http('POST', `${path}/status`, { token: u.token, text: 'sent' })),
        )
      ).map((r) => r.status);
      await untilReady(u, path);
      const runs = (await (
        await http('GET', `${path}/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })
      ).json()) as BurstRun[];
      expect(burstProblems(codes, runs, 60)).toEqual([]);
    },
  );

  it('the rate window follows the platform clock moved through the ops route (the MailObject shares it)', async () => {
    const u = await sender();
    const path = await newMail(u, { content: unique('w'), 'recipients/to': `${unique('w')}@example.com` });
    for (let i = 0; i < 10; i++) {
      expect((await http('POST', `${path}/status`, { token: u.token, text: 'sent' })).status).toBe(202);
      await untilReady(u, path);
    }
    const held = await http('POST', `${path}/status`, { token: u.token, text: 'sent' });
    expect(held.status).toBe(429);
    expect(((await held.json()) as { retry_after_seconds: number }).retry_after_seconds).toBeGreaterThan(0);
    expect(
      (await http('POST', '/v1/ops/clock', { token: opsToken(), json: { offset_ms: 31 * 60 * 1000 } })).status,
    ).toBe(204);
    expect((await http('POST', `${path}/status`, { token: u.token, text: 'sent' })).status).toBe(202);
    await untilReady(u, path);
  });
});
