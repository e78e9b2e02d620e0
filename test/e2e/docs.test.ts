// Documents end to end over HTTP against the server started as `npm start` does: a
// document's whole life with a real group (created, invited and accepted through the groups API).
import { describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 180_000 });
import { http, makeUser, unique } from './harness';

const PNG = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  ),
);

describe('documents over HTTP', () => {
  it('walk: create, write, upload, share with a group whose member reads it (users path and alias), copy, rename, delete', async () => {
    const owner = await makeUser({ email: 'owner@example.com', email_verified: true });
    const member = await makeUser({ email: 'member@example.com', email_verified: true });
    const stranger = await makeUser();
    const doc = unique('w');
    const path = `/v1/vis/docs/${doc}`;

    expect((await http('PUT', path, { token: owner.token })).status).toBe(201);
    expect(
      (await http('POST', `${path}/content`, { token: owner.token, text: '# Report\n\nRevenue: {/u/x/d/y/v/rev}\n' }))
        .status,
    ).toBe(204);
    expect(
      (await http('POST', `${path}/assets/logo.png`, { token: owner.token, body: PNG, type: 'image/png' })).status,
    ).toBe(201);
    expect(
      (await http('POST', `${path}/assets/bad.jpg`, { token: owner.token, body: PNG, type: 'image/jpeg' })).status,
    ).toBe(400);

    // a group with the member in it: create, invite, accept
    const group = unique('t').slice(0, 20);
    expect((await http('PUT', `/v1/admin/groups/${group}`, { token: owner.token })).status).toBe(201);
    expect(
      (await http('PUT', `/v1/admin/groups/${group}/roles/members/${member.username}`, { token: owner.token })).status,
    ).toBe(201); // invited: a new membership
    const ref = `@${owner.username}~${group}`;
    expect((await http('POST', `/v1/admin/invites/${ref}/accept`, { token: member.token, text: 'yes' })).status).toBe(
      200,
    ); // the membership after the answer

    const theirs = `/v1/users/${owner.username}/vis/docs/${doc}`;
    expect((await http('GET', `${theirs}/content`, { token: member.token })).status).toBe(404);
    expect((await http('PUT', `${path}/shared/${ref}`, { token: owner.token })).status).toBe(201);
    const read = await http('GET', `${theirs}/content`, { token: member.token });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe('# Report\n\nRevenue: {/u/x/d/y/v/rev}\n');
    const asset = await http('GET', `${theirs}/assets/logo.png`, { token: member.token });
    expect(asset.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await asset.arrayBuffer())).toEqual(PNG);
    // the member finds it in the owner's documents and in the owner's alias listing
    const listed = (await (
      await http('GET', `/v1/users/${owner.username}/vis/docs`, { token: member.token })
    ).json()) as { name: string; permissions: string[] }[];
    expect(listed).toEqual([expect.objectContaining({ name: doc, permissions: ['r'] })]);
    const aliased = (await (await http('GET', `/v1/u/${owner.username}/d`, { token: member.token })).json()) as {
      name: string;
    }[];
    expect(aliased.map((d) => d.name)).toEqual([doc]);
    expect(await (await http('GET', `/v1/u/${owner.username}/d`, { token: stranger.token })).json()).toEqual([]);
    const envelope = (await (
      await http('GET', `/v1/u/${owner.username}/d/${doc}`, { token: member.token })
    ).json()) as Record<string, string>;
    expect(envelope).toMatchObject({ doc, owner: owner.username, type: 'doc', theme: 'default' });
    expect((await http('GET', `/v1/u/${owner.username}/d/${doc}`, { token: stranger.token })).status).toBe(404);
    expect((await http('GET', `/v1/u/${owner.username}/d/${doc}`)).status).toBe(404);
    expect((await http('POST', `${theirs}/content`, { token: member.token, text: 'mine now' })).status).toBe(403);

    // copy: private, fresh shortname, same content and assets
    const copy = unique('c');
    expect((await http('PATCH', path, { token: owner.token, json: { name: copy, copy: true } })).status).toBe(201);
    const shortA = await (await http('GET', `${path}/shortname`, { token: owner.token })).text();
    const shortB = await (await http('GET', `/v1/vis/docs/${copy}/shortname`, { token: owner.token })).text();
    expect(shortB).not.toBe(shortA);
    expect(await (await http('GET', `/v1/vis/docs/${copy}/shared`, { token: owner.token })).json()).toEqual([]);
    expect(
      (await http('GET', `/v1/users/${owner.username}/vis/docs/${copy}/content`, { token: member.token })).status,
    ).toBe(404);
    expect((await http('GET', `/v1/vis/docs/${copy}/assets/logo.png`, { token: owner.token })).status).toBe(200);

    // rename keeps shortname and shares
    const renamed = unique('r');
    expect((await http('PATCH', path, { token: owner.token, text: renamed })).status).toBe(200);
    expect(await (await http('GET', `/v1/vis/docs/${renamed}/shortname`, { token: owner.token })).text()).toBe(shortA);
    expect(
      (await http('GET', `/v1/users/${owner.username}/vis/docs/${renamed}/content`, { token: member.token })).status,
    ).toBe(200);

    // delete
    expect((await http('DELETE', `/v1/vis/docs/${renamed}`, { token: owner.token })).status).toBe(204);
    expect(
      (await http('GET', `/v1/users/${owner.username}/vis/docs/${renamed}/content`, { token: member.token })).status,
    ).toBe(404);
    expect((await http('GET', `/v1/vis/docs/${renamed}`, { token: owner.token })).status).toBe(404);
  });

  it('a public document: alias, envelope, variables and assets without a token', async () => {
    const u = await makeUser({ profile_public: true });
    const doc = unique('p');
    const path = `/v1/vis/docs/${doc}`;
    await http('PUT', path, { token: u.token });
    await http('POST', `${path}/assets/logo.png`, { token: u.token, body: PNG, type: 'image/png' });
    await http('PUT', `${path}/vars/delta`, { token: u.token });
    await http('POST', `${path}/vars/delta/type`, { token: u.token, text: 'relative' });
    await http('POST', `${path}/vars/delta/value`, { token: u.token, text: '0.12' });
    await http('POST', `${path}/vars/delta/format`, { token: u.token, text: '.0%' });
    expect((await http('PUT', `${path}/shared/public`, { token: u.token })).status).toBe(201);
    expect(
      ((await (await http('GET', `/v1/u/${u.username}/d`)).json()) as { name: string }[]).map((d) => d.name),
    ).toEqual([doc]);
    expect((await http('GET', `/v1/u/${u.username}/d/${doc}`)).status).toBe(200);
    expect(await (await http('GET', `/v1/u/${u.username}/d/${doc}/v/delta/txt`)).text()).toBe('↑ +12%');
    expect(await (await http('GET', `/v1/u/${u.username}/d/${doc}/v/delta/ansi`)).text()).toBe(
      '\u001b[32m↑ +12%\u001b[0m',
    );
    expect((await http('GET', `/v1/users/${u.username}/vis/docs/${doc}/assets/logo.png`)).status).toBe(200);
    for (const r of ['img', 'txt', 'ansi'])
      expect((await http('GET', `/v1/u/${u.username}/d/${doc}/${r}`)).status).toBe(404);
    // tolerant paths
    expect((await http('GET', `//v1//u/${u.username}/d/${doc}/`)).status).toBe(200);
  });
});
