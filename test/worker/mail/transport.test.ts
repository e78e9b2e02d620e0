/**
 * The transports, per MAIL_TRANSPORT, through the real local send_email binding (miniflare
 * emulates Email Sending: it logs the message and answers an id), observed by a wrapper
 * that records each call: `send_email` hands the structured form (one call per recipient,
 * at most 50 addresses a call, 5 MiB a message, the unsubscribe headers, the stable id,
 * cid images inline) and exactly once per recipient across a resumed send; `capture`
 * records the outbox and calls nothing; `send_email_mime` hands raw MIME with the stable
 * Message-ID.
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { handOff, type OutboundMail } from '../../../src/core/mailer';
import { outbox, users } from '../../../src/db/schema';
import { deliverSend, type QueuedSend } from '../../../src/mail/delivery';
import { call, unique } from '../helpers';
import { db, newMail, PNG, sender } from './fixtures';

vi.setConfig({ testTimeout: 120_000 });

type Sent = Parameters<SendEmail['send']>[0];

/** The environment with `transport`, its SEND_EMAIL the real binding behind a recorder. */
function observed(transport: string): { env: Env; calls: Sent[] } {
  const calls: Sent[] = [];
  const binding = env.SEND_EMAIL;
  const recorder = { send: (m: Sent) => (calls.push(m), binding.send(m as never)) } as SendEmail;
  return { env: { ...env, MAIL_TRANSPORT: transport, SEND_EMAIL: recorder }, calls };
}

/** A mail of a fresh sender to `to`, with an embedded picture, and the job its send would run. */
async function mailJob(to: string[], content = 'Hello ![logo](assets/logo.png)') {
  const u = await sender();
  const m = await newMail(u, { content, 'recipients/to': to.join(' '), 'config/reply_to': 'desk@example.com' });
  const put = await call('POST', `${m.path}/assets/logo.png`, {
    token: u.token,
    body: PNG,
    headers: { 'Content-Type': 'image/png' },
  });
  expect(put.status).toBe(201);
  const owner = (await db().select().from(users).where(eq(users.username, u.username)).get())!;
  const job: QueuedSend = {
    id: `20260101000000-${unique('s')
      .replace(/[^a-z0-9]/g, '')
      .slice(-8)}`,
    action: 'send',
    key: 'list',
    resourceId: m.id,
    callerId: owner.id,
    callerName: u.username,
    acceptedOn: Date.now(),
  };
  return { u, m, job };
}

const rowsTo = (address: string) =>
  db()
    .select()
    .from(outbox)
    .where(and(eq(outbox.kind, 'mail')))
    .all()
    .then((rows) => rows.filter((r) => r.recipients.includes(address)));

describe('the send_email transport (Cloudflare Email Sending, structured)', () => {
  it('one structured call per recipient: unsubscribe headers, replyTo, the stable id, the cid image inline; the answered id is kept', async () => {
    const to = [`${unique('a')}@example.com`, `${unique('b')}@example.com`];
    const { job } = await mailJob(to);
    const o = observed('send_email');
    expect(await deliverSend(o.env, job)).toBe('delivered');
    expect(o.calls).toHaveLength(2);
    const first = o.calls.find((c) => 'to' in c && c.to[0] === to[0]) as Exclude<Sent, EmailMessage>;
    expect(first).toMatchObject({ from: env.MAIL_FROM, to: [to[0]], replyTo: 'desk@example.com' });
    expect(first.headers).toEqual({
      'List-Unsubscribe': expect.stringMatching(/^<https?:\/\/.+\/v1\/mail\/unsubscribe\/.+>$/),
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'X-Message-ID': expect.stringMatching(new RegExp(`^<${job.id}\\.[0-9a-f]{24}@`)),
    });
    expect(first.html).toContain('src="cid:logo.png"');
    expect(first.text).toContain('Hello');
    expect(first.attachments).toEqual([
      { disposition: 'inline', contentId: 'logo.png', filename: 'logo.png', type: 'image/png', content: PNG },
    ]);
    // The outbox row keeps the stable id and the id the binding answered.
    const [row] = await rowsTo(to[0]!);
    expect(row!.message_id).toBe(first.headers!['X-Message-ID']);
    expect(row!.provider_id).toMatch(/^<[A-Za-z0-9]+@/);
    // A bounce report may name the message by that id too.
    const body = JSON.stringify({
      type: 'bounce',
      bounce_type: 'hard',
      recipient: to[0],
      message_id: row!.provider_id,
    });
    const id = unique('evt');
    const at = new Date();
    const res = await call('POST', '/v1/ops/mail/events', {
      body,
      type: 'application/json',
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(env.MAIL_EVENTS_SECRET!).sign(id, at, body),
      },
    });
    expect(await res.json()).toEqual({ status: 'recorded' });
  });

  it('exactly once per recipient: a resumed send hands nothing again through the binding', async () => {
    const to = [`${unique('once')}@example.com`];
    const { job } = await mailJob(to);
    const o = observed('send_email');
    expect(await deliverSend(o.env, job)).toBe('delivered');
    expect(await deliverSend(o.env, { ...job, attempts: 2 })).toBe('delivered');
    expect(o.calls).toHaveLength(1);
    expect(await rowsTo(to[0]!)).toHaveLength(1);
  });

  it('at most 50 recipients a call, and a message over 5 MiB is refused before the binding', async () => {
    const o = observed('send_email');
    const mail: OutboundMail = {
      kind: 'mail',
      to: Array.from({ length: 120 }, (_, i) => `r${i}@example.com`),
      subject: 'Many',
      text: 'hi',
      html: '<p>hi</p>',
    };
    expect(await handOff(o.env, mail)).toMatch(/^<.+@/);
    expect(o.calls.map((c) => ('to' in c ? (c.to as string[]).length : 0))).toEqual([50, 50, 20]);
    const big = { ...mail, to: ['big@example.com'], html: 'x'.repeat(5 * 1024 * 1024 + 1) };
    await expect(handOff(o.env, big)).rejects.toThrow(/over the 5 MiB Email Sending takes/);
    expect(o.calls).toHaveLength(3);
  });
});

describe('the capture transport (local)', () => {
  it('records the message in the outbox and calls no binding', async () => {
    const to = [`${unique('cap')}@example.com`];
    const { job } = await mailJob(to);
    const o = observed('capture');
    expect(await deliverSend(o.env, job)).toBe('delivered');
    expect(o.calls).toHaveLength(0);
    const rows = await rowsTo(to[0]!);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ provider_id: null, resource_id: job.resourceId });
  });
});

describe('the send_email_mime transport (raw MIME, Email Routing)', () => {
  it('hands one raw message per recipient carrying the stable Message-ID', async () => {
    const o = observed('send_email_mime');
    const messageId = `<${unique('raw')}@mail.localhost>`;
    const id = await handOff(o.env, {
      kind: 'mail',
      to: ['one@example.com', 'two@example.com'],
      subject: 'Raw',
      text: 'hi',
      html: '<p>hi</p>',
      messageId,
    });
    expect(id).toMatch(/^<.+@/);
    expect(o.calls).toHaveLength(2);
    expect(o.calls.map((c) => (c as EmailMessage).to)).toEqual(['one@example.com', 'two@example.com']);
  });
});
