// Stats and log: one stats row per send, variables in the content, and the log lines of
// triggers, rejections and recipients (named as written, never the address behind them).
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { users } from '../../../src/db/schema';
import { deliverSend } from '../../../src/mail/delivery';
import { call, OPS, unique } from '../helpers';
import { db, logOf, logWhen, makeGroup, newMail, outboxTo, post, runs, sender, untilReady } from './fixtures';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

describe('stats and log', () => {
  it('stats/runs has one row per send (timestamp, duration, status) in text and JSON', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': `${unique('s')}@example.com` });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect((await post(u, path, { text: 'test' })).status).toBe(202);
    await untilReady(u, path);
    const rows = await runs(u, path);
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(typeof r.duration).toBe('number');
      expect(r.status).toBe('delivered');
    }
    const text = await (await call('GET', `${path}/stats/runs`, { token: u.token })).text();
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^timestamp\s+duration\s+status/);
  });
  it('variable references in the content render as formatted values, coloured by threshold; a value change resets the window', async () => {
    const u = await sender();
    const doc = `/v1/vis/docs/${unique('d')}`;
    expect((await call('PUT', doc, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${doc}/vars/growth`, { token: u.token })).status).toBe(201);
    for (const [k, v] of [
      ['type', 'relative'],
      ['value', '-0.042'],
      ['format', '+.1%'],
    ])
      await call('POST', `${doc}/vars/growth/${k}`, { token: u.token, text: v });
    const other = await sender(); // another user's private document stays unresolved
    const hidden = `/v1/vis/docs/${unique('h')}`;
    await call('PUT', hidden, { token: other.token });
    await call('PUT', `${hidden}/vars/x`, { token: other.token });
    const a = `${unique('a')}@example.com`;
    const ref = `{/u/${u.username}/d/${doc.split('/').pop()}/v/growth}`;
    const secret = `{/u/${other.username}/d/${hidden.split('/').pop()}/v/x}`;
    const { path } = await newMail(u, { content: `Growth: ${ref} and ${secret}`, 'recipients/to': a });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const [m] = await outboxTo(a);
    expect(m!.text).toContain('Growth: ↓ \u22124.2%');
    expect(m!.text).toContain(secret);
    // The threshold colour is inlined on the value (mail clients drop <style> elements).
    expect(m!.html).not.toContain('<style');
    expect(m!.html).toMatch(/<span class="var var-down var-c0"[^>]* style="color:#cf222e;[^"]*">↓ \u22124.2%<\/span>/);
    // Fill the window, then change the value the mail embeds: the content is new.
    for (let i = 1; i < 10; i++) {
      expect((await post(u, path)).status).toBe(202);
      await untilReady(u, path);
    }
    expect((await post(u, path)).status).toBe(429);
    await call('POST', `${doc}/vars/growth/value`, { token: u.token, text: '0.05' });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
  it('the log records triggers and rejected sends with their reasons', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com', 'config/enabled': 'no' });
    expect((await post(u, path)).status).toBe(403);
    expect((await post(u, path, { text: 'test' })).status).toBe(202);
    await untilReady(u, path);
    const log = await logWhen(u, path, (l) => l.some((x) => x.includes('rejected (403)')));
    expect(log.some((l) => l.startsWith(`send by ${u.username} rejected (403): config/enabled is off`))).toBe(true);
    expect(log.some((l) => /^send \S+ triggered by .*: test to /.test(l))).toBe(true);
    expect(log.some((l) => /^send \S+ \(test\) delivered/.test(l))).toBe(true);
  });
});

describe('the log names recipients as written, never the address of an @user or a group member', () => {
  const leaks = (log: string[], ...emails: string[]) =>
    log.filter((l) => emails.some((e) => l.toLowerCase().includes(e.toLowerCase())));

  it('a suppressed @user, group member and direct address: the suppression line names @user, the group and the address as written', async () => {
    const [u, carol, dave] = [await sender(), await sender(), await sender()];
    const group = await makeGroup(u.username, [{ username: dave.username }]);
    const direct = `${unique('d')}@example.com`;
    for (const a of [carol.email, dave.email, direct])
      expect((await call('PUT', `/v1/ops/mail/bounces/${a}`, { token: OPS })).status).toBe(204);
    const { path } = await newMail(u, { 'recipients/to': `@${carol.username}\n${group.ref}\n${direct}` });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const log = await logOf(u, path);
    expect(leaks(log, carol.email, dave.email)).toEqual([]);
    const line = log.find((l) => l.includes('suppressed:'))!;
    expect(line).toContain(`@${carol.username}`);
    expect(line).toContain(group.ref);
    expect(line).toContain(direct);
  });

  it('a transport refusal names the @user, not their address', async () => {
    const [u, erin] = [await sender(), await sender()];
    const { path, id } = await newMail(u, { 'recipients/to': `@${erin.username}` });
    const owner = (await db().select().from(users).where(eq(users.username, u.username)).get())!;
    const job = {
      id: 'j1',
      action: 'send' as const,
      key: 'list',
      resourceId: id,
      callerId: owner.id,
      callerName: u.username,
      acceptedOn: Date.now(),
    };
    expect(await deliverSend(env, job, async () => Promise.reject(new Error('relay said no')))).toBe('failed');
    const log = await logOf(u, path);
    expect(log.some((l) => l.includes(`transport refused @${erin.username}: relay said no`))).toBe(true);
    expect(leaks(log, erin.email)).toEqual([]);
  });

  it("an @user's unsubscribe is logged as @user; a test send's trigger line names no address", async () => {
    const [u, erin] = [await sender(), await sender()];
    const { path } = await newMail(u, { 'recipients/to': `@${erin.username}` });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const link = /Unsubscribe: (\S+)/.exec((await outboxTo(erin.email))[0]!.text)![1]!;
    expect((await call('GET', new URL(link).pathname)).status).toBe(200);
    expect((await post(u, path, { text: 'test' })).status).toBe(202);
    await untilReady(u, path);
    const log = await logOf(u, path);
    expect(log).toContain(`@${erin.username} unsubscribed`);
    expect(log.some((l) => /^send \S+ triggered by .*: test to /.test(l))).toBe(true);
    expect(leaks(log, erin.email, u.email)).toEqual([]);
  });
});
