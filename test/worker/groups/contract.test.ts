import { describe, expect, it } from 'vitest';
import { rfc2822Utc } from '../../../src/core/dates';
import { call, makeUser, unique, type TestUser } from '../helpers';
import { json, once, orgWorld, person, userGroupWorld } from './fixtures';

interface Item {
  id: string;
  name: string;
  type: string;
  summary: string;
  uri: string;
  shared: { id: string; name: string; type: string }[];
  updated: string;
}

const ug = once(userGroupWorld);
const og = once(orgWorld);

async function resource(
  u: TestUser,
  collection: string,
  entries: Record<string, string> = {},
  shares: string[] = [],
): Promise<string> {
  const name = unique('r');
  expect((await call('PUT', `/v1/${collection}/${name}`, { token: u.token })).status).toBe(201);
  for (const [e, v] of Object.entries(entries))
    expect((await call('POST', `/v1/${collection}/${name}/${e}`, { token: u.token, text: v })).status).toBe(204);
  for (const s of shares)
    expect((await call('PUT', `/v1/${collection}/${name}/shared/${s}`, { token: u.token })).status, s).toBe(201);
  return name;
}

describe('GET /v1/groups (client contract)', () => {
  it('lists the groups and organisations the caller belongs to, named by reference', async () => {
    const w = await og();
    const res = await call('GET', '/v1/groups', { token: w.orgAdmin.token });
    expect(res.status).toBe(200);
    const names = (await json<{ name: string; uri: string; type: string }[]>(res)).map((i) => i.name);
    expect(names).toContain(`+${w.org}`);
    const member = await json<{ name: string; uri: string; type: string; role: string }[]>(
      await call('GET', '/v1/groups', { token: w.member.token }),
    );
    const item = member.find((i) => i.name === w.ref)!;
    expect(item).toMatchObject({ type: 'dir', uri: w.path, role: 'members' });
    // org oversight is not membership; the org's own listing shows +org for its members only
    expect(member.map((i) => i.name)).not.toContain(`+${w.org}`);
  });

  it("user groups: one's own and other users' groups by @user~group; pending invites and strangers' groups are not listed", async () => {
    const w = await ug();
    const own = await json<{ name: string }[]>(await call('GET', '/v1/groups', { token: w.founder.token }));
    expect(own.map((i) => i.name)).toContain(w.ref);
    const theirs = await json<{ name: string }[]>(await call('GET', '/v1/groups', { token: w.member.token }));
    expect(theirs.map((i) => i.name)).toContain(w.ref);
    for (const who of [w.pending, w.stranger]) {
      expect(
        (await json<{ name: string }[]>(await call('GET', '/v1/groups', { token: who.token }))).map((i) => i.name),
      ).not.toContain(w.ref);
    }
  });

  it('needs a token (401)', async () => {
    expect((await call('GET', '/v1/groups')).status).toBe(401);
  });
});

