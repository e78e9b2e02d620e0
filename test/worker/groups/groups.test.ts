import { beforeAll, describe, expect, it } from 'vitest';
import { accept, join, json, once, orgWorld, person, userGroupWorld, type OrgWorld, type World } from './fixtures';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70]);

/** An organisation account with its org and one group (no members yet). */
async function orgLite(plan: 'free' | 'premium' = 'premium') {
  const account = await makeUser({ account: 'organisation', plan }, 'o');
  const org = unique('org');
  const group = unique('g');
  expect((await call('PUT', `/v1/admin/orgs/${org}`, { token: account.token })).status).toBe(201);
  expect((await call('PUT', `/v1/admin/orgs/${org}/groups/${group}`, { token: account.token })).status).toBe(201);
  return { account, org, group, path: `/v1/admin/orgs/${org}/groups/${group}`, stranger: (await sharedGroup()).stranger };
}

/** Worlds shared by the tests of this file. */
const sharedGroup = once(userGroupWorld);
const sharedOrg = once(() => orgWorld('premium'));
const T = { timeout: 180_000 };

const outbox = async (to: string) =>
  (await json<{ kind: string; to: string[]; subject: string; text: string }[]>(await call('GET', '/v1/ops/outbox', { token: OPS }))).filter((m) => m.to.includes(to));

describe('creating groups and organisations', T, () => {
  it('PUT /v1/admin/groups/:group creates a user group whose creator is its founder; a second PUT is 409', async () => {
    const u = await person();
    const slug = unique('g');
    const res = await call('PUT', `/v1/admin/groups/${slug}`, { token: u.token });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ name: slug, ref: `@${u.username}~${slug}`, role: 'founders', kind: 'user_group', email: null });
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
      expect((await json(res)).message).toBeTruthy();
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
    const results = await Promise.all([1, 2, 3, 4].map(() => call('PUT', `/v1/admin/orgs/${unique('org')}`, { token: acct.token })));
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
    expect((await call('PUT', `/v1/admin/orgs/${w.org}/groups/${unique('g')}`, { token: w.orgAdmin.token })).status).toBe(201);
    expect((await call('PUT', `/v1/admin/orgs/${w.org}/groups/${unique('g')}`, { token: w.orgMember.token })).status).toBe(403);
    expect((await call('PUT', `/v1/admin/orgs/${w.org}/groups/${unique('g')}`, { token: w.stranger.token })).status).toBe(404);
    expect((await call('PUT', `/v1/admin/orgs/${w.org}/groups/${w.group}`, { token: w.account.token })).status).toBe(409);
  });

  it('GET /v1/admin/groups lists the groups the caller belongs to, keyed by slug (others by reference)', async () => {
    const w = await sharedGroup();
    const own = await json(await call('GET', '/v1/admin/groups', { token: w.founder.token }));
    expect(own).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: w.ref.split('~')[1], uri: `/v1/admin/groups/${w.ref.split('~')[1]}`, type: 'dir', role: 'founders' })]),
    );
    const theirs = await json(await call('GET', '/v1/admin/groups', { token: w.member.token }));
    expect(theirs).toEqual([expect.objectContaining({ name: w.ref, uri: `/v1/admin/groups/${w.ref}`, role: 'members', permissions: ['r'] })]);
    expect(await json(await call('GET', '/v1/admin/groups', { token: w.pending.token }))).toEqual([]);
  });
});

