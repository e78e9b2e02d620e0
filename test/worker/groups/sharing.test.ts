// Sharing through groups: a share reaches accepted members only.
import { describe, expect, it } from 'vitest';
import { json, sharedGroup, sharedOrg, T } from './fixtures';
import { call, unique, type TestUser } from '../helpers';

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
      expect.arrayContaining([
        `${w.founder.username}:founders`,
        `${w.admin.username}:admins`,
        `${w.superuser.username}:superusers`,
        `${w.member.username}:members`,
      ]),
    );
    expect(names.some((n) => n.startsWith(`${w.pending.username}:`))).toBe(false);
    expect(await groupByRef(db, '@nobody~nothing')).toBeNull();
  });

  it('a document shared with @user~group and +org~group is readable by accepted members only', async () => {
    const w = await sharedGroup();
    const o = await sharedOrg();
    const doc = unique('d');
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: w.founder.token })).status).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${doc}/shared/${w.ref}`, { token: w.founder.token })).status).toBeLessThan(
      300,
    );
    const read = (u: TestUser) =>
      call('GET', `/v1/users/${w.founder.username}/vis/docs/${doc}`, { token: u.token }).then((r) => r.status);
    for (const u of [w.admin, w.superuser, w.member]) expect(await read(u)).toBe(200);
    for (const u of [w.pending, w.stranger]) expect(await read(u)).toBe(404);
    const orgDoc = unique('d');
    await call('PUT', `/v1/vis/docs/${orgDoc}`, { token: o.account.token });
    expect(
      (await call('PUT', `/v1/vis/docs/${orgDoc}/shared/${o.ref}~rw`, { token: o.account.token })).status,
    ).toBeLessThan(300);
    const readOrg = (u: TestUser) =>
      call('GET', `/v1/users/${o.account.username}/vis/docs/${orgDoc}`, { token: u.token }).then((r) => r.status);
    expect(await readOrg(o.member)).toBe(200);
    expect(await readOrg(o.pending)).toBe(404);
    expect(await readOrg(o.orgMember)).toBe(404);
    const info = await json(await call('GET', `/v1/orgs/${o.org}/groups/${o.group}`, { token: o.member.token }));
    expect(info.shared).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'doc', owner: o.account.username, name: orgDoc, entry: `${o.ref}~rw` }),
      ]),
    );
  });
});
