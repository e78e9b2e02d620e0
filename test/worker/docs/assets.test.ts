// Assets: the nine types checked against their bytes, SVG well-formedness, the size and
// name limits, public access, conditional GETs, concurrent uploads.
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser } from '../helpers';
import { FILES, MiB, names, newDoc, PNG, upload, utf8 } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('assets', () => {
  it.each(Object.keys(FILES))('%s uploads (201) and downloads with its type', async (type) => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const res = await upload(u, `${path}/assets/file-1`, type, FILES[type]!);
    expect(res.status).toBe(201);
    const got = await call('GET', `${path}/assets/file-1`, { token: u.token });
    expect(got.status).toBe(200);
    expect(got.headers.get('Content-Type')).toBe(type);
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(FILES[type]);
  });
  it('upload replaces (200), listing shows assets, DELETE removes (then 404)', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await upload(u, `${path}/assets/pic`, 'image/png', PNG)).status).toBe(201);
    expect((await upload(u, `${path}/assets/pic`, 'image/gif', FILES['image/gif']!)).status).toBe(200);
    const got = await call('GET', `${path}/assets/pic`, { token: u.token });
    expect(got.headers.get('Content-Type')).toBe('image/gif');
    const list = (await (await call('GET', `${path}/assets`, { token: u.token })).json()) as {
      name: string;
      uri: string;
      actions: string[];
    }[];
    expect(list).toEqual([
      expect.objectContaining({ name: 'pic', uri: `${path}/assets/pic`, actions: ['GET', 'POST', 'DELETE'] }),
    ]);
    expect((await call('DELETE', `${path}/assets/pic`, { token: u.token })).status).toBe(204);
    expect((await call('GET', `${path}/assets/pic`, { token: u.token })).status).toBe(404);
    expect((await call('DELETE', `${path}/assets/pic`, { token: u.token })).status).toBe(404);
    expect(await (await call('GET', `${path}/assets`, { token: u.token })).json()).toEqual([]);
  });
  it('a PNG body labelled image/jpeg is rejected (400) and nothing is stored', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const res = await upload(u, `${path}/assets/x.jpg`, 'image/jpeg', PNG);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/does not match/);
    expect((await call('GET', `${path}/assets/x.jpg`, { token: u.token })).status).toBe(404);
    expect(await (await call('GET', `${path}/assets`, { token: u.token })).json()).toEqual([]);
  });
  it('an SVG that is not XML is rejected (400)', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await upload(u, `${path}/assets/a.svg`, 'image/svg+xml', utf8('<html><svg></svg></html>'))).status).toBe(
      400,
    );
  });
  it.each(['<svg><g></svg>', '<svg>&nosuch; < & </svg>', '<svg width="1></svg>', '<svg></svg><svg></svg>'])(
    'an SVG that is not well-formed XML (%j) is rejected (400) saying why, and nothing is stored',
    async (svg) => {
      const u = await makeUser();
      const { path } = await newDoc(u);
      const res = await upload(u, `${path}/assets/a.svg`, 'image/svg+xml', utf8(svg));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/well-formed/);
      expect(await (await call('GET', `${path}/assets`, { token: u.token })).json()).toEqual([]);
    },
  );
  it('a type outside the nine answers 415', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await upload(u, `${path}/assets/a.pdf`, 'application/pdf', utf8('%PDF-1.7'))).status).toBe(415);
    expect((await call('POST', `${path}/assets/a.txt`, { token: u.token, text: 'hi' })).status).toBe(415);
  });
  it('5 MiB is accepted; one byte more answers 413 and stores nothing', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const big = new Uint8Array(5 * MiB);
    big.set(PNG);
    expect((await upload(u, `${path}/assets/big.png`, 'image/png', big)).status).toBe(201);
    const over = new Uint8Array(5 * MiB + 1);
    over.set(PNG);
    const res = await upload(u, `${path}/assets/over.png`, 'image/png', over);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toMatch(/5 MiB/);
    expect((await call('GET', `${path}/assets/over.png`, { token: u.token })).status).toBe(404);
  });
  it('asset names follow the pattern and the 64-character limit (400 otherwise)', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await upload(u, `${path}/assets/${'a'.repeat(60)}.png`, 'image/png', PNG)).status).toBe(201);
    for (const bad of [`${'a'.repeat(61)}.png`, 'Logo.png', 'a.b.png', '-x', 'a_b']) {
      const res = await upload(u, `${path}/assets/${bad}`, 'image/png', PNG);
      expect(res.status).toBe(400);
    }
  });
  it('assets of a public document are served without a token; others need document access', async () => {
    const u = await makeUser({ profile_public: true });
    const stranger = await makeUser();
    const pub = await newDoc(u);
    const priv = await newDoc(u);
    await upload(u, `${pub.path}/assets/p.png`, 'image/png', PNG);
    await upload(u, `${priv.path}/assets/p.png`, 'image/png', PNG);
    await call('PUT', `${pub.path}/shared/public`, { token: u.token });
    const anon = await call('GET', `/v1/users/${u.username}/vis/docs/${pub.name}/assets/p.png`);
    expect(anon.status).toBe(200);
    expect(anon.headers.get('Content-Type')).toBe('image/png');
    expect((await call('GET', `/v1/users/${u.username}/vis/docs/${priv.name}/assets/p.png`)).status).toBe(404);
    expect(
      (await call('GET', `/v1/users/${u.username}/vis/docs/${priv.name}/assets/p.png`, { token: stranger.token }))
        .status,
    ).toBe(404);
    // reading is not writing
    expect(
      (await upload(stranger, `/v1/users/${u.username}/vis/docs/${pub.name}/assets/p.png`, 'image/png', PNG)).status,
    ).toBe(403);
  });
  it('conditional GETs: a matching If-None-Match answers 304; malformed conditional headers are ignored, never a 500', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    await upload(u, `${path}/assets/c.png`, 'image/png', PNG);
    const first = await call('GET', `${path}/assets/c.png`, { token: u.token });
    const etag = first.headers.get('ETag')!;
    expect(etag).toBeTruthy();
    expect(
      (await call('GET', `${path}/assets/c.png`, { token: u.token, headers: { 'If-None-Match': etag } })).status,
    ).toBe(304);
    for (const headers of [
      { 'If-Modified-Since': 'garbage' },
      { 'If-None-Match': '"' },
      { 'If-Unmodified-Since': 'x' },
      { 'If-Match': 'nope' },
    ] as Record<string, string>[]) {
      expect((await call('GET', `${path}/assets/c.png`, { token: u.token, headers })).status).toBe(200);
    }
  });
  it('concurrent uploads to one name leave one consistent asset (bytes match their type)', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const types = ['image/png', 'image/gif', 'image/webp', 'font/woff', 'image/png', 'font/otf'];
    const codes = (await Promise.all(types.map((t) => upload(u, `${path}/assets/race`, t, FILES[t]!)))).map(
      (r) => r.status,
    );
    expect(codes.every((c) => c === 200 || c === 201)).toBe(true);
    const got = await call('GET', `${path}/assets/race`, { token: u.token });
    const type = got.headers.get('Content-Type')!;
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(FILES[type]);
    expect(await names(await call('GET', `${path}/assets`, { token: u.token }))).toEqual(['race']);
  });
});
