// Recipient lists: who may be written (addresses, @user, groups, me), atomic writes, the
// plan's allowance of direct addresses, and the log of changes. Groups are core
// groups/members rows (fixtures.ts).
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser, unique } from '../helpers';
import { logOf, makeGroup, newMail, sender } from './fixtures';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

describe('recipient lists', () => {
  it("writing recipients before the caller's address is verified answers 424 and stores nothing", async () => {
    const u = await makeUser({ email: `${unique('x')}@example.com` });
    const { path } = await newMail(u);
    const res = await call('POST', `${path}/recipients/to`, { token: u.token, text: 'a@example.com' });
    expect(res.status).toBe(424);
    expect(await res.json()).toMatchObject({ status: 424, message: expect.stringContaining('verify') });
    expect(await (await call('GET', `${path}/recipients/to`, { token: u.token })).text()).toBe('');
  });
  it('a write is atomic: one bad line answers 400 naming it in rejected, and nothing changes', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'keep@example.com' });
    const res = await call('POST', `${path}/recipients/to`, {
      token: u.token,
      text: 'ok@example.com\nnot-an-address\n@nosuchuser_zz\n+acme~nosuch',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { rejected: { line: string; reason: string }[] };
    expect(body.rejected.map((r) => r.line)).toEqual(['not-an-address', '@nosuchuser_zz', '+acme~nosuch']);
    expect(body.rejected.every((r) => r.reason.length > 0)).toBe(true);
    expect(await (await call('GET', `${path}/recipients/to`, { token: u.token })).text()).toBe('keep@example.com');
  });
  it('accepts addresses, @user, @user~group, +org~group, me and self; a group needs the owner as active member', async () => {
    const u = await sender();
    const other = await sender();
    const mine = await makeGroup(u.username);
    const theirs = await makeGroup(other.username);
    const org = await makeGroup(u.username, [], { org: unique('o').slice(0, 20) });
    const { path } = await newMail(u);
    const list = `a@example.com @${other.username} ${mine.ref}\n${org.ref} me self`;
    expect((await call('POST', `${path}/recipients/cc`, { token: u.token, text: list })).status).toBe(204);
    expect(await (await call('GET', `${path}/recipients/cc`, { token: u.token })).text()).toBe(list);
    const res = await call('POST', `${path}/recipients/bcc`, { token: u.token, text: theirs.ref });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { rejected: { reason: string }[] }).rejected[0]!.reason).toContain('active role');
  });
  it('an unknown group and a group the owner holds no active role in are rejected with the same reason (no group is revealed)', async () => {
    const u = await sender();
    const other = await sender();
    const theirs = await makeGroup(other.username);
    const pendingIn = await makeGroup(other.username, [{ username: u.username, state: 'pending' }]);
    const unknown = `@${other.username}~${unique('none').slice(0, 20)}`;
    const { path } = await newMail(u);
    const reasons = async (ref: string) => {
      const res = await call('POST', `${path}/recipients/to`, { token: u.token, text: ref });
      expect(res.status, ref).toBe(400);
      return ((await res.json()) as { rejected: { line: string; reason: string }[] }).rejected.map((r) => ({
        line: r.line,
        reason: r.reason.replace(ref, '<ref>'),
      }));
    };
    const expected = [
      {
        line: expect.any(String),
        reason: 'no such group: <ref> (a mail goes only to groups its owner holds an active role in)',
      },
    ];
    expect(await reasons(unknown)).toEqual(expected);
    expect(await reasons(theirs.ref)).toEqual(expected);
    expect(await reasons(pendingIn.ref)).toEqual(expected);
  });
  it('direct addresses beyond the plan allowance (free: 10 across to, cc, bcc) are rejected', async () => {
    const u = await sender();
    const { path } = await newMail(u, {
      'recipients/to': Array.from({ length: 6 }, (_, i) => `t${i}@example.com`).join(' '),
    });
    const res = await call('POST', `${path}/recipients/cc`, {
      token: u.token,
      text: Array.from({ length: 5 }, (_, i) => `c${i}@example.com`).join(' '),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { rejected: { line: string }[] }).rejected.map((r) => r.line)).toEqual([
      'c4@example.com',
    ]);
    const p = await sender({ plan: 'premium' });
    const m = await newMail(p);
    expect(
      (
        await call('POST', `${m.path}/recipients/to`, {
          token: p.token,
          text: Array.from({ length: 11 }, (_, i) => `t${i}@example.com`).join(' '),
        })
      ).status,
    ).toBe(204);
  });
  it('recipient changes are logged', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com me' });
    expect((await call('DELETE', `${path}/recipients/to`, { token: u.token })).status).toBe(204);
    const log = await logOf(u, path);
    expect(log).toContain(`recipients/to set to 2 item(s): a@example.com me by ${u.username}`);
    expect(log).toContain(`recipients/to cleared by ${u.username}`);
  });
});
