// Documents through the real Worker in workerd (real local D1 and R2): every rule of
// docs/areas/docs.md outside rendering. Group shares use core groups/members rows (docs-fixtures).
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser, unique, type TestUser } from '../helpers';
import { FILES, makeGroup, makeOrg, PNG } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

const MiB = 1024 * 1024;

async function newDoc(u: TestUser, content?: string): Promise<{ name: string; path: string }> {
  const name = unique('d');
  const res = await call('PUT', `/v1/vis/docs/${name}`, { token: u.token });
  expect(res.status).toBe(201);
  if (content !== undefined) expect((await call('POST', `/v1/vis/docs/${name}/content`, { token: u.token, text: content })).status).toBe(204);
  return { name, path: `/v1/vis/docs/${name}` };
}

/** A document of a fresh owner shared with a group holding one accepted member (read only). */
async function sharedDoc(content?: string) {
  const owner = await makeUser();
  const member = await makeUser();
  const g = await makeGroup(owner, [{ user: member }]);
  const { name, path } = await newDoc(owner, content);
  expect((await call('PUT', `${path}/shared/${g.ref}`, { token: owner.token })).status).toBe(201);
  return { owner, member, name, path, theirs: `/v1/users/${owner.username}/vis/docs/${name}` };
}

const text = async (res: Response) => ({ status: res.status, body: await res.text() });
const names = async (res: Response) => ((await res.json()) as { name: string }[]).map((i) => i.name);
const upload = (u: TestUser | null, path: string, type: string, body: Uint8Array<ArrayBuffer>) => call('POST', path, { token: u?.token, body, headers: { 'Content-Type': type } });

describe('the document collection', () => {
  it('PUT creates (201), re-PUT answers 409 with a JSON message, a bad name 400', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u);
    const again = await call('PUT', path, { token: u.token });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ status: 409, message: expect.stringContaining(name) });
    for (const bad of ['Bad', 'a-b', '_x']) expect((await call('PUT', `/v1/vis/docs/${bad}`, { token: u.token })).status).toBe(400);
  });
  it('concurrent creates of one name: exactly one 201, the rest 409', async () => {
    const u = await makeUser();
    const name = unique('d');
    const codes = (await Promise.all(Array.from({ length: 6 }, () => call('PUT', `/v1/vis/docs/${name}`, { token: u.token })))).map((r) => r.status);
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(5);
  });
  it("GET /v1/vis/docs lists the caller's documents only", async () => {
    const u = await makeUser();
    const other = await makeUser();
    const a = await newDoc(u);
    await newDoc(other);
    const res = await call('GET', '/v1/vis/docs', { token: u.token });
    expect(res.headers.get('X-NVM-Type')).toBe('dir');
    const list = (await res.json()) as { name: string; uri: string; type: string; permissions: string[] }[];
    expect(list).toEqual([expect.objectContaining({ name: a.name, uri: a.path, type: 'dir', permissions: ['r', 'w', 'd'] })]);
  });
  it('the folder listing shows every entry with X-NVM-Permissions', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const res = await call('GET', path, { token: u.token });
    expect(res.headers.get('X-NVM-Permissions')).toBe('r, w, d');
    expect(await names(res)).toEqual(
      ['assets', 'config', 'content', 'description', 'files', 'log', 'name', 'notifications', 'shared', 'shortname', 'summary', 'tags', 'threads', 'url', 'vars'].sort((a, b) =>
        a.localeCompare(b),
      ),
    );
  });
  it('DELETE removes the document (then 404), its assets with it', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u, 'x');
    expect((await upload(u, `${path}/assets/a.png`, 'image/png', PNG)).status).toBe(201);
    expect((await call('DELETE', path, { token: u.token })).status).toBe(204);
    expect((await call('GET', `${path}/content`, { token: u.token })).status).toBe(404);
    expect((await call('GET', `${path}/assets/a.png`, { token: u.token })).status).toBe(404);
  });
  it('needs a token', async () => expect((await call('GET', '/v1/vis/docs')).status).toBe(401));
});

