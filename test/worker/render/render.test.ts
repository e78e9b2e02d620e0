/**
 * Rendering through the real Worker: the canonical page, its access rules and policy,
 * PDF and PPTX through the BROWSER binding (local Chromium), the R2 cache and the log.
 */
import { env, exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { unzipSync, strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { dbFor } from '../../../src/core/context';
import { HttpError } from '../../../src/core/errors';
import { loadResource, type ResourceCtx } from '../../../src/core/resource';
import { users } from '../../../src/db/schema';
import { docKind } from '../../../src/docs/kind';
import { closeReleasedSessions } from '../../../src/render/browser';
import {
  cachedOutput,
  outputHash,
  MAX_RENDER_PAGES,
  type OutputName,
  type RenderLimits,
} from '../../../src/render/output-cache';
import { pdfPageCount } from '../../../src/render/pdf';
import { documentPages } from '../../../src/render/source';
import { call, makeUser, unique, type TestUser } from '../helpers';

/** A 1x1 PNG. */
const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);
/** A 1x1 red PNG. */
const PNG_RED = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'),
  (c) => c.charCodeAt(0),
);

async function makeDoc(
  u: TestUser,
  name: string,
  content: string,
  config: Record<string, string> = {},
): Promise<string> {
  const path = `/v1/vis/docs/${name}`;
  expect((await call('PUT', path, { token: u.token })).status).toBe(201);
  expect((await call('POST', `${path}/content`, { token: u.token, text: content })).status).toBe(204);
  for (const [k, v] of Object.entries(config))
    expect((await call('POST', `${path}/${k}`, { token: u.token, text: v })).status).toBe(204);
  return path;
}

const tenPages = Array.from({ length: 10 }, (_, i) => `# Page ${i + 1}\n\nText of page ${i + 1}.`).join(
  '\n\n{{ page }}\n\n',
);

/** The resource context of a request for `doc` by `u`, with parts of the environment replaced. */
async function rcFor(u: TestUser, doc: string, over: Partial<Record<keyof Env, unknown>> = {}): Promise<ResourceCtx> {
  const db = dbFor(env);
  const caller = (await db.select().from(users).where(eq(users.username, u.username)).get())!;
  const req = new Request(`http://platform.test/v1/vis/docs/${doc}/files/doc.pdf`, {
    headers: { Authorization: `Bearer ${u.token}` },
  });
  const exec = { waitUntil: () => {}, passThroughOnException: () => {} } as unknown as ExecutionContext;
  return loadResource(
    { req, env: { ...env, ...over } as Env, exec, url: new URL(req.url), params: { doc }, caller, db },
    docKind,
  );
}

/** Renders (or reads from the cache) one output of the document as `rc` sees it. */
async function outputOf(rc: ResourceCtx, name: OutputName, limits?: Partial<RenderLimits>): Promise<Uint8Array> {
  // As the route does: keyed by the page in `key` mode, rendered from the inline page on a miss.
  const pages = await documentPages(rc);
  const out = await cachedOutput(rc, name, () => pages('inline'), await outputHash(name, await pages('key')), limits);
  return out.bytes instanceof Uint8Array ? out.bytes : new Uint8Array(await new Response(out.bytes).arrayBuffer());
}

async function logOf(u: TestUser, doc: string): Promise<{ severity: string; message: string }[]> {
  return (await (
    await call('GET', `/v1/vis/docs/${doc}/log`, { token: u.token, headers: { Accept: 'application/json' } })
  ).json()) as { severity: string; message: string }[];
}

/** Slide XML files of a deck, in slide order, and the plain text of each slide's notes. */
function deckOf(bytes: Uint8Array): { slides: string[]; notes: string[]; zip: Record<string, Uint8Array> } {
  const zip = unzipSync(bytes);
  const num = (k: string) => Number(/(\d+)\.xml$/.exec(k)![1]);
  const sorted = (re: RegExp) =>
    Object.keys(zip)
      .filter((k) => re.test(k))
      .sort((a, b) => num(a) - num(b));
  const slides = sorted(/^ppt\/slides\/slide\d+\.xml$/);
  const notes = sorted(/^ppt\/notesSlides\/notesSlide\d+\.xml$/).map((k) =>
    strFromU8(zip[k]!).replace(/<[^>]+>/g, ' '),
  );
  return { slides, notes, zip };
}