describe('membership state machine', T, () => {
  let w: World;
  beforeAll(async () => {
    w = await sharedGroup();
  }, T.timeout);

  it('PUT into a role folder invites: pending, listed with the I- prefix, e-mail of kind invite', async () => {
    const u = await person();
    const res = await call('PUT', `${w.path}/roles/superusers/${u.username}`, { token: w.founder.token });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ group: w.ref, username: u.username, role: 'superusers', state: 'pending', invitation_sent: true });
    const names = (await json(await call('GET', `${w.path}/roles/superusers`, { token: w.founder.token }))).map((i: { name: string }) => i.name);
    expect(names).toContain(`I-${u.username}`);
    expect(names).toContain(w.superuser.username);
    const mails = await outbox(`${u.username}@example.com`);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ kind: 'invite' });
    expect(mails[0]!.text).toContain(`/v1/admin/invites/${w.ref}/accept`);
    const invites = await json(await call('GET', '/v1/admin/invites', { token: u.token }));
    expect(invites).toEqual([expect.objectContaining({ name: w.ref, role: 'superusers', invited_by: w.founder.username })]);
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
    const names = (await json(await call('GET', `${w.path}/roles/members`, { token: w.founder.token }))).map((i: { name: string }) => i.name);
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
    for (const body of ['Yes', 'y', 'yes\n', '', 'maybe']) expect((await accept(u, w.ref, body)).status, body).toBe(400);
    expect((await call('POST', `/v1/admin/invites/${w.ref}/accept`, { token: u.token, text: 'yes', type: 'application/x-www-form-urlencoded' })).status).toBe(415);
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
    expect((await call('DELETE', `${w.path}/roles/members/${u.username}`, { token: w.founder.token })).status).toBe(204);
    expect(await json(await call('GET', '/v1/admin/invites', { token: u.token }))).toEqual([]);
  });

  it('a member leaves on their own; the last founder cannot leave or step down (409)', async () => {
    const u = await person();
    await join(w.path, w.ref, w.founder, u, 'members');
    expect((await call('DELETE', `${w.path}/roles/members/${u.username}`, { token: u.token })).status).toBe(204);
    const leave = await call('DELETE', `${w.path}/roles/founders/${w.founder.username}`, { token: w.founder.token });
    expect(leave.status).toBe(409);
    expect((await json(leave)).message).toMatch(/last founder/);
    expect((await call('PUT', `${w.path}/roles/members/${w.founder.username}`, { token: w.founder.token })).status).toBe(409);
    expect(await (await call('GET', `${w.path}/role`, { token: w.founder.token })).text()).toBe('founders');
  });

  it('two founders stepping down at once: one stays founder', async () => {
    const [f1, f2] = await Promise.all([person(), person()]);
    const slug = unique('g');
    await call('PUT', `/v1/admin/groups/${slug}`, { token: f1.token });
    const path = `/v1/admin/groups/@${f1.username}~${slug}`;
    await join(path, `@${f1.username}~${slug}`, f1, f2, 'founders');
    const [a, b] = await Promise.all([
      call('DELETE', `${path}/roles/founders/${f1.username}`, { token: f1.token }),
      call('DELETE', `${path}/roles/founders/${f2.username}`, { token: f2.token }),
    ]);
    expect([a.status, b.status].sort()).toEqual([204, 409]);
    const stayed = a.status === 409 ? f1 : f2;
    const founders = await json(await call('GET', `${path}/roles/founders`, { token: stayed.token }));
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
    expect((await call('PUT', `${w.path}/roles/members/${unique('nobody')}`, { token: w.founder.token })).status).toBe(404);
    expect((await call('PUT', `${w.path}/roles/members/Bad%20Name`, { token: w.founder.token })).status).toBe(400);
    expect((await call('GET', `${w.path}/roles/owners`, { token: w.founder.token })).status).toBe(400);
    expect(await json(await call('GET', '/v1/admin/invites', { token: u.token }))).toEqual([]);
  });
});

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
      const res = await call('PUT', `${w.path}/roles/${role}/${target}`, { token: (w as unknown as Record<string, TestUser>)[who]!.token });
      got.push(res.status);
      if (res.status === 201) expect((await call('DELETE', `${w.path}/roles/${role}/${target}`, { token: w.founder.token })).status).toBe(204);
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
    expect((await call('DELETE', `${w.path}/roles/members/${w.member.username}`, { token: w.orgAdmin.token })).status).toBe(403);
    expect((await call('POST', `${w.path}/profile/name`, { token: w.orgAdmin.token, text: 'x' })).status).toBe(403);
  });

  it('an org admin claiming a role in a group of their org is active at once, without an invite', async () => {
    const w = await sharedOrg();
    const orgAdmin = await person('oa');
    await join(`/v1/admin/orgs/${w.org}`, `+${w.org}`, w.account, orgAdmin, 'admins');
    const res = await call('PUT', `${w.path}/roles/admins/${orgAdmin.username}`, { token: orgAdmin.token });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ state: 'active', role: 'admins' });
    expect(await outbox(`${orgAdmin.username}@example.com`).then((m) => m.filter((x) => x.subject.includes(w.ref)))).toEqual([]);
    // now they manage
    const u = await person();
    expect((await call('PUT', `${w.path}/roles/members/${u.username}`, { token: orgAdmin.token })).status).toBe(201);
  });

  it('an org member (not admin) cannot claim a role; it needs an invite', async () => {
    const w = await sharedOrg();
    expect((await call('PUT', `${w.path}/roles/members/${w.orgMember.username}`, { token: w.orgMember.token })).status).toBe(404);
  });

  it('is_open lets a user who sees the group join as members without an invite', async () => {
    const [founder, stranger] = await Promise.all([person(), person()]);
    const slug = unique('g');
    await call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token });
    const path = `/v1/admin/groups/@${founder.username}~${slug}`;
    expect((await call('PUT', `${path}/roles/members/${stranger.username}`, { token: stranger.token })).status).toBe(404);
    await call('POST', `${path}/profile/options/public`, { token: founder.token, text: 'yes' });
    expect((await call('PUT', `${path}/roles/members/${stranger.username}`, { token: stranger.token })).status).toBe(403);
    expect((await call('POST', `${path}/profile/options/is_open`, { token: founder.token, text: 'yes' })).status).toBe(204);
    expect((await call('PUT', `${path}/roles/admins/${stranger.username}`, { token: stranger.token })).status).toBe(403);
    const joined = await call('PUT', `${path}/roles/members/${stranger.username}`, { token: stranger.token });
    expect(joined.status).toBe(201);
    expect(await json(joined)).toMatchObject({ state: 'active' });
  });
});

