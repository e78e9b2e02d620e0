// Creating user groups, organisations and org groups through the real Worker in workerd:
// who may create what, names, one organisation per account (also under concurrent creates).
import { describe, expect, it } from 'vitest';
import { GROUP_NAME } from '../../../src/core/names';
import { json, person, sharedGroup, sharedOrg, T } from './fixtures';
import { call, makeUser, unique } from '../helpers';

describe('creating groups and organisations', T, () => {
  it('PUT /v1/admin/groups/:group creates a user group whose creator is its founder; a second PUT is 409', async () => {
    const u = await person();
    const slug = unique('g');
    const res = await call('PUT', `/v1/admin/groups/${slug}`, { token: u.token });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({
      name: slug,
      ref: `@${u.username}~${slug}`,
      role: 'founders',
      kind: 'user_group',
      email: null,
    });
    expect(await (await call('GET', `/v1/admin/groups/${slug}/role`, { token: u.token })).text()).toBe('founders');
    const again = await call('PUT', `/v1/admin/groups/${slug}`, { token: u.token });
    expect(again.status).toBe(409);
    expect((await json(again)).message).toMatch(/already exists/);
  });

  it('group names with spaces, capitals or reference punctuation answer 400 and create nothing', async () => {
    const u = await person();
    for (const bad of ['my%20group', 'Team', 'a~b', '@x~y', '-x']) {
      const res = await call('PUT', `/v1/admin/groups/${bad}`, { token: u.token });
      expect(res.status, bad).toBe(400);
      expect((await json(res)).message, bad).toBe(
        bad.startsWith('@')
          ? 'create a group with its slug: PUT /v1/admin/groups/<group> creates @<you>~<group>'
          : `invalid group name '${decodeURIComponent(bad)}': lowercase letters, digits, '-' and '_', no spaces, at most 64 characters (${GROUP_NAME.source})`,
      );
    }
    expect(await json(await call('GET', '/v1/admin/groups', { token: u.token }))).toEqual([]);
  });

  it('anonymous callers get 401 on the admin routes', async () => {
    expect((await call('PUT', `/v1/admin/groups/${unique('g')}`)).status).toBe(401);
    expect((await call('GET', '/v1/admin/groups')).status).toBe(401);
    expect((await call('GET', '/v1/admin/invites')).status).toBe(401);
  });

  it('a regular account creating an organisation answers 403', async () => {
    const u = await person();
    const res = await call('PUT', `/v1/admin/orgs/${unique('org')}`, { token: u.token });
    expect(res.status).toBe(403);
    expect((await json(res)).message).toMatch(/organisation accounts/);
  });

  it('an organisation account creates one organisation (403 for a second, 409 for an existing name)', async () => {
    const acct = await makeUser({ account: 'organisation' }, 'o');
    const org = unique('org');
    const first = await call('PUT', `/v1/admin/orgs/${org}`, { token: acct.token });
    expect(first.status).toBe(201);
    expect(await json(first)).toMatchObject({ ref: `+${org}`, kind: 'org', role: 'founders' });
    expect((await call('PUT', `/v1/admin/orgs/${org}`, { token: acct.token })).status).toBe(409);
    const second = await call('PUT', `/v1/admin/orgs/${unique('org')}`, { token: acct.token });
    expect(second.status).toBe(403);
    expect((await json(second)).message).toMatch(/one organisation/);
    const other = await makeUser({ account: 'organisation' }, 'o');
    expect((await call('PUT', `/v1/admin/orgs/${org}`, { token: other.token })).status).toBe(409);
  });

  it('one organisation per account holds under concurrent creates', async () => {
    const acct = await makeUser({ account: 'organisation' }, 'o');
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => call('PUT', `/v1/admin/orgs/${unique('org')}`, { token: acct.token })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403, 403]);
  });

  it('concurrent creates of the same group: one 201, the rest 409', async () => {
    const u = await person();
    const slug = unique('g');
    const results = await Promise.all([1, 2, 3].map(() => call('PUT', `/v1/admin/groups/${slug}`, { token: u.token })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const roster = await json(await call('GET', `/v1/admin/groups/${slug}/roles/founders`, { token: u.token }));
    expect(roster.map((i: { name: string }) => i.name)).toEqual([u.username]);
  });

  it('org groups are created by org founders and admins only', async () => {
    const w = await sharedOrg();
    expect(
      (await call('PUT', `/v1/admin/orgs/${w.org}/groups/${unique('g')}`, { token: w.orgAdmin.token })).status,
    ).toBe(201);
    expect(
      (await call('PUT', `/v1/admin/orgs/${w.org}/groups/${unique('g')}`, { token: w.orgMember.token })).status,
    ).toBe(403);
    expect(
      (await call('PUT', `/v1/admin/orgs/${w.org}/groups/${unique('g')}`, { token: w.stranger.token })).status,
    ).toBe(404);
    expect((await call('PUT', `/v1/admin/orgs/${w.org}/groups/${w.group}`, { token: w.account.token })).status).toBe(
      409,
    );
  });

  it('GET /v1/admin/groups lists the groups the caller belongs to, keyed by slug (others by reference)', async () => {
    const w = await sharedGroup();
    const own = await json(await call('GET', '/v1/admin/groups', { token: w.founder.token }));
    expect(own).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: w.ref.split('~')[1],
          uri: `/v1/admin/groups/${w.ref.split('~')[1]}`,
          type: 'dir',
          role: 'founders',
        }),
      ]),
    );
    const theirs = await json(await call('GET', '/v1/admin/groups', { token: w.member.token }));
    expect(theirs).toEqual([
      expect.objectContaining({ name: w.ref, uri: `/v1/admin/groups/${w.ref}`, role: 'members', permissions: ['r'] }),
    ]);
    expect(await json(await call('GET', '/v1/admin/groups', { token: w.pending.token }))).toEqual([]);
  });
});