/** A document with no page markers that runs over several A4 sheets. */
const longDoc = Array.from(
  { length: 70 },
  (_, i) => `Paragraph ${i + 1}: ${'words that fill the line '.repeat(6)}end of ${i + 1}.`,
).join('\n\n');

async function bytesOf(res: Response): Promise<Uint8Array> {
  return new Uint8Array(await res.arrayBuffer());
}

describe('canonical page /u/:user/d/:doc', () => {
  it('serves the rendered document as HTML to the owner, with a strict CSP and no script', async () => {
    const u = await makeUser();
    await makeDoc(
      u,
      'page1',
      '---\ntitle: Quarterly\n---\n# Intro\n\nHello **world**\n\n<script>alert(1)</script>\n\n<img src="x.png" onerror="alert(2)">\n\n[bad](javascript:alert(3))',
    );
    const res = await call('GET', `/u/${u.username}/d/page1`, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('Content-Security-Policy')!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    const html = await res.text();
    expect(html).toContain('<strong>world</strong>');
    expect(html).toContain('<title>Quarterly</title>');
    expect(html).not.toMatch(/<script|onerror|javascript:/i);
  });

  it('a private document answers 404 to anonymous callers and to other users', async () => {
    const u = await makeUser();
    const other = await makeUser();
    await makeDoc(u, 'secret', 'hidden');
    expect((await call('GET', `/u/${u.username}/d/secret`)).status).toBe(404);
    expect((await call('GET', `/u/${u.username}/d/secret`, { token: other.token })).status).toBe(404);
    expect((await call('GET', `/u/${u.username}/d/missing`, { token: u.token })).status).toBe(404);
    expect((await call('GET', `/u/nobody_${u.username}/d/secret`)).status).toBe(404);
  });

  it('a public document needs no token', async () => {
    const u = await makeUser({ profile_public: true });
    const path = await makeDoc(u, 'open', 'public words');
    expect((await call('PUT', `${path}/shared/public`, { token: u.token })).status).toBe(201);
    const res = await call('GET', `/u/${u.username}/d/open`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('public words');
  });

  it('a group share lets accepted members read the page; pending members get 404', async () => {
    const u = await makeUser();
    const member = await makeUser();
    const pending = await makeUser();
    const path = await makeDoc(u, 'team', 'team words');
    const group = unique('g').slice(0, 30);
    const ref = `@${u.username}~${group}`;
    expect((await call('PUT', `/v1/admin/groups/${group}`, { token: u.token })).status).toBe(201);
    for (const m of [member, pending])
      expect(
        (await call('PUT', `/v1/admin/groups/${group}/roles/members/${m.username}`, { token: u.token })).status,
      ).toBeLessThan(300);
    expect(
      (await call('POST', `/v1/admin/invites/${ref}/accept`, { token: member.token, text: 'yes' })).status,
    ).toBeLessThan(300);
    expect((await call('PUT', `${path}/shared/${ref}`, { token: u.token })).status).toBe(201);
    expect((await call('GET', `/u/${u.username}/d/team`, { token: member.token })).status).toBe(200);
    expect((await call('GET', `/u/${u.username}/d/team`, { token: pending.token })).status).toBe(404);
  });

  it('variables render as formatted values with their band colour; references in code stay literal', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'vars1', '');
    expect((await call('PUT', `${path}/vars/growth`, { token: u.token })).status).toBe(201);
    for (const [attr, v] of [
      ['value', '0.125'],
      ['type', 'relative'],
      ['format', '+.1%'],
      ['about', 'Growth'],
    ]) {
      expect((await call('POST', `${path}/vars/growth/${attr}`, { token: u.token, text: v })).status).toBe(204);
    }
    const ref = `{/u/${u.username}/d/vars1/v/growth}`;
    await call('POST', `${path}/content`, { token: u.token, text: `Growth: ${ref}\n\n\`${ref}\`` });
    const html = await (await call('GET', `/u/${u.username}/d/vars1`, { token: u.token })).text();
    expect(html).toMatch(/<span class="var var-up var-c0" title="Growth">↑ \+12\.5%<\/span>/);
    expect(html).toMatch(/\.var-c0\{color:#[0-9a-f]{6}\}/);
    expect(html).toContain(`<code>${ref}</code>`);
  });

  it("another document's variable resolves only when the owner may read that document", async () => {
    const u = await makeUser();
    const stranger = await makeUser();
    const own = await makeDoc(u, 'source', '');
    await call('PUT', `${own}/vars/n`, { token: u.token });
    await call('POST', `${own}/vars/n/value`, { token: u.token, text: '1234.5' });
    await call('POST', `${own}/vars/n/format`, { token: u.token, text: ',.1f' });
    const theirs = await makeDoc(stranger, 'theirs', '');
    await call('PUT', `${theirs}/vars/n`, { token: stranger.token });
    await call('POST', `${theirs}/vars/n/value`, { token: stranger.token, text: '99' });
    await makeDoc(u, 'reader', `{/u/${u.username}/d/source/v/n} / {/u/${stranger.username}/d/theirs/v/n}`);
    const html = await (await call('GET', `/u/${u.username}/d/reader`, { token: u.token })).text();
    expect(html).toContain('>1,234.5</span>');
    expect(html).toContain(`<span class="var var-missing">{/u/${stranger.username}/d/theirs/v/n}</span>`);
  });

  it('theme, custom CSS and type apply: config/theme, then the front matter theme, then the default', async () => {
    const u = await makeUser();
    await makeDoc(u, 'themed', '---\ntheme: paper\n---\n# T', {
      'config/theme': 'dark',
      'config/type': 'pres',
      'config/custom/custom.css': 'h1{letter-spacing:2px}</style><script>x()</script>',
    });
    const html = await (await call('GET', `/u/${u.username}/d/themed`, { token: u.token })).text();
    expect(html).toContain('class="type-pres theme-dark"');
    expect(html).toContain('--bg:#0d1117');
    expect(html).toContain('h1{letter-spacing:2px}');
    expect(html).not.toMatch(/<\/style><script/i);
    await makeDoc(u, 'fm', '---\ntheme: paper\n---\n# T');
    expect(await (await call('GET', `/u/${u.username}/d/fm`, { token: u.token })).text()).toContain('theme-paper');
  });

  it('a public document links its assets at the document asset url', async () => {
    const u = await makeUser({ profile_public: true });
    const path = await makeDoc(u, 'withasset', '![logo](assets/logo.png)');
    expect(
      (await call('POST', `${path}/assets/logo.png`, { token: u.token, body: PNG, type: 'image/png' })).status,
    ).toBe(201);
    expect((await call('PUT', `${path}/shared/public`, { token: u.token })).status).toBe(201);
    const html = await (await call('GET', `/u/${u.username}/d/withasset`)).text();
    expect(html).toContain(`src="/v1/users/${u.username}/vis/docs/withasset/assets/logo.png"`);
    expect((await call('GET', `/v1/users/${u.username}/vis/docs/withasset/assets/logo.png`)).status).toBe(200);
  });

  it('a private document embeds its assets in the page (the browser has no token to fetch them)', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'privasset', '![logo](assets/logo.png)', {
      'config/custom/custom.css': 'body{background-image:url(assets/logo.png)}',
    });
    expect(
      (await call('POST', `${path}/assets/logo.png`, { token: u.token, body: PNG, type: 'image/png' })).status,
    ).toBe(201);
    const res = await call('GET', `/u/${u.username}/d/privasset`, { token: u.token });
    const html = await res.text();
    const data = `data:image/png;base64,${btoa(String.fromCharCode(...PNG))}`;
    expect(html).toContain(`src="${data}"`);
    expect(html).toContain(`url("${data}")`);
    expect(html).not.toContain('/assets/logo.png');
    // Replacing the asset changes the page and its ETag.
    await call('POST', `${path}/assets/logo.png`, { token: u.token, body: PNG_RED, type: 'image/png' });
    const again = await call('GET', `/u/${u.username}/d/privasset`, {
      token: u.token,
      headers: { 'If-None-Match': res.headers.get('ETag')! },
    });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain(btoa(String.fromCharCode(...PNG_RED)));
  });

  it('the page policy loads no remote images (img-src has no https:)', async () => {
    const u = await makeUser();
    await makeDoc(u, 'remote', '![x](https://example.com/x.png)');
    const csp = (await call('GET', `/u/${u.username}/d/remote`, { token: u.token })).headers.get(
      'Content-Security-Policy',
    )!;
    expect(csp).toMatch(/img-src 'self' data:;/);
    expect(csp).not.toContain('https:');
  });

  it('answers 304 to a matching If-None-Match and re-renders after a change', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'etag', 'one');
    const first = await call('GET', `/u/${u.username}/d/etag`, { token: u.token });
    const etag = first.headers.get('ETag')!;
    expect(
      (await call('GET', `/u/${u.username}/d/etag`, { token: u.token, headers: { 'If-None-Match': etag } })).status,
    ).toBe(304);
    await call('POST', `${path}/content`, { token: u.token, text: 'two' });
    const after = await call('GET', `/u/${u.username}/d/etag`, { token: u.token, headers: { 'If-None-Match': etag } });
    expect(after.status).toBe(200);
    expect(await after.text()).toContain('two');
  });
});

