// Test sends: only to the caller's own verified address, past recipients, enabled and the window.
import { describe, expect, it, vi } from 'vitest';
import { makeUser, unique } from '../helpers';
import { newMail, outboxTo, post, runs, sender, untilReady } from './fixtures';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

describe('test sends', () => {
  it("go only to the caller's own verified address and bypass recipients, enabled and the window", async () => {
    const u = await sender();
    const { path } = await newMail(u, { content: 'testing', subject: 'T', 'config/enabled': 'false' });
    for (let i = 0; i < 12; i++) {
      const res = await post(u, path, i % 2 ? { text: 'testing' } : { json: { action: 'test' } });
      expect(res.status, `test ${i + 1}`).toBe(202);
      expect(await res.json()).toMatchObject({ status: 202, state: 'testing' });
      await untilReady(u, path);
    }
    const sent = await outboxTo(u.email);
    expect(sent).toHaveLength(12);
    expect(sent.every((m) => m.kind === 'test' && m.to.length === 1 && m.subject === 'T')).toBe(true);
    expect((await runs(u, path)).every((r) => r.action === 'test' && r.status === 'delivered')).toBe(true);
  });
  it('an unverified caller cannot test (403)', async () => {
    const u = await makeUser({ email: `${unique('x')}@example.com` });
    const { path } = await newMail(u);
    expect((await post(u, path, { text: 'test' })).status).toBe(403);
  });
});
