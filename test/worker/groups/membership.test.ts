// The membership state machine: invite (pending), accept or decline, promote and demote,
// remove, revoke and leave; the last founder stays; concurrent answers and invites.
import { beforeAll, describe, expect, it } from 'vitest';
import { accept, join, json, orgLite, outbox, person, sharedGroup, T, type World } from './fixtures';
import { call, unique } from '../helpers';

describe('membership state machine', T, () => {
  let w: World;
  beforeAll(async () => {
    w = await sharedGroup();
  }, T.timeout);

  it('PUT into a role folder invites: pending, listed with the I- prefix, e-mail of kind invite', async () => {
    const u = await person();
    const res = await call('PUT', `${w.path}/roles/superusers/${u.username}`, { token: w.founder.token });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({
      group: w.ref,
      username: u.username,
      role: 'superusers',
      state: 'pending',
      invitation_sent: true,
    });
    const names = (await json(await call('GET', `${w.path}/roles/superusers`, { token: w.founder.token }))).map(
      (i: { name: string }) => i.name,
    );
    expect(names).toContain(`I-${u.username}`);
    expect(names).toContain(w.superuser.username);
    const mails = await outbox(`${u.username}@example.com`);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ kind: 'invite' });
    expect(mails[0]!.text).toContain(`/v1/admin/invites/${w.ref}/accept`);
    const invites = await json(await call('GET', '/v1/admin/invites', { token: u.token }));
    expect(invites).toEqual([
      expect.objectContaining({ name: w.ref, role: 'superusers', invited_by: w.founder.username }),
    ]);
  });

  it('a pending invitee gets nothing from the group until they accept', async () => {
    expect(await (await call('GET', `${w.path}/role`, { token: w.pending.token })).text()).toBe('');
    expect((await call('GET', `${w.path}/roles/members`, { token: w.pending.token })).status).toBe(403);
  });

  it('POST yes to accept makes the invitee active; POST no declines', async () => {
    const [yes, no] = await Promise.all([person(), person()]);
    await call('PUT', `${w.path}/roles/members/${yes.username}`, { token: w.admin.token });
    await call('PUT', `${w.path}/roles/members/${no.username}`, { token: w.admin.token });
    const a = await accept(yes, w.ref, 'yes');
    expect(a.status).toBe(200);
    expect(await json(a)).toMatchObject({ state: 'active', role: 'members' });
    expect(await (await call('GET', `${w.path}/role`, { token: yes.token })).text()).toBe('members');
    const d = await accept(no, w.ref, 'no');
    expect(await json(d)).toMatchObject({ state: 'declined' });
    expect((await call('GET', `${w.path}/role`, { token: no.token })).status).toBe(404);
    const names = (await json(await call('GET', `${w.path}/roles/members`, { token: w.founder.token }))).map(
      (i: { name: string }) => i.name,
    );
    expect(names).toContain(yes.username);
    expect(names.some((n: string) => n.endsWith(no.username))).toBe(false);
    // a declined user can be invited again
    expect((await call('PUT', `${w.path}/roles/members/${no.username}`, { token: w.admin.token })).status).toBe(200);
    expect((await accept(no, w.ref)).status).toBe(200);
  });

  it('only the invited user accepts: someone else, a missing invite and an answered invite are 404', async () => {
    const u = await person();
    await call('PUT', `${w.path}/roles/members/${u.username}`, { token: w.founder.token });
    expect((await accept(w.stranger, w.ref)).status).toBe(404);
    expect((await accept(w.founder, w.ref)).status).toBe(404);
    expect((await accept(u, `@${w.founder.username}~nosuchgroup`)).status).toBe(404);
    expect((await accept(u, 'not-a-ref')).status).toBe(400);
    expect((await accept(u, w.ref)).status).toBe(200);
    expect((await accept(u, w.ref)).status).toBe(404);
  });

  it('bodies other than yes/no answer 400 (form bodies 415) and leave the invite pending', async () => {
    const u = await person();
    await call('PUT', `${w.path}/roles/members/${u.username}`, { token: w.founder.token });
    for (const body of ['Yes', 'y', 'yes\n', '', 'maybe'])
      expect((await accept(u, w.ref, body)).status, body).toBe(400);
    expect(
      (
        await call('POST', `/v1/admin/invites/${w.ref}/accept`, {
          token: u.token,
          text: 'yes',
          type: 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(415);
    expect(await json(await call('GET', '/v1/admin/invites', { token: u.token }))).toHaveLength(1);
  });

  it('concurrent accepts: exactly one succeeds', async () => {
    const u = await person();
    await call('PUT', `${w.path}/roles/members/${u.username}`, { token: w.founder.token });
    const results = await Promise.all([accept(u, w.ref), accept(u, w.ref), accept(u, w.ref, 'no')]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 404)).toHaveLength(2);
  });

  it('PUT of an active member into another role promotes or demotes at once (200)', async () => {
    const u = await person();
    await join(w.path, w.ref, w.founder, u, 'members');
    const up = await call('PUT', `${w.path}/roles/admins/${u.username}`, { token: w.founder.token });
    expect(up.status).toBe(200);
    expect(await json(up)).toMatchObject({ role: 'admins', state: 'active' });
    expect(await (await call('GET', `${w.path}/role`, { token: u.token })).text()).toBe('admins');
    const down = await call('PUT', `${w.path}/roles/superusers/${u.username}`, { token: w.admin.token });
    expect(down.status).toBe(200);
    expect(await (await call('GET', `${w.path}/role`, { token: u.token })).text()).toBe('superusers');
    expect((await call('PUT', `${w.path}/roles/superusers/${u.username}`, { token: w.admin.token })).status).toBe(409);
  });

  it('DELETE removes the user from the role; a role the user does not hold is 404', async () => {
    const u = await person();
    await join(w.path, w.ref, w.founder, u, 'members');
    expect((await call('DELETE', `${w.path}/roles/admins/${u.username}`, { token: w.founder.token })).status).toBe(404);
    expect((await call('DELETE', `${w.path}/roles/members/${u.username}`, { token: w.admin.token })).status).toBe(204);
    expect((await call('GET', `${w.path}/role`, { token: u.token })).status).toBe(404);
  });

  it('DELETE of a pending invitee revokes the invite', async () => {
    const u = await person();
    await call('PUT', `${w.path}/roles/members/${u.username}`, { token: w.founder.token });
    expect((await call('DELETE', `${w.path}/roles/members/${u.username}`, { token: w.founder.token })).status).toBe(
      204,
    );
    expect(await json(await call('GET', '/v1/admin/invites', { token: u.token }))).toEqual([]);
  });

  it('a member leaves on their own; the last founder of an organisation group cannot leave or step down (409)', async () => {
    const u = await person();
    await join(w.path, w.ref, w.founder, u, 'members');
    expect((await call('DELETE', `${w.path}/roles/members/${u.username}`, { token: u.token })).status).toBe(204);
    // An organisation group has no owner (a user group's is always its founder: namespace-owner.test.ts).
    const o = await orgLite();
    const f = o.account;
    const leave = await call('DELETE', `${o.path}/roles/founders/${f.username}`, { token: f.token });
    expect(leave.status).toBe(409);
    expect((await json(leave)).message).toMatch(/last founder/);
    expect((await call('PUT', `${o.path}/roles/members/${f.username}`, { token: f.token })).status).toBe(409);
    expect(await (await call('GET', `${o.path}/role`, { token: f.token })).text()).toBe('founders');
  });

  it('two founders of an organisation group stepping down at once: one stays founder', async () => {
    const o = await orgLite();
    const [f1, f2] = [o.account, await person()];
    await join(o.path, `+${o.org}~${o.group}`, f1, f2, 'founders');
    const [a, b] = await Promise.all([
      call('DELETE', `${o.path}/roles/founders/${f1.username}`, { token: f1.token }),
      call('DELETE', `${o.path}/roles/founders/${f2.username}`, { token: f2.token }),
    ]);
    expect([a.status, b.status].sort()).toEqual([204, 409]);
    const stayed = a.status === 409 ? f1 : f2;
    const founders = await json(await call('GET', `${o.path}/roles/founders`, { token: stayed.token }));
    expect(founders.map((i: { name: string }) => i.name)).toEqual([stayed.username]);
  });

  it('concurrent invites of the same user: one 201, the other 409', async () => {
    const u = await person();
    const [a, b] = await Promise.all([
      call('PUT', `${w.path}/roles/members/${u.username}`, { token: w.founder.token }),
      call('PUT', `${w.path}/roles/members/${u.username}`, { token: w.admin.token }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
  });

  it('unknown roles answer 400, unknown users 404, malformed usernames 400; nothing changes', async () => {
    const u = await person();
    const bad = await call('PUT', `${w.path}/roles/owners/${u.username}`, { token: w.founder.token });
    expect(bad.status).toBe(400);
    expect((await json(bad)).message).toMatch(/unknown role/);
    expect((await call('PUT', `${w.path}/roles/members/${unique('nobody')}`, { token: w.founder.token })).status).toBe(
      404,
    );
    expect((await call('PUT', `${w.path}/roles/members/Bad%20Name`, { token: w.founder.token })).status).toBe(400);
    expect((await call('GET', `${w.path}/roles/owners`, { token: w.founder.token })).status).toBe(400);
    expect(await json(await call('GET', '/v1/admin/invites', { token: u.token }))).toEqual([]);
  });
});
