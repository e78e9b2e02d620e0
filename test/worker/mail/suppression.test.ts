// Suppression: unsubscribe links (forged ones record nothing) and bounced addresses.
import { describe, expect, it, vi } from 'vitest';
import { call, OPS, unique } from '../helpers';
import { logOf, newMail, outboxTo, post, runs, sender, untilReady } from './fixtures';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

describe('suppression', () => {
  it('GET on the unsubscribe link records the suppression; later sends skip the address', async () => {
    const u = await sender();
    const a = `${unique('a')}@example.com`;
    const b = `${unique('b')}@example.com`;
    const { path } = await newMail(u, { content: 'first', 'recipients/to': `${a} ${b}` });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const link = /Unsubscribe: (\S+)/.exec((await outboxTo(a))[0]!.text)![1]!;
    const res = await call('GET', new URL(link).pathname);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(a);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(a)).toHaveLength(1);
    expect(await outboxTo(b)).toHaveLength(2);
    expect((await runs(u, path))[1]).toMatchObject({ status: 'delivered', delivered: 1, suppressed: 1 });
    expect(await logOf(u, path)).toContain(`${a} unsubscribed`);
    // ad-hoc recipients are suppressed alike
    expect((await post(u, path, { json: { to: [a] } })).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(a)).toHaveLength(1);
  });
  it('a forged or altered unsubscribe token answers 404 and records nothing', async () => {
    const u = await sender();
    const a = `${unique('a')}@example.com`;
    const { path } = await newMail(u, { 'recipients/to': a });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const token = /unsubscribe\/(\S+)/.exec((await outboxTo(a))[0]!.text)![1]!;
    const [data, sig] = token.split('.') as [string, string];
    const other = btoa(JSON.stringify([1, 1, 'victim@example.com']))
      .replace(/=+$/, '')
      .replace(/\+/g, '-')
      .replace(/\//g, '_');
    // Alter one character of the signature to a different one (never a no-op).
    const altered = `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    for (const t of [`${other}.${sig}`, `${data}.${altered}`, 'garbage', `${data}`]) {
      expect((await call('GET', `/v1/mail/unsubscribe/${t}`)).status, t).toBe(404);
    }
  });
  it('bounced addresses (recorded by the operator) are suppressed for every sender', async () => {
    const u = await sender();
    const a = `${unique('bounce')}@example.com`;
    expect((await call('PUT', `/v1/ops/mail/bounces/${a}`, { token: OPS })).status).toBe(204);
    expect((await call('PUT', '/v1/ops/mail/bounces/nope', { token: OPS })).status).toBe(400);
    const { path } = await newMail(u, { 'recipients/to': a });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(a)).toHaveLength(0);
    expect((await runs(u, path))[0]).toMatchObject({ status: 'failed', suppressed: 1 });
  });
});
