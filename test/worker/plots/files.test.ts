/**
 * A plot's drawings through the Worker: every type drawn as SVG, PNG, text and ANSI from the
 * same pandas CSV; the SVG's accessible parts; the text width; bad CSV, oversize data and
 * unknown types answered 4xx; the ETag and the end of a cached drawing on a write; a
 * stranger gets 404 on a private plot and its files, anyone the files of a public one.
 */
import { describe, expect, it, vi } from 'vitest';
import { PLOT_TYPES } from '../../../src/plots/model';
import { call, makeUser, unique, type TestUser } from '../helpers';
import { PANDAS_CSV, SALES } from './fixtures';

vi.setConfig({ testTimeout: 120_000 });

async function plot(u: TestUser, type: string, data = SALES, entries: Record<string, string> = {}): Promise<string> {
  const path = `/v1/vis/plots/${unique('p')}`;
  expect((await call('PUT', path, { token: u.token })).status).toBe(201);
  expect((await call('POST', `${path}/data`, { token: u.token, text: data })).status).toBe(204);
  expect((await call('POST', `${path}/config/type`, { token: u.token, text: type })).status).toBe(204);
  for (const [k, v] of Object.entries(entries))
    expect((await call('POST', `${path}/${k}`, { token: u.token, text: v })).status, k).toBe(204);
  return path;
}