describe('short url /s/:shortname', () => {
  it('redirects to the canonical page with the same access rules', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'shorty', 'x');
    const short = await (await call('GET', `${path}/shortname`, { token: u.token })).text();
    const res = await (exports as unknown as { default: Fetcher }).default.fetch(
      new Request(`http://platform.test/s/${short}`, {
        headers: { Authorization: `Bearer ${u.token}` },
        redirect: 'manual',
      }),
    );
    expect(res.status).toBe(302);
    expect(res.headers.get('Location')).toBe(`/u/${u.username}/d/shorty`);
    expect((await call('GET', `/s/${short}`)).status).toBe(404);
    expect((await call('GET', '/s/nosuchshortname')).status).toBe(404);
  });
});

describe('PDF through Browser Rendering', () => {
  it('files/doc.pdf is a PDF with one A4 page per page of a doc', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'pdf10', tenPages);
    const res = await call('GET', `${path}/files/doc.pdf`, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/pdf');
    expect(res.headers.get('X-Render-Cache')).toBe('miss');
    const pdf = await bytesOf(res);
    expect(strFromU8(pdf.subarray(0, 5))).toBe('%PDF-');
    expect(pdfPageCount(pdf)).toBe(10);
    const box = /\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(strFromU8(pdf, true))!;
    expect(Number(box[1])).toBeCloseTo(595.28, 0);
    expect(Number(box[2])).toBeCloseTo(841.89, 0);
  });

  it('a cached render is served from R2 byte for byte; a change renders again and drops the old output', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'cached', 'first');
    const a = await call('GET', `${path}/files/doc.pdf`, { token: u.token });
    const first = await bytesOf(a);
    const b = await call('GET', `${path}/files/doc.pdf`, { token: u.token });
    expect(b.headers.get('X-Render-Cache')).toBe('hit');
    expect(await bytesOf(b)).toEqual(first);
    expect(b.headers.get('ETag')).toBe(a.headers.get('ETag'));
    expect(
      (
        await call('GET', `${path}/files/doc.pdf`, {
          token: u.token,
          headers: { 'If-None-Match': a.headers.get('ETag')! },
        })
      ).status,
    ).toBe(304);

    await call('POST', `${path}/config/theme`, { token: u.token, text: 'dark' });
    const c = await call('GET', `${path}/files/doc.pdf`, { token: u.token });
    expect(c.headers.get('X-Render-Cache')).toBe('miss');
    expect(c.headers.get('ETag')).not.toBe(a.headers.get('ETag'));
    await c.arrayBuffer();
    const id = (await env.DB.prepare(
      "select id from resources where kind = 'doc' and name = 'cached' and owner_id = (select id from users where username = ?)",
    )
      .bind(u.username)
      .first<{ id: number }>())!.id;
    const stored = await env.BLOBS.list({ prefix: `r/${id}/render/doc.pdf/` });
    expect(stored.objects).toHaveLength(1);
  });

  it('the cache key names assets by version: a hit reads no asset bytes; replacing an asset renders again', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'assetkey', '![logo](assets/logo.png)');
    await call('POST', `${path}/assets/logo.png`, { token: u.token, body: PNG, type: 'image/png' });
    const first = await call('GET', `${path}/files/doc.pdf`, { token: u.token });
    await first.arrayBuffer();
    const rc = await rcFor(u, 'assetkey');
    // Take the asset's bytes away behind the platform's back: a hit must not need them.
    const assetKeys = (await env.BLOBS.list({ prefix: `r/${rc.resource.id}/assets/` })).objects.map((o) => o.key);
    expect(assetKeys).toHaveLength(1);
    const bytes = await (await env.BLOBS.get(assetKeys[0]!))!.arrayBuffer();
    await env.BLOBS.delete(assetKeys[0]!);
    const hit = await call('GET', `${path}/files/doc.pdf`, { token: u.token });
    expect(hit.headers.get('X-Render-Cache')).toBe('hit');
    expect(hit.headers.get('ETag')).toBe(first.headers.get('ETag'));
    await hit.arrayBuffer();
    await env.BLOBS.put(assetKeys[0]!, bytes);
    await call('POST', `${path}/assets/logo.png`, { token: u.token, body: PNG_RED, type: 'image/png' });
    const miss = await call('GET', `${path}/files/doc.pdf`, { token: u.token });
    expect(miss.headers.get('X-Render-Cache')).toBe('miss');
    await miss.arrayBuffer();
  });

  it('the log records each render', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'logged', 'x\n{{ page }}\ny');
    await (await call('GET', `${path}/files/doc.pdf`, { token: u.token })).arrayBuffer();
    await (await call('GET', `${path}/files/doc.pdf`, { token: u.token })).arrayBuffer();
    const log = await (await call('GET', `${path}/log`, { token: u.token })).text();
    expect(log.match(/rendered doc\.pdf: 2 pages, type doc, theme default/g)).toHaveLength(1);
  });

  it('concurrent requests for the same new output get the same bytes from one render', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'together', 'same');
    const all = await Promise.all(
      Array.from({ length: 4 }, () => call('GET', `${path}/files/doc.pdf`, { token: u.token })),
    );
    const bodies = await Promise.all(all.map(bytesOf));
    for (const r of all) expect(r.status).toBe(200);
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    const log = await (await call('GET', `${path}/log`, { token: u.token })).text();
    expect(log.match(/rendered doc\.pdf/g)).toHaveLength(1);
  });

  it('the alias /v1/u/:user/d/:doc/pdf has the document access rules: public without a token, private 404', async () => {
    const u = await makeUser({ profile_public: true });
    const path = await makeDoc(u, 'aliased', 'alias words');
    expect((await call('GET', `/v1/u/${u.username}/d/aliased/pdf`)).status).toBe(404);
    expect((await call('GET', `${path.replace('/v1/vis', `/v1/users/${u.username}/vis`)}/files/doc.pdf`)).status).toBe(
      404,
    );
    await call('PUT', `${path}/shared/public`, { token: u.token });
    const res = await call('GET', `/v1/u/${u.username}/d/aliased/pdf`);
    expect(res.status).toBe(200);
    expect(strFromU8((await bytesOf(res)).subarray(0, 5))).toBe('%PDF-');
    const viaOwnerPath = await call('GET', `/v1/users/${u.username}/vis/docs/aliased/files/doc.pdf`);
    expect(viaOwnerPath.status).toBe(200);
    await viaOwnerPath.arrayBuffer();
  });

  it('pres renders 16:9 pages', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'slides', '# One\n{{ page }}\n# Two\n{{ page }}\n# Three', { 'config/type': 'pres' });
    const pdf = await bytesOf(await call('GET', `${path}/files/doc.pdf`, { token: u.token }));
    expect(pdfPageCount(pdf)).toBe(3);
    const box = /\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(strFromU8(pdf, true))!;
    expect(Number(box[1]) / Number(box[2])).toBeCloseTo(16 / 9, 2);
  });

  it('blog renders one continuous page', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'blogpost', tenPages, { 'config/type': 'blog' });
    const pdf = await bytesOf(await call('GET', `${path}/files/doc.pdf`, { token: u.token }));
    expect(pdfPageCount(pdf)).toBe(1);
  });

  it('files/doc.png, doc.txt and doc.ansi answer 404; the files listing shows all five', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'listing', 'x');
    for (const f of ['doc.png', 'doc.txt', 'doc.ansi'])
      expect((await call('GET', `${path}/files/${f}`, { token: u.token })).status).toBe(404);
    for (const r of ['img', 'txt', 'ansi'])
      expect((await call('GET', `/v1/u/${u.username}/d/listing/${r}`, { token: u.token })).status).toBe(404);
    const names = ((await (await call('GET', `${path}/files`, { token: u.token })).json()) as { name: string }[]).map(
      (i) => i.name,
    );
    expect(names.sort()).toEqual(['doc.ansi', 'doc.pdf', 'doc.png', 'doc.pptx', 'doc.txt']);
  });
});

