// Browsing groups and organisations: the info object, what each role, a pending invitee, a
// stranger and an anonymous caller see, public orgs and groups, the /v1/o alias.
import { beforeAll, describe, expect, it } from 'vitest';
import { join, json, orgLite, type OrgWorld, person, PNG, sharedOrg, T } from './fixtures';
import { call, OPS, unique, type TestUser } from '../helpers';

describe('browsing and visibility', T, () => {
  let w: OrgWorld;
  beforeAll(async () => {
    w = await sharedOrg();
  }, T.timeout);
  const info = (u: TestUser | null, path = `/v1/orgs/${w.org}/groups/${w.group}`) =>
    call('GET', path, { token: u?.token });

  it('the group info object carries name, description, profile, role, shared content and email', async () => {
    const res = await info(w.member);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body)).toEqual(
      expect.arrayContaining(['name', 'description', 'profile', 'role', 'shared', 'email', 'members']),
    );
    expect(body).toMatchObject({ name: w.group, ref: w.ref, role: 'members', email: null });
    expect(body.members.map((m: { username: string }) => m.username)).toContain(w.pending.username);
  });

  it('an org admin sees every group of the org with its full roster, read-only', async () => {
    const list = await json(await call('GET', `/v1/orgs/${w.org}/groups`, { token: w.orgAdmin.token }));
    expect(list.map((i: { name: string }) => i.name)).toContain(w.group);
    const body = await json(await info(w.orgAdmin));
    expect(body.role).toBe('');
    expect(body.members.map((m: { username: string }) => m.username)).toEqual(
      expect.arrayContaining([w.account, w.admin, w.superuser, w.member, w.pending].map((u) => u.username)),
    );
    const names = (await json(await call('GET', `${w.path}/roles/members`, { token: w.orgAdmin.token }))).map(
      (i: { name: string }) => i.name,
    );
    expect(names).toEqual(expect.arrayContaining([w.member.username, `I-${w.pending.username}`]));
  });

  it('superusers and members see only their own groups; a stranger and anonymous get 404 for a private group', async () => {
    const other = unique('g');
    await call('PUT', `/v1/admin/orgs/${w.org}/groups/${other}`, { token: w.account.token });
    const mine = await json(await call('GET', `/v1/orgs/${w.org}/groups`, { token: w.superuser.token }));
    expect(mine.map((i: { name: string }) => i.name)).toEqual([w.group]);
    expect((await info(w.member, `/v1/orgs/${w.org}/groups/${other}`)).status).toBe(404);
    expect((await info(w.orgMember)).status).toBe(404);
    const stranger = await info(w.stranger);
    expect(stranger.status).toBe(404);
    expect((await info(null)).status).toBe(404);
    expect((await call('GET', `${w.path}/roles/members`, { token: w.stranger.token })).status).toBe(404);
    expect((await info(w.stranger, `/v1/orgs/${w.org}/groups/nosuchgroup`)).status).toBe(404);
  });

  it('a pending invitee sees the group and its profile but not its roster', async () => {
    const body = await json(await info(w.pending));
    expect(body).toMatchObject({ role: '', members: null, shared: [] });
    expect(body.profile).not.toBeNull();
  });

  it('public orgs and groups are visible to strangers as their show_* options say', async () => {
    const o = await orgLite();
    const acct = o.account.token;
    expect((await call('GET', `/v1/orgs/${o.org}`, { token: o.stranger.token })).status).toBe(404);
    await call('POST', `/v1/admin/orgs/${o.org}/profile/options/public`, { token: acct, text: 'yes' });
    await call('POST', `${o.path}/profile/options/public`, { token: acct, text: 'yes' });
    await call('POST', `${o.path}/profile/description`, { token: acct, text: 'about us' });
    const orgs = await json(await call('GET', '/v1/orgs', { token: o.stranger.token }));
    expect(orgs.map((i: { name: string }) => i.name)).toContain(o.org);
    let body = await json(await info(null, `/v1/orgs/${o.org}/groups/${o.group}`));
    expect(body).toMatchObject({ profile: null, description: null, members: null, email: null });
    await call('POST', `${o.path}/profile/options/show_profile`, { token: acct, text: 'yes' });
    await call('POST', `${o.path}/profile/options/show_description`, { token: acct, text: 'yes' });
    await call('POST', `${o.path}/profile/options/show_members`, { token: acct, text: 'yes' });
    body = await json(await info(o.stranger, `/v1/orgs/${o.org}/groups/${o.group}`));
    expect(body.description).toBe('about us');
    expect(body.profile).not.toBeNull();
    expect(body.members.length).toBeGreaterThan(0);
    expect(body.shared).toEqual([]);
    // the premium plan lapses: show_* stop counting
    await call('PUT', `/v1/ops/users/${o.account.username}`, { token: OPS, json: { plan: 'free' } });
    body = await json(await info(o.stranger, `/v1/orgs/${o.org}/groups/${o.group}`));
    expect(body).toMatchObject({ profile: null, description: null, members: null });
  });

  it('GET /v1/orgs/:org gives description and groups; /v1/o/:org is its alias with img and banner', async () => {
    await call('POST', `/v1/admin/orgs/${w.org}/profile/description`, {
      token: w.account.token,
      text: 'Acme does things',
    });
    await call('PUT', `/v1/admin/orgs/${w.org}/profile/picture/image`, {
      token: w.account.token,
      body: PNG,
      type: 'image/png',
    });
    const org = await json(await call('GET', `/v1/orgs/${w.org}`, { token: w.member.token }));
    expect(org).toMatchObject({ name: w.org, kind: 'org', description: 'Acme does things' });
    expect(org.groups.map((g: { name: string }) => g.name)).toEqual([w.group]);
    expect(await json(await call('GET', `/v1/o/${w.org}`, { token: w.member.token }))).toEqual(org);
    const img = await call('GET', `/v1/o/${w.org}/img`, { token: w.member.token });
    expect(img.status).toBe(200);
    expect(img.headers.get('Content-Type')).toBe('image/png');
    expect((await call('GET', `/v1/o/${w.org}/banner`, { token: w.member.token })).status).toBe(404);
    expect((await call('GET', `/v1/o/${w.org}`, { token: w.stranger.token })).status).toBe(404);
    expect(await json(await call('GET', `/v1/o/${w.org}/d`, { token: w.member.token }))).toEqual([]);
  });

  it('GET /v1/users/:user/groups lists the user groups visible to the caller', async () => {
    const [founder, member, stranger] = await Promise.all([person(), person(), person()]);
    const slug = unique('g');
    await call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token });
    const g = { path: `/v1/admin/groups/${slug}`, ref: `@${founder.username}~${slug}`, founder, member, stranger };
    await join(g.path, g.ref, founder, member, 'members');
    const owner = g.founder.username;
    expect(
      (await json(await call('GET', `/v1/users/${owner}/groups`, { token: g.member.token }))).map(
        (i: { ref: string }) => i.ref,
      ),
    ).toEqual([g.ref]);
    expect(await json(await call('GET', `/v1/users/${owner}/groups`, { token: g.stranger.token }))).toEqual([]);
    await call('POST', `${g.path}/profile/options/public`, { token: g.founder.token, text: 'yes' });
    expect(await json(await call('GET', `/v1/users/${owner}/groups`))).toHaveLength(1);
    expect((await call('GET', `/v1/users/${unique('nobody')}/groups`)).status).toBe(404);
  });
});
