// Sharing a document: public (needs a public profile, read fresh), user and organisation
// group shares, what a grantee may do, malformed and missing share entries. Groups are
// made through the groups API (fixtures.ts).
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser } from '../helpers';
import { makeGroup, makeOrg, names, newDoc, sharedDoc, text } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('sharing', () => {
  it('shared/public while the owner profile is private is 403 naming the profile setting; stores nothing', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const res = await call('PUT', `${path}/shared/public`, { token: u.token });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/profile/);
    expect(await (await call('GET', `${path}/shared`, { token: u.token })).json()).toEqual([]);
  });
  it("shared/public reads the owner's profile fresh (a change made in another isolate counts at once)", async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await call('PUT', `${path}/shared/public`, { token: u.token })).status).toBe(403); // this isolate caches the private profile
    await env.DB.prepare('update users set profile_public = 1 where username = ?').bind(u.username).run();
    expect((await call('PUT', `${path}/shared/public`, { token: u.token })).status).toBe(201);
  });
  it("a read-only grantee's listing offers POST/DELETE on notifications and PUT below tags (both per user)", async () => {
    const { member, theirs } = await sharedDoc();
    const items = (await (await call('GET', theirs, { token: member.token })).json()) as {
      name: string;
      actions: string[];
    }[];
    const actions = (n: string) => items.find((i) => i.name === n)!.actions;
    expect(actions('notifications')).toEqual(['GET', 'POST', 'DELETE']);
    expect(actions('tags')).toEqual(['GET', 'PUT']);
    expect(actions('content')).toEqual(['GET']);
  });
  it('a group share: accepted members read under /v1/users/:owner/vis/docs with the same structure; others 404; revoking ends it', async () => {
    const owner = await makeUser();
    const member = await makeUser();
    const pending = await makeUser();
    const declined = await makeUser();
    const stranger = await makeUser();
    const g = await makeGroup(owner, [
      { user: member },
      { user: pending, state: 'pending' },
      { user: declined, state: 'declined' },
    ]);
    const { name, path } = await newDoc(owner, 'for the team');
    expect((await call('PUT', `${path}/shared/${g.ref}`, { token: owner.token })).status).toBe(201);
    expect((await call('PUT', `${path}/shared/${g.ref}`, { token: owner.token })).status).toBe(409);
    expect(await names(await call('GET', `${path}/shared`, { token: owner.token }))).toEqual([g.ref]);
    const theirs = `/v1/users/${owner.username}/vis/docs/${name}`;
    expect(await text(await call('GET', `${theirs}/content`, { token: member.token }))).toEqual({
      status: 200,
      body: 'for the team',
    });
    const folder = await call('GET', theirs, { token: member.token });
    expect(folder.headers.get('X-NVM-Permissions')).toBe('r');
    expect(await names(folder)).toContain('vars');
    expect(await names(await call('GET', `/v1/users/${owner.username}/vis/docs`, { token: member.token }))).toEqual([
      name,
    ]);
    expect((await call('POST', `${theirs}/content`, { token: member.token, text: 'x' })).status).toBe(403);
    expect((await call('DELETE', theirs, { token: member.token })).status).toBe(403);
    expect((await call('PUT', `${theirs}/shared/public`, { token: member.token })).status).toBe(403);
    for (const who of [pending, declined, stranger]) {
      expect((await call('GET', `${theirs}/content`, { token: who.token })).status).toBe(404);
      expect(await (await call('GET', `/v1/users/${owner.username}/vis/docs`, { token: who.token })).json()).toEqual(
        [],
      );
    }
    expect((await call('DELETE', `${path}/shared/${g.ref}`, { token: owner.token })).status).toBe(204);
    expect((await call('GET', `${theirs}/content`, { token: member.token })).status).toBe(404);
  });
  it('an organisation group share (+org~group) with ~rw lets members write but never delete', async () => {
    const owner = await makeUser();
    const member = await makeUser();
    const org = await makeOrg();
    // the owner holds a role in the group too: sharing into a group needs one
    const g = await makeGroup(owner, [{ user: owner }, { user: member }], { org });
    const { name, path } = await newDoc(owner, 'v1');
    expect((await call('PUT', `${path}/shared/${g.ref}~rw`, { token: owner.token })).status).toBe(201);
    const theirs = `/v1/users/${owner.username}/vis/docs/${name}`;
    expect((await call('POST', `${theirs}/content`, { token: member.token, text: 'v2' })).status).toBe(204);
    expect(await (await call('GET', `${path}/content`, { token: owner.token })).text()).toBe('v2');
    expect((await call('DELETE', theirs, { token: member.token })).status).toBe(403);
    // the owner's collection says the same as the document's folder: r, w
    const listed = (await (
      await call('GET', `/v1/users/${owner.username}/vis/docs`, { token: member.token })
    ).json()) as { name: string; permissions: string[] }[];
    expect(listed).toEqual([expect.objectContaining({ name, permissions: ['r', 'w'] })]);
    expect((await call('GET', theirs, { token: member.token })).headers.get('X-NVM-Permissions')).toBe('r, w');
  });
  it('a share naming a missing group is 404; a malformed entry 400', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await call('PUT', `${path}/shared/@${u.username}~nosuchgroup`, { token: u.token })).status).toBe(404);
    expect((await call('PUT', `${path}/shared/everyone`, { token: u.token })).status).toBe(400);
  });
});