describe('PPTX', () => {
  it('files/doc.pptx is a zip with one slide per page, each with the page image and its text in the notes', async () => {
    const u = await makeUser();
    const path = await makeDoc(
      u,
      'deck',
      '# Alpha\n\nfirst slide\n{{ page }}\n# Beta\n\nsecond slide\n{{ page }}\n# Gamma',
      { 'config/type': 'pres' },
    );
    const res = await call('GET', `${path}/files/doc.pptx`, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe(
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    );
    const zip = unzipSync(await bytesOf(res));
    const slides = Object.keys(zip).filter((k) => /^ppt\/slides\/slide\d+\.xml$/.test(k));
    expect(slides).toHaveLength(3);
    const media = Object.keys(zip).filter((k) => k.startsWith('ppt/media/'));
    expect(media.length).toBeGreaterThanOrEqual(3);
    const notes = Object.keys(zip)
      .filter((k) => /^ppt\/notesSlides\/notesSlide\d+\.xml$/.test(k))
      .map((k) => strFromU8(zip[k]!));
    expect(notes.join(' ')).toContain('second slide');
    const alias = await call('GET', `/v1/u/${u.username}/d/deck/pptx`, { token: u.token });
    expect(alias.headers.get('X-Render-Cache')).toBe('hit');
    await alias.arrayBuffer();
  });
});

describe('pages and slides agree', () => {
  it('a doc page longer than one A4 sheet continues on new sheets: PDF pages = PPTX slides, each slide with its own text', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'longdoc', longDoc);
    const pdf = await bytesOf(await call('GET', `${path}/files/doc.pdf`, { token: u.token }));
    const pages = pdfPageCount(pdf);
    expect(pages).toBeGreaterThan(1);
    const deck = deckOf(await bytesOf(await call('GET', `${path}/files/doc.pptx`, { token: u.token })));
    expect(deck.slides).toHaveLength(pages);
    expect(deck.notes).toHaveLength(pages);
    expect(deck.notes[0]).toContain('Paragraph 1:');
    expect(deck.notes[0]).not.toContain('Paragraph 70:');
    expect(deck.notes.at(-1)).toContain('end of 70.');
    // Every paragraph is on exactly one slide, in order.
    const firstOn = deck.notes.map((n) => Number(/Paragraph (\d+):/.exec(n)![1]));
    expect(firstOn).toEqual([...firstOn].sort((a, b) => a - b));
    for (let i = 1; i <= 70; i++) expect(deck.notes.filter((n) => n.includes(`Paragraph ${i}:`))).toHaveLength(1);
  });

  it('a single block taller than a sheet is shrunk onto one sheet, not split or cut', async () => {
    const u = await makeUser();
    const code = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`).join('\n');
    const path = await makeDoc(u, 'tallblock', `Intro\n\n\`\`\`\n${code}\n\`\`\`\n\nAfter the code.`);
    const pdf = await bytesOf(await call('GET', `${path}/files/doc.pdf`, { token: u.token }));
    const deck = deckOf(await bytesOf(await call('GET', `${path}/files/doc.pptx`, { token: u.token })));
    expect(deck.slides).toHaveLength(pdfPageCount(pdf));
    expect(deck.notes.filter((n) => n.includes('line 120'))).toHaveLength(1);
    expect(deck.notes.join(' ')).toContain('After the code.');
  });

  it('the deck title is the page title (front matter title, else the name entry, else the document name)', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'titled', 'x', { name: 'Pretty Name' });
    const deck = deckOf(await bytesOf(await call('GET', `${path}/files/doc.pptx`, { token: u.token })));
    expect(strFromU8(deck.zip['docProps/core.xml']!)).toContain('<dc:title>Pretty Name</dc:title>');
  });

  it('custom CSS cannot change the page size of the type', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'letter', 'x', { 'config/custom/custom.css': '@page{size:letter landscape}' });
    const pdf = strFromU8(await bytesOf(await call('GET', `${path}/files/doc.pdf`, { token: u.token })), true);
    const box = /\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(pdf)!;
    expect(Number(box[1])).toBeCloseTo(595.28, 0);
    expect(Number(box[2])).toBeCloseTo(841.89, 0);
  });
});