describe('profiles and options', T, () => {
  let w: World;
  beforeAll(async () => {
    w = await sharedGroup();
  }, T.timeout);

  it('founders and admins write name, description and mask; text reads back byte for byte', async () => {
    const desc = '# Team\n\nWe *ship*.  \n';
    expect((await call('POST', `${w.path}/profile/name`, { token: w.founder.token, text: 'The Team' })).status).toBe(204);
    expect((await call('POST', `${w.path}/profile/description`, { token: w.admin.token, text: desc })).status).toBe(204);
    expect((await call('POST', `${w.path}/profile/picture/mask`, { token: w.admin.token, text: '10,20,30' })).status).toBe(204);
    expect(await (await call('GET', `${w.path}/profile/name`, { token: w.member.token })).text()).toBe('The Team');
    expect(await (await call('GET', `${w.path}/profile/description`, { token: w.member.token })).text()).toBe(desc);
    expect(await (await call('GET', `${w.path}/profile/picture/mask`, { token: w.member.token })).text()).toBe('10,20,30');
    expect((await call('DELETE', `${w.path}/profile/picture/mask`, { token: w.founder.token })).status).toBe(204);
    expect(await (await call('GET', `${w.path}/profile/picture/mask`, { token: w.member.token })).text()).toBe('');
  });

  it('superusers, members and pending invitees may not write the profile (403); strangers get 404', async () => {
    for (const u of [w.superuser, w.member, w.pending]) expect((await call('POST', `${w.path}/profile/name`, { token: u.token, text: 'x' })).status).toBe(403);
    expect((await call('POST', `${w.path}/profile/name`, { token: w.stranger.token, text: 'x' })).status).toBe(404);
    expect((await call('POST', `${w.path}/profile/options/public`, { token: w.member.token, text: 'yes' })).status).toBe(403);
  });

  it('a bad mask answers 400 and keeps the old one', async () => {
    await call('POST', `${w.path}/profile/picture/mask`, { token: w.founder.token, text: '1,2,3' });
    for (const bad of ['1,2', 'a,b,c', '-1,2,3', '1,2,0'])
      expect((await call('POST', `${w.path}/profile/picture/mask`, { token: w.founder.token, text: bad })).status, bad).toBe(400);
    expect(await (await call('GET', `${w.path}/profile/picture/mask`, { token: w.founder.token })).text()).toBe('1,2,3');
  });

  it('an oversized name answers 413 and keeps the old one', async () => {
    await call('POST', `${w.path}/profile/name`, { token: w.founder.token, text: 'Keep' });
    expect((await call('POST', `${w.path}/profile/name`, { token: w.founder.token, text: 'x'.repeat(300) })).status).toBe(413);
    expect(await (await call('GET', `${w.path}/profile/name`, { token: w.founder.token })).text()).toBe('Keep');
  });

  it('images: PUT creates (409 when one exists), POST replaces, GET serves with its type, DELETE removes', async () => {
    const g = w;
    const put = await call('PUT', `${g.path}/profile/picture/image`, { token: g.founder.token, body: PNG, type: 'image/png' });
    expect(put.status).toBe(201);
    expect((await call('PUT', `${g.path}/profile/picture/image`, { token: g.founder.token, body: PNG, type: 'image/png' })).status).toBe(409);
    const got = await call('GET', `${g.path}/profile/picture/image`, { token: g.member.token });
    expect(got.headers.get('Content-Type')).toBe('image/png');
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(PNG);
    expect((await call('POST', `${g.path}/profile/picture/image`, { token: g.admin.token, body: JPEG, type: 'image/jpeg' })).status).toBe(204);
    expect((await call('GET', `${g.path}/profile/picture/image`, { token: g.member.token })).headers.get('Content-Type')).toBe('image/jpeg');
    expect((await call('POST', `${g.path}/profile/picture/banner`, { token: g.admin.token, body: PNG, type: 'image/png' })).status).toBe(204);
    expect((await call('DELETE', `${g.path}/profile/picture/image`, { token: g.founder.token })).status).toBe(204);
    expect((await call('GET', `${g.path}/profile/picture/image`, { token: g.member.token })).status).toBe(404);
  });

  it('mistyped, unsupported, empty and oversized images answer 4xx and store nothing', async () => {
    const g = w;
    const p = `${g.path}/profile/picture/image`; // the test above removed it
    expect((await call('POST', p, { token: g.founder.token, body: JPEG, type: 'image/png' })).status).toBe(415);
    expect((await call('POST', p, { token: g.founder.token, body: 'hello', type: 'image/png' })).status).toBe(415);
    expect((await call('POST', p, { token: g.founder.token, body: '<svg xmlns="http://www.w3.org/2000/svg"/>', type: 'image/svg+xml' })).status).toBe(415);
    expect((await call('POST', p, { token: g.founder.token, body: new Uint8Array(), type: 'image/png' })).status).toBe(400);
    const big = new Uint8Array(2 * 1024 * 1024 + 1);
    big.set(PNG);
    const tooBig = await call('POST', p, { token: g.founder.token, body: big, type: 'image/png' });
    expect(tooBig.status).toBe(413);
    expect((await json(tooBig)).message).toMatch(/MiB/);
    expect((await call('GET', p, { token: g.founder.token })).status).toBe(404);
    expect((await call('POST', p, { token: g.member.token, body: PNG, type: 'image/png' })).status).toBe(403);
  });

  it('options read no by default, take yes or no only, and unknown options are 404', async () => {
    const founder = await person();
    const slug = unique('g');
    await call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token });
    const g = { path: `/v1/admin/groups/${slug}`, founder, admin: founder, member: founder };
    for (const o of ['public', 'show_profile', 'show_description', 'show_members', 'is_open']) {
      expect(await (await call('GET', `${g.path}/profile/options/${o}`, { token: g.member.token })).text()).toBe('no');
    }
    expect((await call('POST', `${g.path}/profile/options/public`, { token: g.admin.token, text: 'true' })).status).toBe(400);
    expect((await call('POST', `${g.path}/profile/options/public`, { token: g.admin.token, text: 'yes' })).status).toBe(204);
    expect(await (await call('GET', `${g.path}/profile/options/public`, { token: g.member.token })).text()).toBe('yes');
    expect((await call('GET', `${g.path}/profile/options/bogus`, { token: g.member.token })).status).toBe(404);
    expect((await call('POST', `${g.path}/profile/options/enable_subdomain`, { token: g.founder.token, text: 'yes' })).status).toBe(404);
    const listing = await json(await call('GET', `${g.path}/profile/options`, { token: g.member.token }));
    expect(listing.map((i: { name: string }) => i.name)).toEqual(['options/public', 'options/show_profile', 'options/show_description', 'options/show_members', 'options/is_open']);
  });

  it('show_* options of organisations and org groups need a premium plan (403 otherwise)', async () => {
    const free = await orgLite('free');
    for (const p of [`/v1/admin/orgs/${free.org}`, free.path]) {
      const res = await call('POST', `${p}/profile/options/show_members`, { token: free.account.token, text: 'yes' });
      expect(res.status).toBe(403);
      expect((await json(res)).message).toMatch(/premium/);
      expect((await call('POST', `${p}/profile/options/public`, { token: free.account.token, text: 'yes' })).status).toBe(204);
    }
    const premium = await sharedOrg();
    expect((await call('POST', `${premium.path}/profile/options/show_members`, { token: premium.account.token, text: 'yes' })).status).toBe(204);
    // user groups: on every plan
    expect((await call('POST', `${w.path}/profile/options/show_members`, { token: w.founder.token, text: 'yes' })).status).toBe(204);
  });
});

