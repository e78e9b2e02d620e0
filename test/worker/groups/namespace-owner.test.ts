// The owner of a group (the user whose namespace @user~group lives in, the organisation account of +org) always
// stays its active founder: nobody removes or demotes them, they do not leave or step down, they delete the group
// instead. Every membership route goes through one guarded write (src/groups/members.ts), so each way is refused.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { join, json, orgLite, person, T } from './fixtures';
import { call, unique, type TestUser } from '../helpers';

/** `owner`'s user group @owner~<slug> with `cofounder` as an active co-founder. */
async function cofounded(owner: TestUser, cofounder: TestUser) {
  const slug = unique('g');
  expect((await call('PUT', `/v1/admin/groups/${slug}`, { token: owner.token })).status).toBe(201);
  const ref = `@${owner.username}~${slug}`;
  const path = `/v1/admin/groups/${ref}`;
  await join(path, ref, owner, cofounder, 'founders');
  return { slug, ref, path };
}

const roleOf = async (path: string, u: TestUser) => (await call('GET', `${path}/role`, { token: u.token })).text();
const founders = async (path: string, u: TestUser) =>
  (await json<{ name: string }[]>(await call('GET', `${path}/roles/founders`, { token: u.token }))).map((i) => i.name);

describe('the owner of a user group stays its active founder', T, () => {
  it('a co-founder cannot remove the owner of the namespace the group lives in (403 naming the rule)', async () => {
    const [c, b] = await Promise.all([person('c'), person('b')]);
    const g = await cofounded(c, b);
    const res = await call('DELETE', `${g.path}/roles/founders/${c.username}`, { token: b.token });
    expect(res.status).toBe(403);
    expect((await json(res)).message).toMatch(/owner/);
    expect(await roleOf(g.path, c)).toBe('founders');
    expect((await call('GET', `/v1/admin/groups/${g.slug}`, { token: c.token })).status).toBe(200);
  });

  it('a co-founder cannot demote the owner into any lower role (403); nothing changes', async () => {
    const [c, b] = await Promise.all([person('c'), person('b')]);
    const g = await cofounded(c, b);
    for (const role of ['admins', 'superusers', 'members']) {
      const res = await call('PUT', `${g.path}/roles/${role}/${c.username}`, { token: b.token });
      expect(res.status, role).toBe(403);
      expect((await json(res)).message).toMatch(/owner/);
    }
    expect(await roleOf(g.path, c)).toBe('founders');
    expect(await founders(g.path, b)).toEqual([b.username, c.username].sort());
  });

  it('the owner does not leave or step down from their own group, even beside another founder (403)', async () => {
    const [c, b] = await Promise.all([person('c'), person('b')]);
    const g = await cofounded(c, b);
    expect((await call('DELETE', `${g.path}/roles/founders/${c.username}`, { token: c.token })).status).toBe(403);
    expect((await call('PUT', `${g.path}/roles/admins/${c.username}`, { token: c.token })).status).toBe(403);
    expect(await roleOf(g.path, c)).toBe('founders');
  });

  it('positive control: the owner demotes and removes a co-founder, a co-founder leaves, the owner deletes the group', async () => {
    const [c, b, d] = await Promise.all([person('c'), person('b'), person('d')]);
    const g = await cofounded(c, b);
    await join(g.path, g.ref, c, d, 'founders');
    expect((await call('PUT', `${g.path}/roles/admins/${b.username}`, { token: c.token })).status).toBe(200);
    expect((await call('DELETE', `${g.path}/roles/admins/${b.username}`, { token: c.token })).status).toBe(204);
    // another founder still removes and demotes anyone but the owner
    const e = await person('e');
    await join(g.path, g.ref, c, e, 'founders');
    expect((await call('PUT', `${g.path}/roles/members/${e.username}`, { token: d.token })).status).toBe(200);
    expect((await call('DELETE', `${g.path}/roles/founders/${d.username}`, { token: d.token })).status).toBe(204);
    expect(await founders(g.path, c)).toEqual([c.username]);
    expect((await call('DELETE', g.path, { token: c.token })).status).toBe(204);
  });
});

describe('the organisation account stays an active founder of its organisation', T, () => {
  it('a co-founder of the organisation cannot remove or demote the organisation account (403)', async () => {
    const o = await orgLite();
    const b = await person('b');
    await join(`/v1/admin/orgs/${o.org}`, `+${o.org}`, o.account, b, 'founders');
    const path = `/v1/admin/orgs/${o.org}`;
    const gone = await call('DELETE', `${path}/roles/founders/${o.account.username}`, { token: b.token });
    expect(gone.status).toBe(403);
    expect((await json(gone)).message).toMatch(/organisation account/);
    expect((await call('PUT', `${path}/roles/admins/${o.account.username}`, { token: b.token })).status).toBe(403);
    expect(
      (await call('DELETE', `${path}/roles/founders/${o.account.username}`, { token: o.account.token })).status,
    ).toBe(403);
    expect(await roleOf(path, o.account)).toBe('founders');
    // positive control: the account removes the co-founder and deletes its organisation
    expect((await call('DELETE', `${path}/roles/founders/${b.username}`, { token: o.account.token })).status).toBe(204);
    expect((await call('DELETE', path, { token: o.account.token })).status).toBe(204);
  });
});

describe('migration 0030 puts back owners another founder removed or demoted before the rule', T, () => {
  it('an owner removed from their user group, or demoted in their organisation, is its active founder again', async () => {
    const [c, b] = await Promise.all([person('c'), person('b')]);
    const g = await cofounded(c, b);
    const o = await orgLite();
    await join(`/v1/admin/orgs/${o.org}`, `+${o.org}`, o.account, b, 'founders');
    const kept = await cofounded(b, c); // an owner who is a founder already: untouched
    const row = (ref: string, u: TestUser) =>
      env.DB.prepare(
        `select role, state, last_modified from members where group_id = (select id from groups where ref = ?) and user_id = (select id from users where username = ?)`,
      )
        .bind(ref, u.username)
        .first<{ role: string; state: string; last_modified: string }>();
    const keptBefore = await row(kept.ref, b);
    // What another founder could do before the rule: c removed from its group, the account demoted in its organisation.
    await env.DB.batch([
      env.DB.prepare(
        `delete from members where group_id = (select id from groups where ref = ?) and user_id = (select id from users where username = ?)`,
      ).bind(g.ref, c.username),
      env.DB.prepare(
        `update members set role = 'members' where group_id = (select id from groups where ref = ?) and user_id = (select id from users where username = ?)`,
      ).bind(`+${o.org}`, o.account.username),
    ]);
    expect((await call('GET', `/v1/admin/groups/${g.slug}`, { token: c.token })).status).toBe(404);
    const migrations = (env as unknown as { TEST_MIGRATIONS: { name: string; queries: string[] }[] }).TEST_MIGRATIONS;
    for (const q of migrations.find((m) => m.name.startsWith('0030'))!.queries) await env.DB.prepare(q).run();
    expect(await row(g.ref, c)).toMatchObject({ role: 'founders', state: 'active' });
    expect(await row(`+${o.org}`, o.account)).toMatchObject({ role: 'founders', state: 'active' });
    expect(await row(kept.ref, b)).toEqual(keptBefore);
    expect(await roleOf(`/v1/admin/groups/${g.slug}`, c)).toBe('founders');
    expect(await founders(g.path, b)).toEqual([b.username, c.username].sort());
  });
});