describe('render limits', () => {
  it('more pages than a render allows answers 413 with a log line, before any browser work', async () => {
    const u = await makeUser();
    const path = await makeDoc(
      u,
      'toomany',
      Array.from({ length: MAX_RENDER_PAGES + 1 }, (_, i) => `p${i}`).join('\n{{ page }}\n'),
    );
    const res = await call('GET', `${path}/files/doc.pptx`, { token: u.token });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      status: 413,
      message: expect.stringContaining(`at most ${MAX_RENDER_PAGES}`),
    });
    expect((await logOf(u, 'toomany')).at(-1)).toMatchObject({
      severity: 'error',
      message: expect.stringMatching(/^render of doc\.pptx refused: 201 pages/),
    });
    const rc = await rcFor(u, 'toomany');
    expect((await env.BLOBS.list({ prefix: `r/${rc.resource.id}/render/` })).objects).toHaveLength(0);
  });

  it('a document that paginates to more sheets than allowed answers 413', async () => {
    const u = await makeUser();
    await makeDoc(u, 'manysheets', longDoc);
    const err = await outputOf(await rcFor(u, 'manysheets'), 'doc.pdf', { maxPages: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(413);
    expect((await logOf(u, 'manysheets')).at(-1)!.message).toMatch(/^render of doc\.pdf refused: more than 1 page/);
  });

  it('a render past its deadline answers 504 with a log line and stores nothing', async () => {
    const u = await makeUser();
    await makeDoc(u, 'slowbrowser', 'x');
    // A browser that does not answer in time.
    const slow = {
      fetch: () =>
        new Promise<Response>((resolve) => setTimeout(() => resolve(new Response('late', { status: 503 })), 3000)),
    };
    const rc = await rcFor(u, 'slowbrowser', { BROWSER: slow });
    const t0 = Date.now();
    const err = await outputOf(rc, 'doc.pdf', { deadlineMs: 300 }).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(2500);
    expect((err as HttpError).status).toBe(504);
    expect((await logOf(u, 'slowbrowser')).at(-1)).toMatchObject({
      severity: 'error',
      message: 'render of doc.pdf timed out after 300 ms',
    });
    expect((await env.BLOBS.list({ prefix: `r/${rc.resource.id}/render/` })).objects).toHaveLength(0);
  });
});

