/**
 * The send_email transport on the real server (`npm start` with MAIL_TRANSPORT=send_email):
 * local wrangler emulates Cloudflare Email Sending (it logs each structured message and
 * answers an id), so a send goes through the binding end to end; then a signed hard
 * bounce report suppresses the address and the next send skips it and logs it.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { startPlatform } from '../../scripts/serve.mjs';
import { requester, createUser, unique, type TestUser } from '../client';

vi.setConfig({ testTimeout: 120_000 });

const SECRET = `whsec_${Buffer.from('e2e-mail-events-secret-of-32-bytes').toString('base64')}`;

let server: { base: string; ops: string; log: string[]; stop: () => Promise<void> };
let http: ReturnType<typeof requester>;

beforeAll(async () => {
  server = await startPlatform({
    extraArgs: [
      '--var',
      'MAIL_TRANSPORT:send_email',
      '--var',
      `MAIL_EVENTS_SECRET:${SECRET}`,
      '--var',
      'RATE_LIMITING:off',
    ],
  });
  http = requester(fetch, () => server.base);
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

async function untilReady(u: TestUser, path: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    if ((await (await http('GET', `${path}/status`, { token: u.token })).text()) === 'ready') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('never ready');
}

type Outbound = { to: string[]; message_id: string | null; provider_id: string | null };
const outboxTo = async (a: string) =>
  ((await (await http('GET', '/v1/ops/outbox', { token: server.ops })).json()) as Outbound[]).filter((m) =>
    m.to.includes(a),
  );

describe('Cloudflare Email Sending through the local binding', () => {
  it('a send goes through the structured binding; a signed hard bounce suppresses the address for the next send', async () => {
    const email = `${unique('m')}@example.com`;
    const u = await createUser(http, server.ops, { email, email_verified: true }, 'es');
    const a = `${unique('a')}@example.com`;
    const b = `${unique('b')}@example.com`;
    const path = `/v1/vis/mails/${unique('m')}`;
    expect((await http('PUT', path, { token: u.token })).status).toBe(201);
    for (const [k, v] of Object.entries({
      content: '# Hello\n\nNews',
      subject: 'Via Email Sending',
      'recipients/to': `${a} ${b}`,
    }))
      expect((await http('POST', `${path}/${k}`, { token: u.token, text: v })).status).toBe(204);
    expect((await http('POST', `${path}/status`, { token: u.token, text: 'sent' })).status).toBe(202);
    await untilReady(u, path);
    const runs = (await (
      await http('GET', `${path}/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as Record<string, unknown>[];
    expect(runs[0]).toMatchObject({ status: 'delivered', delivered: 2, failed: 0 });
    // The binding answered an id for each message, and wrangler logged the structured form.
    const [sent] = await outboxTo(a);
    expect(sent!.provider_id).toMatch(/^<[A-Za-z0-9]+@mail\.localhost>$/);
    for (let i = 0; i < 100 && !server.log.join('').includes(`To: ${b}`); i++)
      await new Promise((r) => setTimeout(r, 50));
    const log = server.log.join('');
    expect(log).toContain('send_email binding called with MessageBuilder');
    expect(log).toContain(`To: ${a}`);
    expect(log).toContain('Subject: Via Email Sending');

    // A hard bounce for a, signed with the shared secret.
    const body = JSON.stringify({ type: 'bounce', bounce_type: 'hard', recipient: a, message_id: sent!.message_id });
    const id = unique('evt');
    const at = new Date();
    const res = await http('POST', '/v1/ops/mail/events', {
      body,
      type: 'application/json',
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(SECRET).sign(id, at, body),
      },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'recorded' });

    // The next send skips a (suppressed, logged) and reaches b.
    expect((await http('POST', `${path}/content`, { token: u.token, text: '# Hello again' })).status).toBe(204);
    expect((await http('POST', `${path}/status`, { token: u.token, text: 'sent' })).status).toBe(202);
    await untilReady(u, path);
    const after = (await (
      await http('GET', `${path}/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as Record<string, unknown>[];
    expect(after[0]).toMatchObject({ bounced: 1 });
    expect(after[1]).toMatchObject({ status: 'delivered', delivered: 1, suppressed: 1 });
    expect(await outboxTo(a)).toHaveLength(1);
    expect(await outboxTo(b)).toHaveLength(2);
    const mailLog = await (await http('GET', `${path}/log`, { token: u.token })).text();
    expect(mailLog).toContain(`address(es) suppressed: ${a}`);
    expect(mailLog).toContain('a recipient hard-bounced');
  });
});
