// Delivery: status while sending, recipients resolved at send time, inline assets, ad-hoc
// lists, and the run record when nothing (or not everything) could be delivered.
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { members, users } from '../../../src/db/schema';
import { deliverSend } from '../../../src/mail/delivery';
import { call, makeUser, unique } from '../helpers';
import {
  addMember,
  db,
  logOf,
  makeGroup,
  newMail,
  outboxTo,
  PNG,
  post,
  runs,
  sender,
  statusOf,
  untilReady,
  userId,
} from './fixtures';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

describe('delivery', () => {
  it('status is sending on acceptance and back to ready when delivery ends', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com' });
    const res = await post(u, path);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ status: 202, state: 'sending' });
    await untilReady(u, path);
    expect(await statusOf(u, path)).toBe('ready');
  });
  it('resolves recipients at send time: addresses, verified users and group members, me; one message each', async () => {
    const u = await sender();
    const verified = await sender();
    const unverified = await makeUser({ email: `${unique('nv')}@example.com` });
    const member = await sender();
    const pending = await sender();
    const g = await makeGroup(u.username, [
      { username: member.username },
      { username: pending.username, state: 'pending' },
    ]);
    const direct = `${unique('d')}@example.com`;
    const { path } = await newMail(u, {
      content: '# Hello\n\nBody text',
      subject: 'News',
      'recipients/to': `${direct} @${verified.username}`,
      'recipients/cc': `@${unverified.username} ${g.ref}`,
      'recipients/bcc': `me ${direct.toUpperCase()}`,
    });
    // the member joins later: resolution happens at send time
    const late = await sender();
    await addMember(g.id, late.username, 'active');
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    for (const a of [direct, verified.email, member.email, late.email, u.email]) {
      const got = await outboxTo(a);
      expect(got, a).toHaveLength(1);
      expect(got[0]).toMatchObject({ kind: 'mail', to: [a.toLowerCase()], subject: 'News' });
      expect(got[0]!.html).toMatch(/<h1 style="[^"]*">Hello<\/h1>/);
      expect(got[0]!.text).toMatch(/Unsubscribe: http.*\/v1\/mail\/unsubscribe\//);
      expect(got[0]!.html).toContain('/v1/mail/unsubscribe/');
    }
    expect(await outboxTo(pending.email)).toHaveLength(0);
    const [run] = await runs(u, path);
    expect(run).toMatchObject({ status: 'delivered', action: 'send', delivered: 5 });
    expect((await logOf(u, path)).some((l) => l.includes(`@${unverified.username}: no verified address`))).toBe(true);
  });
  it("a group the mail's owner no longer holds an active role in reaches nobody at send time (the log says so)", async () => {
    const u = await sender();
    const other = await sender();
    const member = await sender();
    const g = await makeGroup(other.username, [{ username: u.username }, { username: member.username }]);
    const direct = `${unique('d')}@example.com`;
    const { path } = await newMail(u, { subject: 'Left', 'recipients/to': `${direct} ${g.ref}` });
    // the owner leaves after writing the list
    await db()
      .delete(members)
      .where(and(eq(members.group_id, g.id), eq(members.user_id, await userId(u.username))));
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(direct)).toHaveLength(1);
    expect(await outboxTo(member.email)).toHaveLength(0);
    expect((await logOf(u, path)).some((l) => l.includes(`no such group: ${g.ref}`))).toBe(true);
  });
  it('embedded assets travel as inline parts', async () => {
    const u = await sender();
    const to = `${unique('i')}@example.com`;
    const { path } = await newMail(u, { content: '![logo](assets/logo.png)' });
    expect(
      (
        await call('POST', `${path}/assets/logo.png`, {
          token: u.token,
          body: PNG,
          headers: { 'Content-Type': 'image/png' },
        })
      ).status,
    ).toBe(201);
    expect((await post(u, path, { json: { to: [to] } })).status).toBe(202);
    await untilReady(u, path);
    const [m] = await outboxTo(to);
    expect(m!.html).toContain('src="cid:logo.png"');
    expect(m!.attachments).toEqual([{ filename: 'logo.png', content_type: 'image/png', size: PNG.byteLength }]);
  });
  it('an ad-hoc to replaces the stored list for that send only', async () => {
    const u = await sender();
    const stored = `${unique('s')}@example.com`;
    const adhoc = `${unique('h')}@example.com`;
    const { path } = await newMail(u, { 'recipients/to': stored });
    expect((await post(u, path, { json: { action: 'send', to: [adhoc] } })).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(adhoc)).toHaveLength(1);
    expect(await outboxTo(stored)).toHaveLength(0);
    expect(await (await call('GET', `${path}/recipients/to`, { token: u.token })).text()).toBe(stored);
  });
  it("an ad-hoc to beyond the plan's direct-address allowance answers 400", async () => {
    const u = await sender();
    const { path } = await newMail(u);
    const res = await post(u, path, { json: { to: Array.from({ length: 11 }, (_, i) => `x${i}@example.com`) } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('allows 10');
  });
  it('no deliverable recipients: the run is failed, status back to ready', async () => {
    const u = await sender();
    const { path } = await newMail(u);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect((await runs(u, path))[0]).toMatchObject({ status: 'failed', delivered: 0 });
  });
  it('a transport failure marks the run partial or failed and keeps the record', async () => {
    const u = await sender();
    const ok = `${unique('ok')}@example.com`;
    const bad = `${unique('bad')}@example.com`;
    const { path, id } = await newMail(u, { 'recipients/to': `${ok} ${bad}` });
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
    const failing = async (_e: Env, _d: unknown, m: { to: string[] }) => {
      if (m.to.includes(bad)) throw new Error('relay said no');
    };
    expect(await deliverSend(env, job, failing)).toBe('partial');
    expect(await deliverSend(env, { ...job, id: 'j2' }, async () => Promise.reject(new Error('down')))).toBe('failed');
    const rows = await runs(u, path);
    expect(rows.map((r) => [r.status, r.delivered, r.failed])).toEqual([
      ['partial', 1, 1],
      ['failed', 0, 2],
    ]);
    expect((await logOf(u, path)).some((l) => l.includes(`transport refused ${bad}: relay said no`))).toBe(true);
  });
});