describe('browsing and visibility', T, () => {
  let w: OrgWorld;
  beforeAll(async () => {
    w = await sharedOrg();
  }, T.timeout);
  const info = (u: TestUser | null, path = `/v1/orgs/${w.org}/groups/${w.group}`) => call('GET', path, { token: u?.token });

  it('the group info object carries name, description, profile, role, shared content and email', async () => {
    const res = await info(w.member);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body)).toEqual(expect.arrayContaining(['name', 'description', 'profile', 'role', 'shared', 'email', 'members']));
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
    const names = (await json(await call('GET', `${w.path}/roles/members`, { token: w.orgAdmin.token }))).map((i: { name: string }) => i.name);
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
    await call('POST', `/v1/admin/orgs/${w.org}/profile/description`, { token: w.account.token, text: 'Acme does things' });
    await call('PUT', `/v1/admin/orgs/${w.org}/profile/picture/image`, { token: w.account.token, body: PNG, type: 'image/png' });
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
    expect((await json(await call('GET', `/v1/users/${owner}/groups`, { token: g.member.token }))).map((i: { ref: string }) => i.ref)).toEqual([g.ref]);
    expect(await json(await call('GET', `/v1/users/${owner}/groups`, { token: g.stranger.token }))).toEqual([]);
    await call('POST', `${g.path}/profile/options/public`, { token: g.founder.token, text: 'yes' });
    expect(await json(await call('GET', `/v1/users/${owner}/groups`))).toHaveLength(1);
    expect((await call('GET', `/v1/users/${unique('nobody')}/groups`)).status).toBe(404);
  });
});

