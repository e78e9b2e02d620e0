/**
 * Bounce and complaint reports (POST /v1/ops/mail/events), signed the Standard Webhooks way
 * (the reference `standardwebhooks` package signs them here): a hard bounce or a complaint
 * suppresses the address for every sender, counts on the send in stats/runs and GraphQL and
 * is logged; a bad signature answers 401, a bad body 400, and an unknown message, a soft
 * bounce or a redelivered event is accepted and changes nothing more. Through the real
 * Worker (D1, the MailObject and the outbox).
 */
import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { until } from '../../client';
import { call, OPS, unique } from '../helpers';
import { gql } from '../gql/fixtures';
import { logOf, newMail, outboxTo, post, runs, sender, untilReady } from './fixtures';

vi.setConfig({ testTimeout: 120_000 });

const EVENTS = '/v1/ops/mail/events';
const hook = new Webhook(env.MAIL_EVENTS_SECRET!);

/** Posts `body` signed with `secret` (the configured one by default) as event `id`, at `at`. */
function report(body: unknown, o: { id?: string; at?: Date; hook?: Webhook; tamper?: (s: string) => string } = {}) {
  const id = o.id ?? unique('evt');
  const at = o.at ?? new Date();
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const signature = (o.hook ?? hook).sign(id, at, text);
  return call('POST', EVENTS, {
    body: o.tamper ? o.tamper(text) : text,
    type: 'application/json',
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
  });
}

/** The stable Message-ID of the message `address` got (from the outbox row). */
async function messageIdOf(address: string): Promise<string> {
  const row = await env.DB.prepare('select message_id from outbox where recipients like ? order by id desc limit 1')
    .bind(`%${address}%`)
    .first<{ message_id: string }>();
  return row!.message_id;
}

/** A mail of a fresh sender sent once to `to`. */
async function sentTo(to: string) {
  const u = await sender();
  const m = await newMail(u, { content: 'Hello', 'recipients/to': to });
  expect((await post(u, m.path)).status).toBe(202);
  await untilReady(u, m.path);
  return { u, ...m };
}

const suppressedFor = (email: string) =>
  env.DB.prepare('select owner_id, reason from mail_suppressions where email = ?').bind(email).all();

