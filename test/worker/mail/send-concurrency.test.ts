// Concurrent sends, decided exactly by the MailObject: the in-flight lock per recipient set
// and the rate window per content and ad-hoc set.
import { describe, expect, it, vi } from 'vitest';
import { call, unique } from '../helpers';
import { burstProblems } from './burst';
import { newMail, newsletter, outboxTo, PNG, post, runs, sender, untilReady } from './fixtures';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

describe('concurrency', () => {
  it(
    '50 concurrent sends are decided exactly: never two in flight, the held ones answer 425',
    { timeout: 240_000 },
    async () => {
      // A newsletter-sized list keeps the accepted send in flight while the burst is decided.
      const u = await sender({ plan: 'premium' });
      const { path } = await newMail(u, { 'recipients/to': newsletter(60).join('\n') });
      const codes = (await Promise.all(Array.from({ length: 50 }, () => post(u, path)))).map((r) => r.status);
      await untilReady(u, path);
      expect(burstProblems(codes, await runs(u, path), 60)).toEqual([]);
    },
  );
  it('ad-hoc sends to different sets are independent; an identical re-fire in flight is held', async () => {
    const u = await sender({ plan: 'premium' });
    const { path } = await newMail(u);
    const a = `${unique('a')}@example.com`;
    const b = `${unique('b')}@example.com`;
    // newsletter-sized sets keep the sends in flight while the re-fire is decided
    const [toA, toB] = [
      [a, ...newsletter(40)],
      [b, ...newsletter(40)],
    ];
    const codes = (
      await Promise.all([
        post(u, path, { json: { to: toA } }),
        post(u, path, { json: { to: toB } }),
        post(u, path, { json: { to: toA } }),
      ])
    ).map((r) => r.status);
    expect(codes.filter((c) => c === 202)).toHaveLength(2);
    expect(codes.filter((c) => c === 425)).toHaveLength(1);
    await untilReady(u, path);
    expect(await outboxTo(a)).toHaveLength(1);
    expect(await outboxTo(b)).toHaveLength(1);
  });
  it('ad-hoc sends count in the window per recipient set', async () => {
    const u = await sender();
    const { path } = await newMail(u, { content: 'per-set' });
    const a = `${unique('a')}@example.com`;
    for (let i = 0; i < 10; i++) {
      expect((await post(u, path, { json: { to: [a] } })).status).toBe(202);
      await untilReady(u, path);
    }
    expect((await post(u, path, { json: { to: [a.toUpperCase()] } })).status).toBe(429);
    expect((await post(u, path, { json: { to: [`${unique('b')}@example.com`] } })).status).toBe(202);
    await untilReady(u, path);
    // the stored-list window is its own as well
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
  it('editing the e-mail (or an embedded asset) resets the window', async () => {
    const u = await sender();
    const { path } = await newMail(u, { content: 'v1 ![l](assets/l.png)', 'recipients/to': 'a@example.com' });
    const upload = (bytes: Uint8Array<ArrayBuffer>) =>
      call('POST', `${path}/assets/l.png`, { token: u.token, body: bytes, headers: { 'Content-Type': 'image/png' } });
    expect((await upload(PNG)).status).toBe(201);
    for (let i = 0; i < 10; i++) {
      expect((await post(u, path)).status).toBe(202);
      await untilReady(u, path);
    }
    expect((await post(u, path)).status).toBe(429);
    expect((await upload(PNG)).status).toBe(204); // the same bytes: the same content
    expect((await post(u, path)).status).toBe(429);
    expect((await upload(new Uint8Array([...PNG, 0]))).status).toBe(204); // the embedded asset changed
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect((await call('POST', `${path}/content`, { token: u.token, text: 'v2' })).status).toBe(204);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
});
