// Who may invite whom, per role of the caller; an org admin's oversight and claims; joining
// an open group without an invite.
import { beforeAll, describe, expect, it } from 'vitest';
import { join, json, outbox, person, sharedGroup, sharedOrg, T } from './fixtures';
import { call, unique, type TestUser } from '../helpers';

describe('who may invite whom (per role)', T, () => {
  const roles = ['founders', 'admins', 'superusers', 'members'] as const;
  let targets: TestUser[] = [];
  beforeAll(async () => {
    targets = await Promise.all(roles.map(() => person('t')));
  }, T.timeout);
  it.each([
    ['founder', [201, 201, 201, 201]],
    ['admin', [403, 201, 201, 201]],
    ['superuser', [403, 403, 403, 403]],
    ['member', [403, 403, 403, 403]],
    ['pending', [403, 403, 403, 403]],
    ['stranger', [404, 404, 404, 404]],
  ] as const)('a %s inviting into founders, admins, superusers, members (user group)', async (who, expected) => {
    const w = await sharedGroup();
    const got = [];
    for (const [i, role] of roles.entries()) {
      const target = targets[i]!.username;
      const res = await call('PUT', `${w.path}/roles/${role}/${target}`, {
        token: (w as unknown as Record<string, TestUser>)[who]!.token,
      });
      got.push(res.status);
      if (res.status === 201)
        expect((await call('DELETE', `${w.path}/roles/${role}/${target}`, { token: w.founder.token })).status).toBe(
          204,
        );
    }
    expect(got).toEqual(expected);
  });

  it('anonymous callers get 401', async () => {
    const w = await sharedGroup();
    expect((await call('PUT', `${w.path}/roles/members/${w.stranger.username}`)).status).toBe(401);
  });

  it('an org admin oversees read-only: inviting into or removing from a group of the org is 403', async () => {
    const w = await sharedOrg();
    const u = await person();
    expect((await call('PUT', `${w.path}/roles/members/${u.username}`, { token: w.orgAdmin.token })).status).toBe(403);
    expect(
      (await call('DELETE', `${w.path}/roles/members/${w.member.username}`, { token: w.orgAdmin.token })).status,
    ).toBe(403);
    expect((await call('POST', `${w.path}/profile/name`, { token: w.orgAdmin.token, text: 'x' })).status).toBe(403);
  });

  it('an org admin claiming a role in a group of their org is active at once, without an invite', async () => {
    const w = await sharedOrg();
    const orgAdmin = await person('oa');
    await join(`/v1/admin/orgs/${w.org}`, `+${w.org}`, w.account, orgAdmin, 'admins');
    const res = await call('PUT', `${w.path}/roles/admins/${orgAdmin.username}`, { token: orgAdmin.token });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ state: 'active', role: 'admins' });
    expect(
      await outbox(`${orgAdmin.username}@example.com`).then((m) => m.filter((x) => x.subject.includes(w.ref))),
    ).toEqual([]);
    // now they manage
    const u = await person();
    expect((await call('PUT', `${w.path}/roles/members/${u.username}`, { token: orgAdmin.token })).status).toBe(201);
  });

  it('an org member (not admin) cannot claim a role; it needs an invite', async () => {
    const w = await sharedOrg();
    expect(
      (await call('PUT', `${w.path}/roles/members/${w.orgMember.username}`, { token: w.orgMember.token })).status,
    ).toBe(404);
  });

  it('is_open lets a user who sees the group join as members without an invite', async () => {
    const [founder, stranger] = await Promise.all([person(), person()]);
    const slug = unique('g');
    await call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token });
    const path = `/v1/admin/groups/@${founder.username}~${slug}`;
    expect((await call('PUT', `${path}/roles/members/${stranger.username}`, { token: stranger.token })).status).toBe(
      404,
    );
    await call('POST', `${path}/profile/options/public`, { token: founder.token, text: 'yes' });
    expect((await call('PUT', `${path}/roles/members/${stranger.username}`, { token: stranger.token })).status).toBe(
      403,
    );
    expect((await call('POST', `${path}/profile/options/is_open`, { token: founder.token, text: 'yes' })).status).toBe(
      204,
    );
    expect((await call('PUT', `${path}/roles/admins/${stranger.username}`, { token: stranger.token })).status).toBe(
      403,
    );
    const joined = await call('PUT', `${path}/roles/members/${stranger.username}`, { token: stranger.token });
    expect(joined.status).toBe(201);
    expect(await json(joined)).toMatchObject({ state: 'active' });
  });
});