describe('text entries', () => {
  it('content reads back byte for byte (text/plain, X-NVM-Type file)', async () => {
    const u = await makeUser();
    const body = '# Title\n\n  spaced  \n\nünïcödé {{ page }}\n\n\n';
    const { path } = await newDoc(u, body);
    const res = await call('GET', `${path}/content`, { token: u.token });
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
    expect(res.headers.get('X-NVM-Type')).toBe('file');
    expect(await res.text()).toBe(body);
  });
  it('content up to 2 MiB is stored (and spills to R2); above 2 MiB answers 413 and stores nothing', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u, 'before');
    const big = 'a'.repeat(2 * MiB);
    expect((await call('POST', `${path}/content`, { token: u.token, text: big })).status).toBe(204);
    expect((await call('GET', `${path}/content`, { token: u.token }).then((r) => r.text())).length).toBe(2 * MiB);
    const tooBig = await call('POST', `${path}/content`, { token: u.token, text: big + 'b' });
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ status: 413, message: expect.stringContaining('content') });
    expect((await call('GET', `${path}/content`, { token: u.token }).then((r) => r.text())).length).toBe(2 * MiB);
  });
  it.each(['content', 'name', 'description', 'summary'])('%s: POST writes, GET reads, DELETE clears', async (entry) => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect(await text(await call('GET', `${path}/${entry}`, { token: u.token }))).toEqual({ status: 200, body: '' });
    expect((await call('POST', `${path}/${entry}`, { token: u.token, text: `my ${entry}` })).status).toBe(204);
    expect(await text(await call('GET', `${path}/${entry}`, { token: u.token }))).toEqual({ status: 200, body: `my ${entry}` });
    expect((await call('DELETE', `${path}/${entry}`, { token: u.token })).status).toBe(204);
    expect(await text(await call('GET', `${path}/${entry}`, { token: u.token }))).toEqual({ status: 200, body: '' });
  });
  it('a form-urlencoded body answers 415 and stores nothing', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u, 'kept');
    const res = await call('POST', `${path}/content`, { token: u.token, text: 'a=b', type: 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect((await res.json()) as object).toMatchObject({ message: expect.stringContaining('text/plain') });
    expect(await (await call('GET', `${path}/content`, { token: u.token })).text()).toBe('kept');
  });
  it('shortname and url are read-only; url is <origin>/u/<user>/d/<doc>', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u);
    const short = await (await call('GET', `${path}/shortname`, { token: u.token })).text();
    expect(short).toMatch(/^[a-z0-9]{6,}$/);
    const url = await (await call('GET', `${path}/url`, { token: u.token })).text();
    expect(url).toMatch(new RegExp(`/u/${u.username}/d/${name}$`));
    expect((await call('POST', `${path}/shortname`, { token: u.token, text: 'x' })).status).toBe(405);
    expect((await call('POST', `${path}/url`, { token: u.token, text: 'x' })).status).toBe(405);
  });
});