describe('inbound address of an org group', T, () => {
  it('is <group>@<org>.<ORG_MAIL_DOMAIN> only when the org subdomain and the group inbound mail are on', async () => {
    const w = await sharedOrg();
    const email = (u: TestUser) => call('GET', `/v1/orgs/${w.org}/groups/${w.group}/email`, { token: u.token });
    expect(await (await email(w.member)).text()).toBe('');
    expect((await call('POST', `/v1/admin/orgs/${w.org}/profile/options/enable_subdomain`, { token: w.account.token, text: 'yes' })).status).toBe(204);
    expect(await (await email(w.member)).text()).toBe('');
    expect((await call('POST', `${w.path}/profile/options/allow_inbound_mail`, { token: w.admin.token, text: 'yes' })).status).toBe(204);
    const address = `${w.group}@${w.org}.mail.localhost`;
    for (const u of [w.member, w.superuser, w.admin, w.account, w.orgAdmin]) expect(await (await email(u)).text()).toBe(address);
    expect((await json(await call('GET', `/v1/orgs/${w.org}/groups/${w.group}`, { token: w.member.token }))).email).toBe(address);
    expect((await email(w.pending)).status).toBe(403);
    expect((await email(w.stranger)).status).toBe(404);
    expect((await call('POST', `${w.path}/profile/options/allow_inbound_mail`, { token: w.member.token, text: 'yes' })).status).toBe(403);
  });

  it('groupForInboundAddress resolves only mail-enabled org groups', async () => {
    const { env } = await import('cloudflare:workers');
    const { dbFor } = await import('../../../src/core/context');
    const { groupForInboundAddress } = await import('../../../src/groups/inbound');
    const w = await sharedOrg();
    const db = dbFor(env as Env);
    const group = unique('g');
    await call('PUT', `/v1/admin/orgs/${w.org}/groups/${group}`, { token: w.account.token });
    const addr = `${group}@${w.org}.${(env as Env).ORG_MAIL_DOMAIN}`;
    expect(await groupForInboundAddress(env as Env, db, addr)).toBeNull();
    await call('POST', `/v1/admin/orgs/${w.org}/profile/options/enable_subdomain`, { token: w.account.token, text: 'yes' });
    expect(await groupForInboundAddress(env as Env, db, addr)).toBeNull();
    await call('POST', `/v1/admin/orgs/${w.org}/groups/${group}/profile/options/allow_inbound_mail`, { token: w.account.token, text: 'yes' });
    const hit = await groupForInboundAddress(env as Env, db, addr.toUpperCase());
    expect(hit?.group.ref).toBe(`+${w.org}~${group}`);
    expect(hit?.org.ref).toBe(`+${w.org}`);
    expect(await groupForInboundAddress(env as Env, db, `nosuch@${w.org}.${(env as Env).ORG_MAIL_DOMAIN}`)).toBeNull();
  });
});