describe('browser sessions', () => {
  it('with BROWSER_KEEP_ALIVE_MS set, a second render reuses the session the first one released', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'keptalive', 'one');
    const rc = await rcFor(u, 'keptalive', { BROWSER_KEEP_ALIVE_MS: '60000' });
    try {
      await outputOf(rc, 'doc.pdf');
      await call('POST', `${path}/content`, { token: u.token, text: 'two' });
      expect(strFromU8((await outputOf(rc, 'doc.pdf')).subarray(0, 5))).toBe('%PDF-');
    } finally {
      await closeReleasedSessions(rc.env);
    }
    const renders = (await logOf(u, 'keptalive')).filter((l) => l.message.startsWith('rendered doc.pdf'));
    expect(renders.map((l) => /, ([a-z ]+)$/.exec(l.message)![1])).toEqual([
      'new browser session',
      'browser session reused',
    ]);
  });
});

describe('failures and cleanup', () => {
  it('a failed render answers 502, logs an ERROR with the reason, and stores nothing', async () => {
    const u = await makeUser();
    await makeDoc(u, 'broken', 'x');
    // Browser Rendering down: the binding answers 503 to everything (platform storage stays real).
    const rc = await rcFor(u, 'broken', {
      BROWSER: { fetch: async () => new Response('browser rendering unavailable', { status: 503 }) },
    });
    const err = await outputOf(rc, 'doc.pdf').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(502);
    expect((await logOf(u, 'broken')).at(-1)).toMatchObject({
      severity: 'error',
      message: expect.stringMatching(/^render of doc\.pdf failed: .+/),
    });
    expect((await env.BLOBS.list({ prefix: `r/${rc.resource.id}/render/` })).objects).toHaveLength(0);
  });

  it('a variable change renders the PDF again', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'varpdf', '');
    await call('PUT', `${path}/vars/v`, { token: u.token });
    await call('POST', `${path}/vars/v/value`, { token: u.token, text: '1' });
    await call('POST', `${path}/content`, { token: u.token, text: `Value {/u/${u.username}/d/varpdf/v/v}` });
    const a = await call('GET', `${path}/files/doc.pdf`, { token: u.token });
    await a.arrayBuffer();
    const etag = a.headers.get('ETag')!;
    expect(
      (await call('GET', `${path}/files/doc.pdf`, { token: u.token, headers: { 'If-None-Match': etag } })).status,
    ).toBe(304);
    await call('POST', `${path}/vars/v/value`, { token: u.token, text: '2' });
    const b = await call('GET', `${path}/files/doc.pdf`, { token: u.token, headers: { 'If-None-Match': etag } });
    expect(b.status).toBe(200);
    expect(b.headers.get('X-Render-Cache')).toBe('miss');
    await b.arrayBuffer();
  });

  it('deleting the document removes its rendered outputs', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'gone', 'bye');
    const id = (await env.DB.prepare(
      "select id from resources where kind = 'doc' and name = 'gone' and owner_id = (select id from users where username = ?)",
    )
      .bind(u.username)
      .first<{ id: number }>())!.id;
    await (await call('GET', `${path}/files/doc.pdf`, { token: u.token })).arrayBuffer();
    expect((await env.BLOBS.list({ prefix: `r/${id}/render/` })).objects).toHaveLength(1);
    expect((await call('DELETE', path, { token: u.token })).status).toBe(204);
    for (let i = 0; i < 50 && (await env.BLOBS.list({ prefix: `r/${id}/render/` })).objects.length; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await env.BLOBS.list({ prefix: `r/${id}/render/` })).objects).toHaveLength(0);
  });

  it('malformed or unknown paths answer 4xx, never 500', async () => {
    expect((await call('GET', '/u/%E0%A4%A/d/x')).status).toBe(400);
    expect((await call('GET', '/u/NOPE/d/..')).status).toBe(404);
    expect((await call('GET', '/s/%00')).status).toBe(404);
    expect((await call('GET', '/v1/u/nobody/d/x/pdf')).status).toBe(404);
    expect((await call('POST', '/u/nobody/d/x')).status).toBe(405);
  });
});