describe('configuration', () => {
  it('defaults: type doc, theme default, comments true, custom.css/title/toc empty', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const read = async (k: string) => (await call('GET', `${path}/config/${k}`, { token: u.token })).text();
    expect(await read('type')).toBe('doc');
    expect(await read('theme')).toBe('default');
    expect(await read('comments')).toBe('true');
    expect(await read('custom/custom.css')).toBe('');
    expect(await read('title')).toBe('');
    expect(await read('toc')).toBe('');
    expect(await names(await call('GET', `${path}/config`, { token: u.token }))).toEqual(['comments', 'custom', 'theme', 'title', 'toc', 'type']);
    expect(await names(await call('GET', `${path}/config/custom`, { token: u.token }))).toEqual(['custom.css']);
  });
  it.each([
    ['type', ['doc', 'docs', 'pres', 'blog', 'web'], ['slides', 'DOC', '']],
    ['comments', ['true', 'false'], ['yes', 'True', '1']],
    ['theme', ['dark', 'paper'], ['Dark', 'a b', '+acme', '', 'nosuchtheme']],
  ])('config/%s accepts the allowed values and answers 400 for others, keeping the value', async (key, good, bad) => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    for (const v of good) {
      expect((await call('POST', `${path}/config/${key}`, { token: u.token, text: v })).status).toBe(204);
      expect(await (await call('GET', `${path}/config/${key}`, { token: u.token })).text()).toBe(v);
    }
    for (const v of bad) {
      const res = await call('POST', `${path}/config/${key}`, { token: u.token, text: v });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(`config/${key}`);
      expect(await (await call('GET', `${path}/config/${key}`, { token: u.token })).text()).toBe(good.at(-1));
    }
  });
  it('config/theme takes an organisation theme +org/theme for an existing organisation', async () => {
    const u = await makeUser();
    const { slug: org } = await makeOrg();
    const { path } = await newDoc(u);
    expect((await call('POST', `${path}/config/theme`, { token: u.token, text: `+${org}/brand` })).status).toBe(204);
    expect(await (await call('GET', `${path}/config/theme`, { token: u.token })).text()).toBe(`+${org}/brand`);
    const missing = await call('POST', `${path}/config/theme`, { token: u.token, text: '+nosuchorgzz/brand' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(/no such organisation/);
  });
  it('custom.css, title and toc store any text exactly', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    for (const [k, v] of [
      ['custom/custom.css', 'h1 { color: red; }\n'],
      ['title', 'Reserved'],
      ['toc', 'yes please'],
    ]) {
      expect((await call('POST', `${path}/config/${k}`, { token: u.token, text: v })).status).toBe(204);
      expect(await (await call('GET', `${path}/config/${k}`, { token: u.token })).text()).toBe(v);
    }
  });
});