describe('bounce and complaint reports', () => {
  it('bounce-then-send: a hard bounce suppresses the address for every sender; the next send skips it and logs it', async () => {
    const a = `${unique('hard')}@example.com`;
    const first = await sentTo(a);
    const res = await report({ type: 'bounce', bounce_type: 'hard', recipient: a, message_id: await messageIdOf(a) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'recorded' });
    expect((await runs(first.u, first.path))[0]).toMatchObject({ delivered: 1, bounced: 1, complained: 0 });
    // The bounce line never names the address (the log is read by every reader of the mail).
    const line = (await logOf(first.u, first.path)).filter((l) => /a recipient hard-bounced/.test(l));
    expect(line).toHaveLength(1);
    expect(line[0]).not.toContain(a);
    // Another sender's mail to the address: skipped, counted and logged.
    const other = await sender();
    const m = await newMail(other, { 'recipients/to': a });
    expect((await post(other, m.path)).status).toBe(202);
    await untilReady(other, m.path);
    expect(await outboxTo(a)).toHaveLength(1);
    expect((await runs(other, m.path))[0]).toMatchObject({ status: 'failed', suppressed: 1 });
    expect((await logOf(other, m.path)).some((l) => l.includes(`address(es) suppressed: ${a}`))).toBe(true);
    expect((await suppressedFor(a)).results).toEqual([{ owner_id: 0, reason: 'bounced' }]);
  });

  it('a complaint suppresses the address and counts on the send, in stats/runs text and GraphQL', async () => {
    const a = `${unique('spam')}@example.com`;
    const { u, path, name } = await sentTo(a);
    const res = await report({ type: 'complaint', recipient: a.toUpperCase(), message_id: await messageIdOf(a) });
    expect(await res.json()).toEqual({ status: 'recorded' });
    expect((await suppressedFor(a)).results).toEqual([{ owner_id: 0, reason: 'complained' }]);
    const text = await (await call('GET', `${path}/stats/runs`, { token: u.token })).text();
    expect(text.split('\n')[0]).toMatch(/failed\s+bounced\s+complained$/);
    expect(text.split('\n')[1]).toMatch(/\s0\s+1$/);
    const q = await gql(u.token, `{ mails(id: "${name}") { sends { id status delivered bounced complained } } }`);
    expect(q.body.errors).toBeUndefined();
    const sends = (q.body.data!.mails as { sends: Record<string, unknown>[] }[])[0]!.sends;
    expect(sends).toEqual([
      { id: expect.stringMatching(/^\d{14}-/), status: 'delivered', delivered: 1, bounced: 0, complained: 1 },
    ]);
  });

  it("a recorded bounce sends mail.bounced to the mail owner's webhooks: which send and which kind, never the address", async () => {
    const a = `${unique('hook')}@example.com`;
    const { u, path, name } = await sentTo(a);
    const put = await call('PUT', '/v1/admin/webhooks/bounces', {
      token: u.token,
      json: { url: 'https://steps.jobs.test/fail', events: ['mail.bounced'] },
    });
    expect(put.status).toBe(201);
    const body = { type: 'bounce', bounce_type: 'hard', recipient: a, message_id: await messageIdOf(a) };
    const id = unique('evt');
    expect(await (await report(body, { id })).json()).toEqual({ status: 'recorded' });
    expect(await (await report(body, { id })).json()).toEqual({ status: 'duplicate' }); // no second event
    const rows = await until('mail.bounced', async () => {
      const r = (await (await call('GET', '/v1/admin/webhooks/bounces/deliveries', { token: u.token })).json()) as {
        id: number;
        type: string;
      }[];
      return r.length > 0 && r;
    });
    expect(rows.map((r) => r.type)).toEqual(['mail.bounced']);
    const one = (await (
      await call('GET', `/v1/admin/webhooks/bounces/deliveries/${rows[0]!.id}`, { token: u.token })
    ).json()) as { request_body: string };
    const event = JSON.parse(one.request_body);
    expect(event.data).toEqual({ mail: name, run: (await runs(u, path))[0]!.send_id, kind: 'bounced' });
    expect(one.request_body).not.toContain(a);
  });

  it('a redelivered event (same webhook-id) is recorded once', async () => {
    const a = `${unique('twice')}@example.com`;
    const { u, path } = await sentTo(a);
    const body = { type: 'bounce', bounce_type: 'hard', recipient: a, message_id: await messageIdOf(a) };
    const id = unique('evt');
    expect(await (await report(body, { id })).json()).toEqual({ status: 'recorded' });
    expect(await (await report(body, { id })).json()).toEqual({ status: 'duplicate' });
    expect((await runs(u, path))[0]).toMatchObject({ bounced: 1 });
  });

  it('a bad signature answers 401 and records nothing: wrong secret, altered body, stale timestamp, missing headers', async () => {
    const a = `${unique('sig')}@example.com`;
    await sentTo(a);
    const body = { type: 'bounce', bounce_type: 'hard', recipient: a, message_id: await messageIdOf(a) };
    const wrong = new Webhook(btoa('another secret of at least 32 bytes!!'));
    expect((await report(body, { hook: wrong })).status).toBe(401);
    expect((await report(body, { tamper: (s) => s.replace('hard', 'soft') })).status).toBe(401);
    expect((await report(body, { at: new Date(Date.now() - 10 * 60_000) })).status).toBe(401);
    const unsigned = await call('POST', EVENTS, { json: body });
    expect(unsigned.status).toBe(401);
    // The operator token is no substitute for the signature.
    expect((await call('POST', EVENTS, { json: body, token: OPS })).status).toBe(401);
    expect((await suppressedFor(a)).results).toEqual([]);
  });

  it('a bad body answers 400: not JSON, an unknown type, a bounce without bounce_type, no message_id', async () => {
    const a = `${unique('body')}@example.com`;
    for (const body of [
      'not json',
      { type: 'delivery', recipient: a, message_id: '<x@y>' },
      { type: 'bounce', recipient: a, message_id: '<x@y>' },
      { type: 'complaint', recipient: a },
      [],
    ]) {
      const res = await report(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('an unknown message, a soft bounce or a recipient not on the message is accepted and ignored', async () => {
    const a = `${unique('soft')}@example.com`;
    const { u, path } = await sentTo(a);
    const message_id = await messageIdOf(a);
    const ignored = async (body: unknown, reason: RegExp) => {
      const res = await report(body);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ignored', reason: expect.stringMatching(reason) });
    };
    await ignored({ type: 'bounce', bounce_type: 'soft', recipient: a, message_id }, /soft bounce/);
    await ignored({ type: 'complaint', recipient: a, message_id: '<nope.0@mail.localhost>' }, /no e-mail send/);
    await ignored({ type: 'complaint', recipient: `${unique('x')}@example.com`, message_id }, /not one of/);
    expect((await suppressedFor(a)).results).toEqual([]);
    expect((await runs(u, path))[0]).toMatchObject({ bounced: 0, complained: 0 });
  });
});