/** The first bytes of a PNG. */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe('every type draws as SVG, text and ANSI from the same CSV', () => {
  for (const type of PLOT_TYPES) {
    it(`${type}: an SVG with title, desc and the data as a table; text within its width; ANSI in colour`, async () => {
      const u = await makeUser();
      const path = await plot(u, type, SALES, { 'config/title': `Sales <${type}> & co` });
      const svg = await call('GET', `${path}/files/plot.svg`, { token: u.token });
      expect(svg.status).toBe(200);
      expect(svg.headers.get('Content-Type')).toBe('image/svg+xml');
      expect(svg.headers.get('X-Content-Type-Options')).toBe('nosniff');
      const text = await svg.text();
      expect(text).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(text).toContain(`<title`);
      expect(text).toContain(`Sales &lt;${type}&gt; &amp; co`);
      expect(text).toContain('<desc');
      expect(text).toContain('role="table"');
      expect(text).toMatch(/prefers-color-scheme: ?dark/);
      expect(text).not.toMatch(/<script/i);
      for (const v of ['north', 'Q3', '14']) expect(text).toContain(v);

      const txt = await (await call('GET', `${path}/files/plot.txt?width=60`, { token: u.token })).text();
      expect(txt).not.toContain('\u001b[');
      expect(txt.trim().length).toBeGreaterThan(0);
      for (const line of txt.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(60);
      const ansi = await (await call('GET', `${path}/files/plot.ansi`, { token: u.token })).text();
      expect(ansi).toContain('\u001b[');
      // oxlint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
      const plain = ansi.replace(/\u001b\[[0-9;]*m/g, '');
      for (const line of plain.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    });
  }

  it('PNG: the SVG drawn by the browser, cached by what it shows', async () => {
    const u = await makeUser();
    const path = await plot(u, 'line', PANDAS_CSV);
    const png = await call('GET', `${path}/files/plot.png`, { token: u.token });
    expect(png.status).toBe(200);
    expect(png.headers.get('Content-Type')).toBe('image/png');
    expect(png.headers.get('X-Render-Cache')).toBe('miss');
    const bytes = new Uint8Array(await png.arrayBuffer());
    expect(Array.from(bytes.slice(0, 8))).toEqual(PNG_SIGNATURE);
    // twice the default 800 x 450
    const view = new DataView(bytes.buffer);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([1600, 900]);
    const again = await call('GET', `${path}/files/plot.png`, { token: u.token });
    expect(again.headers.get('X-Render-Cache')).toBe('hit');
    await again.arrayBuffer();
  });
});

describe('what a request asks and what the data holds is checked', () => {
  it('bad CSV is a 400 naming the line; data over 2 MiB is a 413; nothing is stored', async () => {
    const u = await makeUser();
    const path = await plot(u, 'bar');
    const ragged = await call('POST', `${path}/data`, { token: u.token, text: ',a,b\n0,1,2\n1,3\n' });
    expect(ragged.status).toBe(400);
    expect(((await ragged.json()) as { message: string }).message).toMatch(/line 3/);
    const open = await call('POST', `${path}/data`, { token: u.token, text: ',a\n0,"unterminated\n' });
    expect(open.status).toBe(400);
    expect(((await open.json()) as { message: string }).message).toMatch(/line 2/);
    const big = await call('POST', `${path}/data`, { token: u.token, text: `,a\n${'0,1\n'.repeat(600_000)}` });
    expect(big.status).toBe(413);
    expect(await (await call('GET', `${path}/data`, { token: u.token })).text()).toBe(SALES);
  });

  it('a text width or an SVG size out of range is a 400', async () => {
    const u = await makeUser();
    const path = await plot(u, 'bar');
    for (const q of ['plot.txt?width=5', 'plot.ansi?width=x', 'plot.svg?width=99999', 'plot.svg?height=-1'])
      expect((await call('GET', `${path}/files/${q}`, { token: u.token })).status, q).toBe(400);
    const small = await (await call('GET', `${path}/files/plot.svg?width=300&height=200`, { token: u.token })).text();
    expect(small).toMatch(/viewBox="0 0 300 200"/);
  });
});

describe('drawings follow the plot: ETag, and a write ends the cached drawing', () => {
  it('the same plot answers 304 to its ETag; a write to the data or the config changes it', async () => {
    const u = await makeUser();
    const path = await plot(u, 'bar');
    const first = await call('GET', `${path}/files/plot.svg`, { token: u.token });
    const etag = first.headers.get('ETag')!;
    const before = await first.text();
    const same = await call('GET', `${path}/files/plot.svg`, { token: u.token, headers: { 'If-None-Match': etag } });
    expect(same.status).toBe(304);
    await call('POST', `${path}/data`, { token: u.token, text: SALES.replace('18', '81') });
    const after = await call('GET', `${path}/files/plot.svg`, { token: u.token, headers: { 'If-None-Match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('ETag')).not.toBe(etag);
    expect(await after.text()).not.toBe(before);
    await call('POST', `${path}/config/title`, { token: u.token, text: 'Renamed' });
    expect(await (await call('GET', `${path}/files/plot.svg`, { token: u.token })).text()).toContain('Renamed');
  });
  it("drawings are keyed by the data's digest, kept with each write: cleared data, a copy, nothing listed or served", async () => {
    const u = await makeUser();
    const path = await plot(u, 'bar');
    const etag = async (p: string) =>
      (await call('GET', `${p}/files/plot.svg`, { token: u.token })).headers.get('ETag');
    const drawn = await etag(path);
    // a copy carries the digest with the data: the same drawing
    const copy = unique('p');
    expect((await call('PATCH', path, { token: u.token, json: { name: copy, copy: true } })).status).toBe(201);
    const copied = await call('GET', `/v1/vis/plots/${copy}/files/plot.svg`, { token: u.token });
    expect(await copied.text()).toContain('north');
    // cleared data draws as no data, under another ETag; written again, the first ETag comes back
    expect((await call('DELETE', `${path}/data`, { token: u.token })).status).toBe(204);
    const cleared = await call('GET', `${path}/files/plot.svg`, { token: u.token });
    expect(cleared.headers.get('ETag')).not.toBe(drawn);
    expect(await cleared.text()).not.toContain('north');
    expect((await call('POST', `${path}/data`, { token: u.token, text: SALES })).status).toBe(204);
    expect(await etag(path)).toBe(drawn);
    // the digest is the platform's own: not listed, not served
    const listed = (await (await call('GET', `${path}/files`, { token: u.token })).json()) as { name: string }[];
    expect(listed.map((f) => f.name).sort()).toEqual(['plot.ansi', 'plot.png', 'plot.svg', 'plot.txt']);
    const root = (await (await call('GET', path, { token: u.token })).json()) as { name: string }[];
    expect(root.map((f) => f.name)).not.toContain('data.sha256');
    expect((await call('GET', `${path}/files/data.sha256`, { token: u.token })).status).toBe(404);
    expect((await call('POST', `${path}/files/data.sha256`, { token: u.token, text: 'x' })).status).toBe(404);
  });
});

describe('who may see a plot', () => {
  it('a stranger gets 404 on a private plot, its files and its page; anyone reads a public one', async () => {
    const [u, stranger] = [await makeUser({ profile_public: true }), await makeUser()];
    const path = await plot(u, 'line');
    const name = path.split('/').pop()!;
    const theirs = `/v1/users/${u.username}/vis/plots/${name}`;
    for (const p of [theirs, `${theirs}/data`, `${theirs}/files/plot.svg`, `${theirs}/files/plot.txt`])
      expect((await call('GET', p, { token: stranger.token })).status, p).toBe(404);
    // Anonymous callers: the drawings (open to them once public) are 404; the rest asks for a token.
    for (const p of [`${theirs}/files/plot.svg`, `${theirs}/files/plot.png`, `${theirs}/files/plot.ansi`])
      expect((await call('GET', p)).status, p).toBe(404);
    expect((await call('GET', `${theirs}/data`)).status).toBe(401);
    expect((await call('GET', `/u/${u.username}/p/${name}`, { token: stranger.token })).status).toBe(404);
    expect((await call('PUT', `${path}/shared/public`, { token: u.token })).status).toBe(201);
    expect((await call('GET', `${theirs}/files/plot.svg`)).status).toBe(200);
    const page = await call('GET', `/u/${u.username}/p/${name}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<svg');
    expect(page.headers.get('Content-Security-Policy')).toMatch(/style-src 'sha256-/);
    expect(html).not.toMatch(/<svg[^>]*>[\s\S]*<style>/); // the drawing's style lives in the page's one style element
  });
});