describe('the document log', () => {
  it('records what happened: text by default, JSON entries with Accept: application/json', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u, 'hello');
    await upload(u, `${path}/assets/a.png`, 'image/png', PNG);
    const plain = await (await call('GET', `${path}/log`, { token: u.token })).text();
    expect(plain).toMatch(/INFO document created\n/);
    expect(plain).toMatch(/content written \(5 bytes\)/);
    expect(plain).toMatch(/asset a\.png uploaded/);
    const json = (await (await call('GET', `${path}/log`, { token: u.token, headers: { Accept: 'application/json' } })).json()) as {
      log_time: string;
      severity: string;
      message: string;
    }[];
    expect(json[0]).toEqual({ log_time: expect.stringMatching(/Z$/), severity: 'info', message: 'document created' });
    expect((await call('POST', `${path}/log`, { token: u.token, text: 'x' })).status).toBe(405);
  });
  it('records shares and their revocation, renames, copies and variable changes', async () => {
    const u = await makeUser();
    const member = await makeUser();
    const g = await makeGroup(u, [{ user: member }]);
    const { name, path } = await newDoc(u, 'x');
    await call('PUT', `${path}/shared/${g.ref}`, { token: u.token });
    await call('DELETE', `${path}/shared/${g.ref}`, { token: u.token });
    await call('PUT', `${path}/vars/rev`, { token: u.token });
    await call('POST', `${path}/vars/rev/value`, { token: u.token, text: '12' });
    await call('DELETE', `${path}/vars/rev/value`, { token: u.token });
    await call('DELETE', `${path}/vars/rev`, { token: u.token });
    const to = unique('r');
    expect((await call('PATCH', path, { token: u.token, text: to })).status).toBe(200);
    const moved = `/v1/vis/docs/${to}`;
    const cp = unique('c');
    expect((await call('PATCH', moved, { token: u.token, json: { name: cp, copy: true } })).status).toBe(201);
    const messages = ((await (await call('GET', `${moved}/log`, { token: u.token, headers: { Accept: 'application/json' } })).json()) as { message: string }[]).map(
      (e) => e.message,
    );
    expect(messages).toEqual(
      expect.arrayContaining([
        `shared with ${g.ref}`,
        `sharing with ${g.ref} revoked`,
        'variable rev created',
        'variable rev: value written',
        'variable rev: value reset',
        'variable rev deleted',
        `renamed from ${name} to ${to}`,
      ]),
    );
    const copyLog = await (await call('GET', `/v1/vis/docs/${cp}/log`, { token: u.token })).text();
    expect(copyLog).toContain(`copied from ${u.username}/${to}`);
  });
});

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
    const renames = (await Promise.all(docs.map((d) => call('PATCH', d.path, { token: u.token, text: target })))).map((r) => r.status);
    expect(renames.sort()).toEqual([200, 409, 409, 409]);
    const copyTo = unique('c');
    const copies = (await Promise.all(Array.from({ length: 4 }, () => call('PATCH', `/v1/vis/docs/${target}`, { token: u.token, json: { name: copyTo, copy: true } })))).map(
      (r) => r.status,
    );
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
  it('a copy streams its assets: two of 5 MiB copy byte for byte', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const big = new Uint8Array(5 * MiB);
    big.set(PNG);
    big[big.length - 1] = 7;
    for (const a of ['one.png', 'two.png']) expect((await upload(u, `${path}/assets/${a}`, 'image/png', big)).status).toBe(201);
    const to = unique('c');
    expect((await call('PATCH', path, { token: u.token, json: { name: to, copy: true } })).status).toBe(201);
    for (const a of ['one.png', 'two.png']) {
      const got = await call('GET', `/v1/vis/docs/${to}/assets/${a}`, { token: u.token });
      expect(got.headers.get('Content-Type')).toBe('image/png');
      expect(new Uint8Array(await got.arrayBuffer())).toEqual(big);
    }
  });
});

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
    const list = (await (await call('GET', `${path}/assets`, { token: u.token })).json()) as { name: string; uri: string; actions: string[] }[];
    expect(list).toEqual([expect.objectContaining({ name: 'pic', uri: `${path}/assets/pic`, actions: ['GET', 'POST', 'DELETE'] })]);
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
    expect((await upload(u, `${path}/assets/a.svg`, 'image/svg+xml', new TextEncoder().encode('<html><svg></svg></html>'))).status).toBe(400);
  });
  it.each(['<svg><g></svg>', '<svg>&nosuch; < & </svg>', '<svg width="1></svg>', '<svg></svg><svg></svg>'])(
    'an SVG that is not well-formed XML (%j) is rejected (400) saying why, and nothing is stored',
    async (svg) => {
      const u = await makeUser();
      const { path } = await newDoc(u);
      const res = await upload(u, `${path}/assets/a.svg`, 'image/svg+xml', new TextEncoder().encode(svg));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/well-formed/);
      expect(await (await call('GET', `${path}/assets`, { token: u.token })).json()).toEqual([]);
    },
  );
  it('a type outside the nine answers 415', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await upload(u, `${path}/assets/a.pdf`, 'application/pdf', new TextEncoder().encode('%PDF-1.7'))).status).toBe(415);
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
    expect((await call('GET', `/v1/users/${u.username}/vis/docs/${priv.name}/assets/p.png`, { token: stranger.token })).status).toBe(404);
    // reading is not writing
    expect((await upload(stranger, `/v1/users/${u.username}/vis/docs/${pub.name}/assets/p.png`, 'image/png', PNG)).status).toBe(403);
  });
  it('conditional GETs: a matching If-None-Match answers 304; malformed conditional headers are ignored, never a 500', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    await upload(u, `${path}/assets/c.png`, 'image/png', PNG);
    const first = await call('GET', `${path}/assets/c.png`, { token: u.token });
    const etag = first.headers.get('ETag')!;
    expect(etag).toBeTruthy();
    expect((await call('GET', `${path}/assets/c.png`, { token: u.token, headers: { 'If-None-Match': etag } })).status).toBe(304);
    for (const headers of [{ 'If-Modified-Since': 'garbage' }, { 'If-None-Match': '"' }, { 'If-Unmodified-Since': 'x' }, { 'If-Match': 'nope' }] as Record<string, string>[]) {
      expect((await call('GET', `${path}/assets/c.png`, { token: u.token, headers })).status).toBe(200);
    }
  });
  it('concurrent uploads to one name leave one consistent asset (bytes match their type)', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const types = ['image/png', 'image/gif', 'image/webp', 'font/woff', 'image/png', 'font/otf'];
    const codes = (await Promise.all(types.map((t) => upload(u, `${path}/assets/race`, t, FILES[t]!)))).map((r) => r.status);
    expect(codes.every((c) => c === 200 || c === 201)).toBe(true);
    const got = await call('GET', `${path}/assets/race`, { token: u.token });
    const type = got.headers.get('Content-Type')!;
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(FILES[type]);
    expect(await names(await call('GET', `${path}/assets`, { token: u.token }))).toEqual(['race']);
  });
});

