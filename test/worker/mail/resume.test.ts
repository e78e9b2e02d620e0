// Delivery is idempotent per recipient: a send interrupted mid-delivery (a hard kill: the
// alarm's work simply stops) and resumed hands every recipient exactly one message, and the
// stats row agrees with the outbox.
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { describe, expect, it } from 'vitest';
import { sendMail, messageIdFor, type OutboundMail } from '../../../src/core/mailer';
import { outbox, resources, users } from '../../../src/db/schema';
import { deliverSend, type QueuedSend } from '../../../src/mail/delivery';
import { mailRuns } from '../../../src/mail/schema';
import { call, makeUser, OPS, unique } from '../helpers';

const db = () => drizzle(env.DB);

describe('idempotent delivery', () => {
  it('a send interrupted after some hand-offs and resumed gives every recipient exactly one message', async () => {
    const u = await makeUser({ email: `${unique('s')}@example.com`, email_verified: true });
    const name = unique('m');
    const path = `/v1/vis/mails/${name}`;
    expect((await call('PUT', path, { token: u.token })).status).toBe(201);
    const to = Array.from({ length: 8 }, (_, i) => `${unique(`r${i}`)}@example.com`);
    expect((await call('POST', `${path}/recipients/to`, { token: u.token, text: to.join(' ') })).status).toBe(204);
    expect((await call('POST', `${path}/subject`, { token: u.token, text: 'Once' })).status).toBe(204);
    const owner = (await db().select().from(users).where(eq(users.username, u.username)).get())!;
    const mail = (await db()
      .select()
      .from(resources)
      .where(and(eq(resources.owner_id, owner.id), eq(resources.name, name)))
      .get())!;
    const job: QueuedSend = {
      id: unique('send'),
      action: 'send',
      key: 'list',
      resourceId: mail.id,
      callerId: owner.id,
      callerName: u.username,
      acceptedOn: Date.now(),
      attempts: 1,
    };

    // Attempt 1: three messages are handed off, then the process "dies" (the rest never settle).
    let handed = 0;
    const dying = (e: Env, d: Parameters<typeof sendMail>[1], m: OutboundMail) =>
      handed++ < 3 ? sendMail(e, d, m) : new Promise<boolean>(() => {});
    void deliverSend(env, job, dying);
    // oxlint-disable-next-line no-unmodified-loop-condition -- the stubbed sendMail counts `handed` while the loop awaits
    for (let i = 0; i < 200 && handed < 4; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));

    // Attempt 2: the alarm resumes the same send.
    expect(await deliverSend(env, { ...job, attempts: 2 }, sendMail)).toBe('delivered');
    const all = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as { to: string[] }[];
    for (const a of to)
      expect(
        all.filter((m) => m.to.includes(a)),
        a,
      ).toHaveLength(1);
    const runs = await db().select().from(mailRuns).where(eq(mailRuns.resource_id, mail.id));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'delivered', delivered: 8, failed: 0 });
    const log = (await (await call('GET', `${path}/log`, { token: u.token })).text()).split('\n');
    expect(
      log.some((l) =>
        l.includes(`send ${job.id} triggered by ${u.username}: resumed after an interruption (attempt 2)`),
      ),
    ).toBe(true);
  });

  it('each message of a send carries a stable Message-ID per recipient, stored once in the outbox', async () => {
    const a = await messageIdFor(env, 'send-1', 'x@example.com');
    expect(a).toBe(await messageIdFor(env, 'send-1', 'X@example.com'));
    expect(a).not.toBe(await messageIdFor(env, 'send-2', 'x@example.com'));
    expect(a).toMatch(/^<send-1\.[0-9a-f]{24}@[^>]+>$/);
    const m: OutboundMail = {
      kind: 'mail',
      to: [`${unique('t')}@example.com`],
      subject: 's',
      text: 't',
      html: 'h',
      messageId: `<${unique('id')}@example.com>`,
    };
    expect(await sendMail(env, db(), m)).toBe(true);
    expect(await sendMail(env, db(), m)).toBe(false);
    expect(await db().select().from(outbox).where(eq(outbox.message_id, m.messageId!))).toHaveLength(1);
  });
});
