// The send validation order: non-owner 404, unverified address 403, in flight 425, the
// content window 429, config/enabled 403; the order when several fail, malformed bodies 400.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setClockOffset } from '../../../src/core/clock';
import { users } from '../../../src/db/schema';
import { mailStub } from '../../../src/mail/stub';
import type { InFlight } from '../../../src/mail/send-gate';
import { WINDOW_MS } from '../../../src/mail/rules';
import { call } from '../helpers';
import { db, logWhen, makeGroup, newMail, newsletter, post, runs, sender, untilReady } from './fixtures';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

afterEach(() => setClockOffset(0));

/**
 * Holds `key` of the e-mail's in-flight lock (MailObject storage) as a send that never ends,
 * so a request is decided against a known lock whatever became of earlier sends; the
 * returned function releases it. Delivery never clears it: it releases only its own send id.
 */
async function holdInFlight(id: number, key: string): Promise<() => Promise<void>> {
  const HELD = 'held-by-test';
  const stub = mailStub(env, id);
  const update = (change: (inflight: InFlight) => void) =>
    runInDurableObject(stub, (_mail, state) => {
      const inflight = state.storage.kv.get<InFlight>('inflight') ?? {};
      change(inflight);
      state.storage.kv.put('inflight', inflight);
    });
  await update((inflight) => void (inflight[key] = HELD));
  return () => update((inflight) => void (inflight[key] === HELD && delete inflight[key]));
}

describe('the send validation order', () => {
  it('1: a non-owner gets 404, also with read (or write) access through a share', async () => {
    const u = await sender();
    const reader = await sender();
    const g = await makeGroup(u.username, [{ username: reader.username }]);
    const { path, name } = await newMail(u);
    expect((await call('PUT', `${path}/shared/${g.ref}~rw`, { token: u.token })).status).toBe(201);
    const shared = `/v1/users/${u.username}/vis/mails/${name}`;
    expect((await call('GET', `${shared}/status`, { token: reader.token })).status).toBe(200);
    for (const who of [reader, await sender()]) {
      const res = await call('POST', `${shared}/status`, { token: who.token, text: 'sent' });
      expect(res.status).toBe(404);
    }
  });
  it("2: the caller's own address unverified answers 403 (read fresh from D1, not the token cache)", async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com' });
    expect((await call('GET', '/v1/whoami', { token: u.token })).status).toBe(200); // caches the verified user
    await db().update(users).set({ email_verified: false }).where(eq(users.username, u.username)); // another isolate's change
    const res = await post(u, path);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain('verify');
  });
  it('3: a send in flight answers 425', async () => {
    const u = await sender({ plan: 'premium' });
    const { path } = await newMail(u, { 'recipients/to': newsletter(60).join('\n') });
    const [a, b] = await Promise.all([post(u, path), post(u, path)]);
    expect([a.status, b.status].sort()).toEqual([202, 425]);
    await untilReady(u, path);
  });
  it('4: more than 10 sends of the same content in 30 minutes answers 429 with retry_after_seconds', async () => {
    const u = await sender();
    const { path } = await newMail(u, { content: 'eleven', 'recipients/to': 'a@example.com' });
    for (let i = 0; i < 10; i++) {
      expect((await post(u, path)).status, `send ${i + 1}`).toBe(202);
      await untilReady(u, path);
    }
    const held = await post(u, path);
    expect(held.status).toBe(429);
    const body = (await held.json()) as { retry_after_seconds: number };
    expect(body.retry_after_seconds).toBeGreaterThan(0);
    expect(body.retry_after_seconds).toBeLessThanOrEqual(30 * 60);
    // The window slides: 30 minutes later the content may go again.
    setClockOffset(WINDOW_MS + 1000);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
  it('5: config/enabled falsy answers 403', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com', 'config/enabled': 'off' });
    const res = await post(u, path);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain('config/enabled');
    expect((await call('POST', `${path}/config/enabled`, { token: u.token, text: 'yes' })).status).toBe(204);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
  it('the order holds when several checks fail at once', async () => {
    const u = await sender();
    const { path, name, id } = await newMail(u, { content: 'order', 'recipients/to': 'a@example.com' });
    for (let i = 0; i < 10; i++) {
      expect((await post(u, path)).status).toBe(202);
      await untilReady(u, path);
    }
    expect((await call('POST', `${path}/config/enabled`, { token: u.token, text: 'no' })).status).toBe(204);
    // window full + disabled -> 429 (rate before enabled)
    expect((await post(u, path)).status).toBe(429);
    // in flight + window full + disabled -> 425: a test send holds the test key
    const t1 = await post(u, path, { text: 'test' });
    expect(t1.status).toBe(202);
    // Held until released, however fast t1 is delivered: the second test is decided while it is in flight.
    const release = await holdInFlight(id, 'test');
    const t2 = await post(u, path, { text: 'test' });
    expect(t2.status).toBe(425);
    await release();
    await untilReady(u, path);
    // unverified + window full + disabled -> 403 naming the address
    await db().update(users).set({ email_verified: false }).where(eq(users.username, u.username));
    const unverified = await post(u, path);
    expect(unverified.status).toBe(403);
    expect(((await unverified.json()) as { message: string }).message).toContain('verify');
    // non-owner + everything else failing -> 404
    const stranger = await sender();
    expect(
      (await call('POST', `/v1/users/${u.username}/vis/mails/${name}/status`, { token: stranger.token, text: 'sent' }))
        .status,
    ).toBe(404);
  });
  it('in flight is checked before the window and enabled: a held re-fire answers 425, not 429 or 403', async () => {
    const u = await sender({ plan: 'premium' });
    const { path, id } = await newMail(u, { content: 'inflight-order', 'recipients/to': 'a@example.com' });
    for (let i = 0; i < 10; i++) {
      expect((await post(u, path)).status).toBe(202);
      await untilReady(u, path);
    }
    expect((await call('POST', `${path}/config/enabled`, { token: u.token, text: 'no' })).status).toBe(204);
    // The window is full and the e-mail disabled; a send to the stored list held in flight
    // (as a slow delivery would hold it) decides first, however fast real deliveries end.
    const release = await holdInFlight(id, 'list');
    expect((await post(u, path)).status).toBe(425);
    await release();
    expect((await post(u, path)).status).toBe(429);
  });
  it('malformed bodies answer 400 and are logged; nothing is sent', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com' });
    const bad: unknown[] = [
      '[',
      { action: 'blast' },
      { to: 'a@example.com' },
      { to: [] },
      { to: ['nope'] },
      { to: ['a@example.com'], cc: ['b@example.com'] },
      [1],
    ];
    for (const b of bad) {
      const res =
        typeof b === 'string'
          ? await call('POST', `${path}/status`, { token: u.token, body: b, type: 'application/json' })
          : await post(u, path, { json: b });
      expect(res.status, JSON.stringify(b)).toBe(400);
    }
    expect((await post(u, path, { text: '' })).status).toBe(400);
    expect(
      (
        await call('POST', `${path}/status`, {
          token: u.token,
          text: 'sent',
          type: 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(415);
    expect(await runs(u, path)).toEqual([]);
    const rejected = (log: string[]) => log.filter((l) => l.includes('rejected (400)'));
    expect(rejected(await logWhen(u, path, (l) => rejected(l).length >= 8))).toHaveLength(8);
  });
});