describe('variables', () => {
  it('PUT vars/<var> creates (201) with defaults; again 409; bad names 400', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await call('PUT', `${path}/vars/revenue`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${path}/vars/revenue`, { token: u.token })).status).toBe(409);
    for (const bad of ['Rev', 'a.b', 'x'.repeat(51)]) expect((await call('PUT', `${path}/vars/${bad}`, { token: u.token })).status).toBe(400);
    expect(await names(await call('GET', `${path}/vars`, { token: u.token }))).toEqual(['revenue']);
    expect(await names(await call('GET', `${path}/vars/revenue`, { token: u.token }))).toEqual(['value', 'type', 'format', 'about', 'threshold']);
    expect(await (await call('GET', `${path}/vars/revenue/type`, { token: u.token })).text()).toBe('number');
  });
  it('concurrent creates of one variable: exactly one 201', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const codes = (await Promise.all(Array.from({ length: 5 }, () => call('PUT', `${path}/vars/v1`, { token: u.token })))).map((r) => r.status);
    expect(codes.sort()).toEqual([201, 409, 409, 409, 409]);
  });
  it('attributes write with POST text/plain, reset with DELETE; invalid values 400 and keep the old value', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    await call('PUT', `${path}/vars/growth`, { token: u.token });
    const w = (attr: string, v: string) => call('POST', `${path}/vars/growth/${attr}`, { token: u.token, text: v });
    expect((await w('type', 'relative')).status).toBe(204);
    expect((await w('value', '-0.042')).status).toBe(204);
    expect((await w('format', '+.1%')).status).toBe(204);
    expect((await w('about', 'Growth against last month')).status).toBe(204);
    expect((await w('threshold', '-0.01,0.01')).status).toBe(204);
    expect((await w('value', 'lots')).status).toBe(400);
    expect((await w('value', '1'.repeat(51))).status).toBe(400);
    expect((await w('type', 'percent')).status).toBe(400);
    expect((await w('type', 'date')).status).toBe(400);
    expect((await w('format', 'zz')).status).toBe(400);
    expect((await w('about', 'a'.repeat(251))).status).toBe(400);
    expect((await w('threshold', 'low,high')).status).toBe(400);
    expect((await call('POST', `${path}/vars/growth/colour`, { token: u.token, text: 'x' })).status).toBe(404);
    expect((await call('POST', `${path}/vars/nosuch/value`, { token: u.token, text: '1' })).status).toBe(404);
    expect(await (await call('GET', `${path}/vars/growth/value`, { token: u.token })).text()).toBe('-0.042');
    expect((await call('DELETE', `${path}/vars/growth/about`, { token: u.token })).status).toBe(204);
    expect(await (await call('GET', `${path}/vars/growth/about`, { token: u.token })).text()).toBe('');
  });
  it('a number format wider than 64 or more precise than 20 is refused; one stored before the rule prints clamped', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u);
    await call('PUT', `${path}/vars/big`, { token: u.token });
    await call('POST', `${path}/vars/big/value`, { token: u.token, text: '7' });
    const w = (v: string) => call('POST', `${path}/vars/big/format`, { token: u.token, text: v });
    const wide = await w('150000000d');
    expect(wide.status).toBe(400);
    expect(((await wide.json()) as { message: string }).message).toContain('width is at most 64');
    const precise = await w('.25f');
    expect(precise.status).toBe(400);
    expect(((await precise.json()) as { message: string }).message).toContain('precision is at most 20');
    expect(await (await call('GET', `${path}/vars/big/format`, { token: u.token })).text()).toBe('');
    expect((await w('64d')).status).toBe(204);
    expect((await w('.20f')).status).toBe(204);
    // A format stored before the rule (written straight into D1) still prints at most 64 characters.
    await env.DB.prepare(
      `UPDATE entries SET value = '150000000d', size = 10 WHERE path = 'vars/big/format'
       AND resource_id = (SELECT r.id FROM resources r JOIN users u ON u.id = r.owner_id WHERE u.username = ? AND r.name = ? AND r.kind = 'doc')`,
    )
      .bind(u.username, name)
      .run();
    expect(await (await call('GET', `${path}/vars/big/format`, { token: u.token })).text()).toBe('150000000d');
    const txt = await call('GET', `/v1/u/${u.username}/d/${name}/v/big/txt`, { token: u.token });
    expect(txt.status).toBe(200);
    const text = await txt.text();
    expect(text.length).toBe(64);
    expect(text.trim()).toBe('7');
  });
  it('the alias serves variables as JSON, formatted text and ansi', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u);
    await call('PUT', `${path}/vars/growth`, { token: u.token });
    await call('POST', `${path}/vars/growth/type`, { token: u.token, text: 'relative' });
    await call('POST', `${path}/vars/growth/value`, { token: u.token, text: '-0.042' });
    await call('POST', `${path}/vars/growth/format`, { token: u.token, text: '+.1%' });
    await call('PUT', `${path}/vars/total`, { token: u.token });
    await call('POST', `${path}/vars/total/value`, { token: u.token, text: '1234567.5' });
    await call('POST', `${path}/vars/total/format`, { token: u.token, text: ',.2f' });
    const base = `/v1/u/${u.username}/d/${name}/v`;
    const list = (await (await call('GET', base, { token: u.token })).json()) as { name: string; text: string }[];
    expect(list.map((v) => [v.name, v.text])).toEqual([
      ['growth', '↓ \u22124.2%'],
      ['total', '1,234,567.50'],
    ]);
    expect(await (await call('GET', `${base}/growth`, { token: u.token })).json()).toEqual({
      name: 'growth',
      value: '-0.042',
      type: 'relative',
      format: '+.1%',
      about: '',
      threshold: '',
      text: '↓ \u22124.2%',
      band: 'down',
      color: '#cf222e',
    });
    expect(await (await call('GET', `${base}/growth/txt`, { token: u.token })).text()).toBe('↓ \u22124.2%');
    expect(await (await call('GET', `${base}/growth/ansi`, { token: u.token })).text()).toBe('\u001b[31m↓ \u22124.2%\u001b[0m');
    expect(await (await call('GET', `${base}/total/txt`, { token: u.token })).text()).toBe('1,234,567.50');
    expect((await call('GET', `${base}/nosuch`, { token: u.token })).status).toBe(404);
    expect((await call('GET', `${base}/growth`)).status).toBe(404);
  });
  it('DELETE vars/<var> removes the variable (then 404)', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    await call('PUT', `${path}/vars/a_b`, { token: u.token });
    await call('PUT', `${path}/vars/axb`, { token: u.token });
    expect((await call('DELETE', `${path}/vars/a_b`, { token: u.token })).status).toBe(204);
    expect((await call('GET', `${path}/vars/a_b`, { token: u.token })).status).toBe(404);
    expect((await call('DELETE', `${path}/vars/a_b`, { token: u.token })).status).toBe(404);
    expect(await names(await call('GET', `${path}/vars`, { token: u.token }))).toEqual(['axb']);
  });
});

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
    const items = (await (await call('GET', theirs, { token: member.token })).json()) as { name: string; actions: string[] }[];
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
    const g = await makeGroup(owner, [{ user: member }, { user: pending, state: 'pending' }, { user: declined, state: 'declined' }]);
    const { name, path } = await newDoc(owner, 'for the team');
    expect((await call('PUT', `${path}/shared/${g.ref}`, { token: owner.token })).status).toBe(201);
    expect((await call('PUT', `${path}/shared/${g.ref}`, { token: owner.token })).status).toBe(409);
    expect(await names(await call('GET', `${path}/shared`, { token: owner.token }))).toEqual([g.ref]);
    const theirs = `/v1/users/${owner.username}/vis/docs/${name}`;
    expect(await text(await call('GET', `${theirs}/content`, { token: member.token }))).toEqual({ status: 200, body: 'for the team' });
    const folder = await call('GET', theirs, { token: member.token });
    expect(folder.headers.get('X-NVM-Permissions')).toBe('r');
    expect(await names(folder)).toContain('vars');
    expect(await names(await call('GET', `/v1/users/${owner.username}/vis/docs`, { token: member.token }))).toEqual([name]);
    expect((await call('POST', `${theirs}/content`, { token: member.token, text: 'x' })).status).toBe(403);
    expect((await call('DELETE', theirs, { token: member.token })).status).toBe(403);
    expect((await call('PUT', `${theirs}/shared/public`, { token: member.token })).status).toBe(403);
    for (const who of [pending, declined, stranger]) {
      expect((await call('GET', `${theirs}/content`, { token: who.token })).status).toBe(404);
      expect(await (await call('GET', `/v1/users/${owner.username}/vis/docs`, { token: who.token })).json()).toEqual([]);
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
    const listed = (await (await call('GET', `/v1/users/${owner.username}/vis/docs`, { token: member.token })).json()) as { name: string; permissions: string[] }[];
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

describe('tags, threads and notifications (per user)', () => {
  it('tags: PUT adds, DELETE removes, each caller sees their own', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await call('PUT', `${path}/tags/fav`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${path}/tags/+mine`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${path}/tags/star`, { token: u.token })).status).toBe(400);
    expect(await names(await call('GET', `${path}/tags`, { token: u.token }))).toEqual(['+mine', 'fav']);
    expect((await call('DELETE', `${path}/tags/fav`, { token: u.token })).status).toBe(204);
    expect(await names(await call('GET', `${path}/tags`, { token: u.token }))).toEqual(['+mine']);
  });
  it('threads: listed; opening one needs config/comments true (403 otherwise)', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect(await (await call('GET', `${path}/threads`, { token: u.token })).json()).toEqual([]);
    expect((await call('PUT', `${path}/threads/intro`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${path}/threads/intro`, { token: u.token })).status).toBe(409);
    expect(await names(await call('GET', `${path}/threads`, { token: u.token }))).toEqual(['intro']);
    await call('POST', `${path}/config/comments`, { token: u.token, text: 'false' });
    const off = await call('PUT', `${path}/threads/other`, { token: u.token });
    expect(off.status).toBe(403);
    expect(((await off.json()) as { message: string }).message).toMatch(/config\/comments/);
  });
  it('concurrent notification writes by one caller leave one level', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const levels = ['ignore', 'important', 'info', 'important', 'ignore', 'info'];
    const codes = (await Promise.all(levels.map((l) => call('POST', `${path}/notifications`, { token: u.token, text: l })))).map((r) => r.status);
    expect(codes.every((c) => c === 204)).toBe(true);
    expect(levels).toContain(await (await call('GET', `${path}/notifications`, { token: u.token })).text());
  });
  it("notifications: info by default, POST sets the caller's level, others 400 and keep it, DELETE resets", async () => {
    const shared = await sharedDoc();
    const { owner, member, path } = shared;
    const theirs = `${shared.theirs}/notifications`;
    expect(await text(await call('GET', `${path}/notifications`, { token: owner.token }))).toEqual({ status: 200, body: 'info' });
    for (const level of ['ignore', 'important', 'info', 'important']) expect((await call('POST', `${path}/notifications`, { token: owner.token, text: level })).status).toBe(204);
    expect((await call('POST', `${path}/notifications`, { token: owner.token, text: 'loud' })).status).toBe(400);
    expect(await (await call('GET', `${path}/notifications`, { token: owner.token })).text()).toBe('important');
    // per user: a reader has their own level, and it is not part of the document
    expect(await (await call('GET', theirs, { token: member.token })).text()).toBe('info');
    expect((await call('POST', theirs, { token: member.token, text: 'ignore' })).status).toBe(204);
    expect(await (await call('GET', theirs, { token: member.token })).text()).toBe('ignore');
    expect(await (await call('GET', `${path}/notifications`, { token: owner.token })).text()).toBe('important');
    expect((await call('DELETE', `${path}/notifications`, { token: owner.token })).status).toBe(204);
    expect(await (await call('GET', `${path}/notifications`, { token: owner.token })).text()).toBe('info');
  });
});

