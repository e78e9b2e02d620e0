// Rename and copy (PATCH): what a rename keeps and a copy clones, name clashes (also
// concurrent), a grantee's copy, and assets copied as streams.
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser, unique } from '../helpers';
import { MiB, names, newDoc, PNG, sharedDoc, upload } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('rename and copy', () => {
  it('rename (text body) keeps the shortname and the shares', async () => {
    const u = await makeUser({ profile_public: true });
    const { path } = await newDoc(u, 'body');
    const short = await (await call('GET', `${path}/shortname`, { token: u.token })).text();
    expect((await call('PUT', `${path}/shared/public`, { token: u.token })).status).toBe(201);
    const to = unique('r');
    const res = await call('PATCH', path, { token: u.token, text: to });
    expect(res.status).toBe(200);
    expect((await call('GET', `${path}/content`, { token: u.token })).status).toBe(404);
    const np = `/v1/vis/docs/${to}`;
    expect(await (await call('GET', `${np}/shortname`, { token: u.token })).text()).toBe(short);
    expect(await (await call('GET', `${np}/content`, { token: u.token })).text()).toBe('body');
    expect(await names(await call('GET', `${np}/shared`, { token: u.token }))).toEqual(['public']);
  });
  it('rename onto an existing name is 409; a bad name 400', async () => {
    const u = await makeUser();
    const a = await newDoc(u);
    const b = await newDoc(u);
    expect((await call('PATCH', a.path, { token: u.token, text: b.name })).status).toBe(409);
    expect((await call('PATCH', a.path, { token: u.token, text: 'Bad Name' })).status).toBe(400);
    expect((await call('PATCH', a.path, { token: u.token, json: { name: 5 } })).status).toBe(400);
  });
  it("copy clones content, configuration, variables, assets and the caller's tags; fresh shortname; private", async () => {
    const u = await makeUser({ profile_public: true });
    const { path } = await newDoc(u, 'original');
    await call('POST', `${path}/config/type`, { token: u.token, text: 'pres' });
    await call('PUT', `${path}/tags/fav`, { token: u.token });
    await call('PUT', `${path}/vars/rev`, { token: u.token });
    await call('POST', `${path}/vars/rev/value`, { token: u.token, text: '12' });
    await upload(u, `${path}/assets/logo.png`, 'image/png', PNG);
    await call('PUT', `${path}/shared/public`, { token: u.token });
    const to = unique('c');
    const res = await call('PATCH', path, { token: u.token, json: { name: to, copy: true } });
    expect(res.status).toBe(201);
    const cp = `/v1/vis/docs/${to}`;
    expect(await (await call('GET', `${cp}/content`, { token: u.token })).text()).toBe('original');
    expect(await (await call('GET', `${cp}/config/type`, { token: u.token })).text()).toBe('pres');
    expect(await (await call('GET', `${cp}/vars/rev/value`, { token: u.token })).text()).toBe('12');
    expect(await names(await call('GET', `${cp}/tags`, { token: u.token }))).toEqual(['fav']);
    const asset = await call('GET', `${cp}/assets/logo.png`, { token: u.token });
    expect(new Uint8Array(await asset.arrayBuffer())).toEqual(PNG);
    expect(await names(await call('GET', `${cp}/shared`, { token: u.token }))).toEqual([]);
    const s1 = await (await call('GET', `${path}/shortname`, { token: u.token })).text();
    const s2 = await (await call('GET', `${cp}/shortname`, { token: u.token })).text();
    expect(s2).not.toBe(s1);
    // the original is untouched
    expect(await (await call('GET', `${path}/content`, { token: u.token })).text()).toBe('original');
    expect((await call('GET', `/v1/u/${u.username}/d/${to}`)).status).toBe(404);
  });
  it('concurrent renames and copies onto one name: exactly one succeeds, the rest 409', async () => {
    const u = await makeUser();
    const docs = await Promise.all(Array.from({ length: 4 }, () => newDoc(u, 'x')));
    const target = unique('t');
    const renames = (await Promise.all(docs.map((d) => call('PATCH', d.path, { token: u.token, text: target })))).map(
      (r) => r.status,
    );
    expect(renames.sort()).toEqual([200, 409, 409, 409]);
    const copyTo = unique('c');
    const copies = (
      await Promise.all(
        Array.from({ length: 4 }, () =>
          call('PATCH', `/v1/vis/docs/${target}`, { token: u.token, json: { name: copyTo, copy: true } }),
        ),
      )
    ).map((r) => r.status);
    expect(copies.sort()).toEqual([201, 409, 409, 409]);
    expect(await names(await call('GET', '/v1/vis/docs', { token: u.token }))).toHaveLength(5);
  });
  it('a share grantee may copy into their own documents but not rename', async () => {
    const { owner, member: reader, path, theirs } = await sharedDoc('shared text');
    expect((await call('PATCH', theirs, { token: reader.token, text: 'renamed' })).status).toBe(403);
    const to = unique('c');
    await call('PUT', `${path}/tags/fav`, { token: owner.token });
    await call('PUT', `${theirs}/tags/+later`, { token: reader.token });
    expect((await call('PATCH', theirs, { token: reader.token, json: { name: to, copy: true } })).status).toBe(201);
    expect(await (await call('GET', `/v1/vis/docs/${to}/content`, { token: reader.token })).text()).toBe('shared text');
    // the copier's tags come along, the owner's do not
    expect(await names(await call('GET', `/v1/vis/docs/${to}/tags`, { token: reader.token }))).toEqual(['+later']);
  });
  const digest = async (b: ArrayBuffer | Uint8Array<ArrayBuffer>) =>
    `${b.byteLength} ${btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', b))))}`;
  it('a copy streams its assets: two of 5 MiB copy byte for byte', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const big = new Uint8Array(5 * MiB);
    big.set(PNG);
    big[big.length - 1] = 7;
    for (const a of ['one.png', 'two.png'])
      expect((await upload(u, `${path}/assets/${a}`, 'image/png', big)).status).toBe(201);
    const to = unique('c');
    expect((await call('PATCH', path, { token: u.token, json: { name: to, copy: true } })).status).toBe(201);
    for (const a of ['one.png', 'two.png']) {
      const got = await call('GET', `/v1/vis/docs/${to}/assets/${a}`, { token: u.token });
      expect(got.headers.get('Content-Type')).toBe('image/png');
      // compared by digest: a deep equality over 5 Mi elements took most of this test's time
      expect(await digest(await got.arrayBuffer())).toBe(await digest(big));
    }
  });
});