describe('GET /v1/o/<group ref>/<d|g|m|j> (client contract)', () => {
  it('lists the documents shared with a user group with name, type, summary, shares and an RFC 2822 updated', async () => {
    const w = await ug();
    const doc = await resource(
      w.admin,
      'vis/docs',
      { name: 'Quarterly', summary: 'Numbers  ', 'config/type': 'pres' },
      [`${w.ref}~rw`],
    );
    const hidden = await resource(w.admin, 'vis/docs'); // not shared with the group
    const res = await call('GET', `/v1/o/${w.ref}/d`, { token: w.member.token });
    expect(res.status).toBe(200);
    const items = await json<Item[]>(res);
    const item = items.find((i) => i.id === doc)!;
    expect(item).toMatchObject({
      id: doc,
      name: 'Quarterly',
      type: 'pres',
      summary: 'Numbers  ',
      uri: `/v1/users/${w.admin.username}/vis/docs/${doc}`,
    });
    expect(item.shared).toEqual([{ id: `${w.ref}~rw`, name: w.ref, type: 'user_group' }]);
    expect(item.updated).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} UTC$/);
    const row = (
      await json<{ last_modified: string }[]>(await call('GET', '/v1/vis/docs', { token: w.admin.token }))
    ).find((r) => (r as unknown as { name: string }).name === doc)!;
    expect(item.updated).toBe(rfc2822Utc(row.last_modified));
    expect(items.map((i) => i.id)).not.toContain(hidden);
    expect(Object.keys(item).sort()).toEqual(['id', 'name', 'shared', 'summary', 'type', 'updated', 'uri']);
  });

  it('each section lists its own kind: grids, e-mails and jobs with their default types', async () => {
    const w = await og();
    const grid = await resource(w.superuser, 'vis/grids', {}, [w.ref]);
    const mail = await resource(w.superuser, 'vis/mails', { summary: 'Weekly' }, [w.ref]);
    const job = await resource(w.superuser, 'code/jobs', {}, [w.ref]);
    const get = async (s: string) => json<Item[]>(await call('GET', `/v1/o/${w.ref}/${s}`, { token: w.member.token }));
    expect((await get('g')).map((i) => [i.id, i.type])).toContainEqual([grid, 'grid']);
    expect((await get('m')).find((i) => i.id === mail)).toMatchObject({ type: 'mail', summary: 'Weekly', name: mail });
    const jobs = await get('j');
    expect(jobs.find((i) => i.id === job)).toMatchObject({
      type: 'job',
      uri: `/v1/users/${w.superuser.username}/code/jobs/${job}`,
    });
    expect((await get('d')).map((i) => i.id)).not.toContain(grid);
    expect(await get('p')).toEqual([]);
  });

  it('a group the caller cannot see answers 404, as does one that does not exist', async () => {
    const w = await og();
    await resource(w.admin, 'vis/docs', {}, [w.ref]);
    for (const who of [w.stranger, w.orgMember]) {
      expect((await call('GET', `/v1/o/${w.ref}/d`, { token: who.token })).status).toBe(404);
    }
    expect((await call('GET', `/v1/o/${w.ref}/d`)).status).toBe(404);
    expect((await call('GET', `/v1/o/+${w.org}~nosuchgroup/d`, { token: w.member.token })).status).toBe(404);
    const u = await ug();
    expect((await call('GET', `/v1/o/${u.ref}/d`, { token: u.stranger.token })).status).toBe(404);
  });

  it('only items the caller can read: a public group shows outsiders what is also shared with them', async () => {
    const founder = await person('f');
    const outsider = await makeUser();
    await call('POST', '/v1/admin/profile/public', { token: founder.token, text: 'yes' });
    const slug = unique('g');
    expect((await call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token })).status).toBe(201);
    const ref = `@${founder.username}~${slug}`;
    expect(
      (await call('POST', `/v1/admin/groups/${slug}/profile/options/public`, { token: founder.token, text: 'yes' }))
        .status,
    ).toBe(204);
    const open = await resource(founder, 'vis/docs', {}, [ref, 'public']);
    const closed = await resource(founder, 'vis/docs', {}, [ref]);
    const seen = (await json<Item[]>(await call('GET', `/v1/o/${ref}/d`, { token: outsider.token }))).map((i) => i.id);
    expect(seen).toContain(open);
    expect(seen).not.toContain(closed);
    const anon = (await json<Item[]>(await call('GET', `/v1/o/${ref}/d`))).map((i) => i.id);
    expect(anon).toEqual([open]);
    const mine = (await json<Item[]>(await call('GET', `/v1/o/${ref}/d`, { token: founder.token })))
      .map((i) => i.id)
      .sort();
    expect(mine).toEqual([open, closed].sort());
  });

  it('an organisation reference lists what is shared with the whole organisation', async () => {
    const w = await og();
    // Shared by a member of the organisation (sharing into a group needs an active role in it).
    const doc = await resource(w.orgMember, 'vis/docs', {}, [`+${w.org}`]);
    const items = await json<Item[]>(await call('GET', `/v1/o/+${w.org}/d`, { token: w.orgAdmin.token }));
    expect(items.find((i) => i.id === doc)?.shared).toEqual([{ id: `+${w.org}`, name: `+${w.org}`, type: 'org' }]);
  });

  it('bad references answer 400, unknown sections 404', async () => {
    const w = await ug();
    for (const bad of ['@', '@Bad~x', '+', '@user~', '+org~g~h']) {
      expect((await call('GET', `/v1/o/${encodeURIComponent(bad)}/d`, { token: w.member.token })).status, bad).toBe(
        400,
      );
    }
    expect((await call('GET', `/v1/o/${w.ref}/x`, { token: w.member.token })).status).toBe(404);
    expect((await call('GET', `/v1/o/${w.ref}/v`, { token: w.member.token })).status).toBe(404);
  });

  it('a bare organisation keeps the organisation alias listing', async () => {
    const w = await og();
    const doc = await resource(w.account, 'vis/docs', {}, [`+${w.org}`]);
    const res = await call('GET', `/v1/o/${w.org}/d`, { token: w.orgMember.token });
    expect(res.status).toBe(200);
    const items = await json<{ name: string; uri: string; permissions: string[] }[]>(res);
    expect(items.find((i) => i.name === doc)).toMatchObject({
      uri: `/v1/users/${w.account.username}/vis/docs/${doc}`,
      permissions: ['r'],
    });
    expect((await call('GET', `/v1/o/${w.org}/j`, { token: w.orgMember.token })).status).toBe(404);
  });
});