describe('files and the read-only alias', () => {
  it('files/ lists doc.pdf, doc.pptx, doc.png, doc.txt, doc.ansi; png, txt and ansi answer 404', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect(await names(await call('GET', `${path}/files`, { token: u.token }))).toEqual(['doc.ansi', 'doc.pdf', 'doc.png', 'doc.pptx', 'doc.txt']);
    for (const f of ['doc.png', 'doc.txt', 'doc.ansi']) {
      const res = await call('GET', `${path}/files/${f}`, { token: u.token });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ status: 404, message: expect.stringContaining(f) });
    }
  });
  it('/v1/u/:user/d lists the documents visible to the caller: all to the owner, public ones to anyone', async () => {
    const u = await makeUser({ profile_public: true });
    const member = await makeUser();
    const g = await makeGroup(u, [{ user: member }]);
    const pub = await newDoc(u);
    const priv = await newDoc(u);
    const team = await newDoc(u);
    await call('PUT', `${pub.path}/shared/public`, { token: u.token });
    await call('PUT', `${team.path}/shared/${g.ref}`, { token: u.token });
    const list = async (token?: string) => (await names(await call('GET', `/v1/u/${u.username}/d`, { token }))).sort();
    expect(await list(u.token)).toEqual([pub.name, priv.name, team.name].sort());
    expect(await list()).toEqual([pub.name]);
    expect(await list(member.token)).toEqual([pub.name, team.name].sort());
    expect((await call('GET', '/v1/u/nosuchuserzz/d')).status).toBe(404);
  });
  it('/v1/u/:user/d/:doc answers the info envelope; public needs no token, private is 404 to others', async () => {
    const u = await makeUser({ profile_public: true });
    const stranger = await makeUser();
    const { name, path } = await newDoc(u, 'x');
    await call('POST', `${path}/name`, { token: u.token, text: 'Quarterly report' });
    await call('POST', `${path}/summary`, { token: u.token, text: 'Q1' });
    await call('POST', `${path}/config/type`, { token: u.token, text: 'pres' });
    const alias = `/v1/u/${u.username}/d/${name}`;
    expect((await call('GET', alias)).status).toBe(404);
    expect((await call('GET', alias, { token: stranger.token })).status).toBe(404);
    const own = (await (await call('GET', alias, { token: u.token })).json()) as Record<string, string>;
    expect(own).toEqual({
      name: 'Quarterly report',
      doc: name,
      description: '',
      summary: 'Q1',
      shortname: await (await call('GET', `${path}/shortname`, { token: u.token })).text(),
      url: await (await call('GET', `${path}/url`, { token: u.token })).text(),
      type: 'pres',
      theme: 'default',
      owner: u.username,
      created_on: expect.any(String),
      last_modified: expect.any(String),
    });
    await call('PUT', `${path}/shared/public`, { token: u.token });
    expect((await call('GET', alias)).status).toBe(200);
  });
  it('the info envelope names the theme the document renders with (front matter, then config/theme)', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u, 'th');
    const theme = async () => ((await (await call('GET', `/v1/u/${u.username}/d/${name}`, { token: u.token })).json()) as { theme: string }).theme;
    await call('POST', `${path}/content`, { token: u.token, text: '---\ntheme: paper\n---\n# Hi' });
    expect(await theme()).toBe('paper');
    await call('POST', `${path}/config/theme`, { token: u.token, text: 'dark' });
    expect(await theme()).toBe('dark');
  });
  it('the alias img, txt and ansi renders answer 404 for documents', async () => {
    const u = await makeUser({ profile_public: true });
    const { name, path } = await newDoc(u, 'x');
    await call('PUT', `${path}/shared/public`, { token: u.token });
    for (const r of ['img', 'txt', 'ansi']) {
      const res = await call('GET', `/v1/u/${u.username}/d/${name}/${r}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toContain(r);
    }
  });
  it('the alias is read-only (405 for writes)', async () => {
    const u = await makeUser();
    const { name } = await newDoc(u);
    expect((await call('POST', `/v1/u/${u.username}/d/${name}`, { token: u.token, text: 'x' })).status).toBe(405);
  });
});
