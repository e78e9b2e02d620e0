// The MailObject: it runs in the test's isolate (the clock offset) and forgets its state
// when its e-mail is deleted.
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setClockOffset } from '../../../src/core/clock';
import { mailStub } from '../../../src/mail/stub';
import { call } from '../helpers';
import { newMail, post, sender, untilReady } from './fixtures';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

afterEach(() => setClockOffset(0));

describe('the MailObject and the clock', () => {
  it("runs in the test's isolate: it sees the clock offset the test sets", async () => {
    const u = await sender();
    const { id } = await newMail(u);
    setClockOffset(123_456);
    expect(await mailStub(env, id).clockOffset()).toBe(123_456);
  });
  it('deleting an e-mail clears its object state', async () => {
    const u = await sender();
    const { path, id } = await newMail(u, { 'recipients/to': 'a@example.com' });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect((await call('DELETE', path, { token: u.token })).status).toBe(204);
    expect(await mailStub(env, id).status()).toBe('ready');
  });
});