describe('sharing through groups', T, () => {
  it('group shares resolve to accepted members only: pending and declined members get nothing', async () => {
    const { env } = await import('cloudflare:workers');
    const { dbFor } = await import('../../../src/core/context');
    const { activeMembers, groupByRef } = await import('../../../src/groups/members');
    const w = await sharedGroup();
    const db = dbFor(env as Env);
    const g = await groupByRef(db, w.ref);
    const names = (await activeMembers(db, g!.id)).map((m) => `${m.user.username}:${m.role}`);
    expect(names).toEqual(
      expect.arrayContaining([`${w.founder.username}:founders`, `${w.admin.username}:admins`, `${w.superuser.username}:superusers`, `${w.member.username}:members`]),
    );
    expect(names.some((n) => n.startsWith(`${w.pending.username}:`))).toBe(false);
    expect(await groupByRef(db, '@nobody~nothing')).toBeNull();
  });

  it('a document shared with @user~group and +org~group is readable by accepted members only', async () => {
    const w = await sharedGroup();
    const o = await sharedOrg();
    const doc = unique('d');
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: w.founder.token })).status).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${doc}/shared/${w.ref}`, { token: w.founder.token })).status).toBeLessThan(300);
    const read = (u: TestUser) => call('GET', `/v1/users/${w.founder.username}/vis/docs/${doc}`, { token: u.token }).then((r) => r.status);
    for (const u of [w.admin, w.superuser, w.member]) expect(await read(u)).toBe(200);
    for (const u of [w.pending, w.stranger]) expect(await read(u)).toBe(404);
    const orgDoc = unique('d');
    await call('PUT', `/v1/vis/docs/${orgDoc}`, { token: o.account.token });
    expect((await call('PUT', `/v1/vis/docs/${orgDoc}/shared/${o.ref}~rw`, { token: o.account.token })).status).toBeLessThan(300);
    const readOrg = (u: TestUser) => call('GET', `/v1/users/${o.account.username}/vis/docs/${orgDoc}`, { token: u.token }).then((r) => r.status);
    expect(await readOrg(o.member)).toBe(200);
    expect(await readOrg(o.pending)).toBe(404);
    expect(await readOrg(o.orgMember)).toBe(404);
    const info = await json(await call('GET', `/v1/orgs/${o.org}/groups/${o.group}`, { token: o.member.token }));
    expect(info.shared).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'doc', owner: o.account.username, name: orgDoc, entry: `${o.ref}~rw` })]));
  });
});

describe('deleting groups and organisations (founders only)', T, () => {
  it('a user group: only a founder deletes it; roles, shares, threads and pictures go with it', async () => {
    const g = await userGroupWorld();
    const doc = `/v1/vis/docs/${unique('d')}`;
    expect((await call('PUT', doc, { token: g.founder.token })).status).toBe(201);
    expect((await call('PUT', `${doc}/shared/${g.ref}`, { token: g.founder.token })).status).toBe(201);
    const shared = `/v1/users/${g.founder.username}/vis/docs/${doc.split('/').pop()}`;
    expect((await call('GET', shared, { token: g.member.token })).status).toBe(200);
    expect((await call('PUT', `${g.path}/profile/picture/image`, { token: g.founder.token, body: PNG, type: 'image/png' })).status).toBe(201);
    expect((await call('PUT', `${g.path}/threads/plans`, { token: g.member.token })).status).toBe(201);
    // the pending invitee sees the group it is invited to, so it is refused, not kept in the dark
    for (const who of [g.admin, g.superuser, g.member, g.pending]) expect((await call('DELETE', g.path, { token: who.token })).status).toBe(403);
    expect((await call('DELETE', g.path, { token: g.stranger.token })).status).toBe(404);
    expect((await call('DELETE', g.path, { token: null })).status).toBe(401);
    const { env } = await import('cloudflare:workers');
    const { id } = (await env.DB.prepare('select id from groups where ref = ?').bind(g.ref).first<{ id: number }>())!;
    expect(await env.BLOBS.head(`g/${id}/picture/image`)).not.toBeNull();
    expect((await call('DELETE', g.path, { token: g.founder.token })).status).toBe(204);
    expect(await env.BLOBS.head(`g/${id}/picture/image`)).toBeNull();
    expect(await env.DB.prepare('select count(*) as n from threads where group_id = ?').bind(id).first('n')).toBe(0);
    expect((await call('GET', g.path, { token: g.founder.token })).status).toBe(404);
    expect((await call('GET', shared, { token: g.member.token })).status).toBe(404); // the share went with the group
    expect((await json<{ name: string }[]>(await call('GET', `${doc}/shared`, { token: g.founder.token }))).map((s) => s.name)).not.toContain(g.ref);
    expect(await json<Record<string, unknown>>(await call('GET', '/v1/admin/invites', { token: g.pending.token }))).not.toHaveProperty(g.ref);
    const slug = g.ref.split('~')[1]!;
    expect((await call('PUT', `/v1/admin/groups/${slug}`, { token: g.founder.token })).status).toBe(201); // the slug is free again
  });
  it('an organisation takes its groups with it; its admins may not delete it', async () => {
    const o = await orgWorld();
    expect((await call('DELETE', `/v1/admin/orgs/${o.org}`, { token: o.orgAdmin.token })).status).toBe(403);
    // oversight is read-only: an org admin cannot delete a group of the org either
    expect((await call('DELETE', o.path, { token: o.orgAdmin.token })).status).toBe(403);
    expect((await call('DELETE', `/v1/admin/orgs/${o.org}`, { token: o.account.token })).status).toBe(204);
    expect((await call('GET', `/v1/orgs/${o.org}`, { token: o.account.token })).status).toBe(404);
    expect((await call('GET', o.path, { token: o.member.token })).status).toBe(404);
    expect((await call('PUT', `/v1/admin/orgs/${unique('org')}`, { token: o.account.token })).status).toBe(201); // one per account: free again
  });
});
