/** The grids area through the real Worker (workerd, local D1/R2): every endpoint and rule of docs/areas/grids.md. */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { buildData, buildMeta, lidFor, type GridData, type MetaData } from '../../../src/grids/build';
import { parseLayout } from '../../../src/grids/layout';
import { parseMapping } from '../../../src/grids/mapping';
import { gql } from '../gql/fixtures';
import { call, makeUser, unique, type TestUser } from '../helpers';

const LAYOUT = '+-----+-----+\n| {A} |{B:v}|\n+-----+-----+\n|   {C:^}   |\n+-----------+';
const MAPPING = 'A => /u/ann/p/a, h=t\nC => /u/ann/p/c, c=true, colour=red';

async function newGrid(u: TestUser, name = unique('g')): Promise<string> {
  const res = await call('PUT', `/v1/vis/grids/${name}`, { token: u.token });
  expect(res.status).toBe(201);
  return name;
}
async function gridId(owner: TestUser, name: string): Promise<number> {
  const row = await env.DB.prepare(
    "select r.id from resources r join users u on u.id = r.owner_id where u.username = ? and r.kind = 'grid' and r.name = ?",
  )
    .bind(owner.username, name)
    .first<{ id: number }>();
  return row!.id;
}
const expected = (id: number, layout: string | null, mapping: string) => ({
  data: buildData(layout === null ? null : parseLayout(layout), parseMapping(mapping), id),
  meta: buildMeta(parseMapping(mapping), id),
});
async function parsed(u: TestUser, base: string) {
  const d = await call('GET', `${base}/json/data.json`, { token: u.token });
  const m = await call('GET', `${base}/json/meta_data.json`, { token: u.token });
  expect(d.status).toBe(200);
  expect(d.headers.get('Content-Type')).toBe('application/json');
  expect(m.status).toBe(200);
  return { data: (await d.json()) as GridData, meta: (await m.json()) as MetaData };
}
const write = (u: TestUser, path: string, text: string) => call('POST', path, { token: u.token, text });
/** A new user's grid with MAPPING and LAYOUT written (mapping first). */
async function filledGrid() {
  const u = await makeUser();
  const name = await newGrid(u);
  const base = `/v1/vis/grids/${name}`;
  await write(u, `${base}/mapping`, MAPPING);
  await write(u, `${base}/layout`, LAYOUT);
  return { u, name, base };
}

describe('grid resource', () => {
  it('PUT creates (201), re-create is 409, bad names are 400; the collection lists it', async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    expect((await call('PUT', `/v1/vis/grids/${name}`, { token: u.token })).status).toBe(409);
    expect((await call('PUT', '/v1/vis/grids/Bad-Name', { token: u.token })).status).toBe(400);
    const list = (await (await call('GET', '/v1/vis/grids', { token: u.token })).json()) as {
      name: string;
      uri: string;
    }[];
    expect(list).toEqual([expect.objectContaining({ name, uri: `/v1/vis/grids/${name}`, type: 'dir' })]);
  });

  it('the grid folder lists layout, mapping, json/, html, name, description, summary, config/, shortname, url, log, shared/, tags/, threads/', async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    const res = await call('GET', `/v1/vis/grids/${name}`, { token: u.token });
    expect(res.headers.get('X-NVM-Permissions')).toBe('r, w, d');
    const items = (await res.json()) as { name: string; type: string }[];
    expect(items.map((i) => `${i.name}:${i.type}`).sort()).toEqual(
      [
        'config:dir',
        'description:file',
        'html:file',
        'json:dir',
        'layout:file',
        'log:file',
        'mapping:file',
        'name:file',
        'shared:dir',
        'shortname:file',
        'summary:file',
        'tags:dir',
        'threads:dir',
        'url:file',
      ].sort(),
    );
    const json = (await (await call('GET', `/v1/vis/grids/${name}/json`, { token: u.token })).json()) as {
      name: string;
      uri: string;
    }[];
    expect(json.map((i) => i.name)).toEqual(['data.json', 'meta_data.json', 'parse_time']);
    expect(json[0]!.uri).toBe(`/v1/vis/grids/${name}/json/data.json`);
  });

  it('layout and mapping read back byte for byte; name and description are text entries', async () => {
    const u = await makeUser();
    const base = `/v1/vis/grids/${await newGrid(u)}`;
    expect((await call('GET', `${base}/layout`, { token: u.token })).status).toBe(200);
    expect(await (await call('GET', `${base}/layout`, { token: u.token })).text()).toBe('');
    const text = `\n${LAYOUT.split('\n')
      .map((l) => `  ${l}  `)
      .join('\n')}\n\n`;
    expect((await write(u, `${base}/layout`, text)).status).toBe(204);
    expect((await write(u, `${base}/mapping`, MAPPING + '\n')).status).toBe(204);
    expect((await write(u, `${base}/name`, 'Sales board')).status).toBe(204);
    expect(await (await call('GET', `${base}/layout`, { token: u.token })).text()).toBe(text);
    expect(await (await call('GET', `${base}/mapping`, { token: u.token })).text()).toBe(MAPPING + '\n');
    expect(await (await call('GET', `${base}/name`, { token: u.token })).text()).toBe('Sales board');
  });

  it('description is a text entry: empty by default, reads back byte for byte, DELETE clears it', async () => {
    const u = await makeUser();
    const base = `/v1/vis/grids/${await newGrid(u)}`;
    expect(await (await call('GET', `${base}/description`, { token: u.token })).text()).toBe('');
    const text = '  Sales by region — weekly.\n\tSecond line, ünïcode  \n';
    expect((await write(u, `${base}/description`, text)).status).toBe(204);
    const res = await call('GET', `${base}/description`, { token: u.token });
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(text);
    expect((await call('DELETE', `${base}/description`, { token: u.token })).status).toBe(204);
    expect(await (await call('GET', `${base}/description`, { token: u.token })).text()).toBe('');
  });

  it('deleting a grid removes it and its parse; re-creating the name starts with an empty parse and new lids', async () => {
    const { u, name, base } = await filledGrid();
    const before = await parsed(u, base);
    expect((await call('DELETE', base, { token: u.token })).status).toBe(204);
    for (const path of ['', '/layout', '/json/data.json', '/json/meta_data.json', '/html'])
      expect((await call('GET', `${base}${path}`, { token: u.token })).status).toBe(404);
    expect((await (await call('GET', '/v1/vis/grids', { token: u.token })).json()) as unknown[]).toEqual([]);
    expect(await newGrid(u, name)).toBe(name);
    expect(await parsed(u, base)).toEqual({
      data: { structure: { type: 'wrapper', width: 0, height: 0, children: [] } },
      meta: {},
    });
    expect(await (await call('GET', `${base}/layout`, { token: u.token })).text()).toBe('');
    await write(u, `${base}/mapping`, MAPPING);
    await write(u, `${base}/layout`, LAYOUT);
    const again = await parsed(u, base);
    expect(again).toEqual(expected(await gridId(u, name), LAYOUT, MAPPING));
    expect(again.meta.A!.lid).not.toBe(before.meta.A!.lid);
    expect(again.meta.C!.lid).not.toBe(before.meta.C!.lid);
  });

  it("a grid's url is its page: GraphQL gives <origin>/u/<owner>/g/<grid>, and that page answers (as the /v1/u/<owner>/g/<grid>/html alias)", async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    await write(u, `/v1/vis/grids/${name}/layout`, LAYOUT);
    const { body } = await gql(u.token, '{ grids { id url } }');
    const url = `${env.PUBLIC_ORIGIN}/u/${u.username}/g/${name}`;
    expect(body.data!.grids).toEqual([{ id: name, url }]);
    const page = await call('GET', new URL(url).pathname, { token: u.token });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('class="cell');
    expect(await (await call('GET', `/v1/u/${u.username}/g/${name}/html`, { token: u.token })).text()).toBe(html);
  });

  it('before any write, data.json is the empty structure and meta_data.json is {}', async () => {
    const u = await makeUser();
    const base = `/v1/vis/grids/${await newGrid(u)}`;
    expect(await parsed(u, base)).toEqual({
      data: { structure: { type: 'wrapper', width: 0, height: 0, children: [] } },
      meta: {},
    });
  });
});

describe('writing either file re-parses both', () => {
  it('layout then mapping: data.json and meta_data.json follow each write', async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    const base = `/v1/vis/grids/${name}`;
    const id = await gridId(u, name);
    await write(u, `${base}/layout`, LAYOUT);
    expect(await parsed(u, base)).toEqual(expected(id, LAYOUT, ''));
    await write(u, `${base}/mapping`, MAPPING);
    const both = await parsed(u, base);
    expect(both).toEqual(expected(id, LAYOUT, MAPPING));
    // exact shape, written out: root wrapper, a row of A|B, then C
    expect(both.data).toEqual({
      structure: {
        type: 'wrapper',
        width: 13,
        height: 5,
        children: [
          {
            type: 'wrapper',
            width: 13,
            height: 2.5,
            children: [
              {
                type: 'wrapper container',
                width: 6.5,
                height: 2.5,
                children: [],
                inst: { lid: lidFor(id, 'A'), position: 'middle', include_header: true, include_caption: false },
              },
              {
                type: 'wrapper container',
                width: 6.5,
                height: 2.5,
                children: [],
                inst: { lid: '', position: 'bottom', include_header: false, include_caption: false },
              },
            ],
          },
          {
            type: 'wrapper container',
            width: 13,
            height: 2.5,
            children: [],
            inst: { lid: lidFor(id, 'C'), position: 'top', include_header: false, include_caption: true },
          },
        ],
      },
    });
    expect(both.meta).toEqual({
      A: { lid: lidFor(id, 'A'), ref: '/u/ann/p/a', params: { include_header: true, include_caption: false } },
      C: {
        lid: lidFor(id, 'C'),
        ref: '/u/ann/p/c',
        params: { include_header: false, include_caption: true, colour: 'red' },
      },
    });
  });

  it('mapping then layout gives the same result', async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    const base = `/v1/vis/grids/${name}`;
    await write(u, `${base}/mapping`, MAPPING);
    expect((await parsed(u, base)).data.structure.children).toEqual([]);
    await write(u, `${base}/layout`, LAYOUT);
    expect(await parsed(u, base)).toEqual(expected(await gridId(u, name), LAYOUT, MAPPING));
  });

  it('clearing the layout (DELETE) gives the empty structure; clearing the mapping empties the cells', async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    const base = `/v1/vis/grids/${name}`;
    const id = await gridId(u, name);
    await write(u, `${base}/layout`, LAYOUT);
    await write(u, `${base}/mapping`, MAPPING);
    expect((await call('DELETE', `${base}/mapping`, { token: u.token })).status).toBe(204);
    expect(await parsed(u, base)).toEqual(expected(id, LAYOUT, ''));
    expect((await call('DELETE', `${base}/layout`, { token: u.token })).status).toBe(204);
    expect((await parsed(u, base)).data).toEqual({ structure: { type: 'wrapper', width: 0, height: 0, children: [] } });
  });

  it('lid is stable per label across re-parses, renames and new layouts', async () => {
    const { u, base } = await filledGrid();
    const lidA = (await parsed(u, base)).meta.A!.lid;
    expect(lidA).toMatch(/^[0-9a-f]{14}$/);
    await write(u, `${base}/layout`, '+-----+\n| {A} |\n+-----+');
    await write(u, `${base}/mapping`, 'A => /u/ann/p/other\nZ => /u/ann/p/z');
    const renamed = unique('r');
    expect((await call('PATCH', base, { token: u.token, text: renamed })).status).toBe(200);
    const after = await parsed(u, `/v1/vis/grids/${renamed}`);
    expect(after.meta.A!.lid).toBe(lidA);
    expect(after.data.structure.children[0]!.inst!.lid).toBe(lidA);
  });

  it('a copy carries layout and mapping and gets its own lids, consistent between data and meta_data', async () => {
    const { u, base } = await filledGrid();
    const copy = unique('c');
    expect((await call('PATCH', base, { token: u.token, json: { name: copy, copy: true } })).status).toBe(201);
    const got = await parsed(u, `/v1/vis/grids/${copy}`);
    expect(got).toEqual(expected(await gridId(u, copy), LAYOUT, MAPPING));
    expect(got.meta.A!.lid).not.toBe((await parsed(u, base)).meta.A!.lid);
  });
});

describe('layout faults of rules 1-3', () => {
  it('answer 400 naming row and column, and keep the previous layout and its parse', async () => {
    const { u, base } = await filledGrid();
    const before = await parsed(u, base);
    const cases: [string, number, number][] = [
      ['+-----+\n| {A} |\n+-----', 3, 7], // not one rectangle
      ['+-------+\n|  {A}  |\n|---|---|\n|  {B}  |\n+-------+', 3, 5], // mixed divider
      ['+-------+\n|  {A}  |\n+---+   |\n|  {B}  |\n+-------+', 3, 2], // divider not edge to edge
      ['', 1, 1],
    ];
    for (const [layout, row, column] of cases) {
      const res = await write(u, `${base}/layout`, layout);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { status: number; message: string; row: number; column: number };
      expect(body).toMatchObject({ status: 400, row, column });
      expect(body.message).toContain(`row ${row}, column ${column}`);
    }
    expect(await (await call('GET', `${base}/layout`, { token: u.token })).text()).toBe(LAYOUT);
    expect(await parsed(u, base)).toEqual(before);
  });

  it('bad bodies get a clear 4xx and store nothing: form-urlencoded 415, too large 413, bad UTF-8 400', async () => {
    const u = await makeUser();
    const base = `/v1/vis/grids/${await newGrid(u)}`;
    expect(
      (await call('POST', `${base}/layout`, { token: u.token, text: '+-+', type: 'application/x-www-form-urlencoded' }))
        .status,
    ).toBe(415);
    expect(
      (await call('POST', `${base}/mapping`, { token: u.token, text: 'A=>x', type: 'application/json' })).status,
    ).toBe(415);
    const big = `+${'-'.repeat(200)}+\n`.repeat(700);
    const tooBig = await write(u, `${base}/layout`, big);
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ status: 413, message: expect.stringContaining('layout') });
    const bad = await call('POST', `${base}/layout`, {
      token: u.token,
      body: new Uint8Array([0x2b, 0xff, 0xfe]),
      type: 'text/plain',
    });
    expect(bad.status).toBe(400);
    expect(await (await call('GET', `${base}/layout`, { token: u.token })).text()).toBe('');
  });

  it('random drawings never answer 500: only 204 or 400', async () => {
    const u = await makeUser();
    const base = `/v1/vis/grids/${await newGrid(u)}`;
    const alphabet = '+-|  {}A:^v\n';
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let i = 0; i < 40; i++) {
      const text = Array.from(
        { length: 5 + Math.floor(rand() * 80) },
        () => alphabet[Math.floor(rand() * alphabet.length)],
      ).join('');
      const res = await write(u, `${base}/layout`, text);
      expect([204, 400], JSON.stringify(text)).toContain(res.status);
    }
  });
});

describe('concurrency', () => {
  it('concurrent layout and mapping writes leave the parse of the final layout and mapping', async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    const base = `/v1/vis/grids/${name}`;
    const layouts = [LAYOUT, '+-----+\n| {A} |\n+-----+', '+---+---+\n|{C}|{A}|\n+---+---+'];
    const mappings = [MAPPING, 'A => /u/x/p/1', 'C => /u/x/p/2, h=t\nA => /u/x/p/3'];
    for (let round = 0; round < 2; round++) {
      const results = await Promise.all([
        ...layouts.map((l) => write(u, `${base}/layout`, l)),
        ...mappings.map((m) => write(u, `${base}/mapping`, m)),
      ]);
      expect(results.map((r) => r.status)).toEqual([204, 204, 204, 204, 204, 204]);
      const finalLayout = await (await call('GET', `${base}/layout`, { token: u.token })).text();
      const finalMapping = await (await call('GET', `${base}/mapping`, { token: u.token })).text();
      expect(await parsed(u, base)).toEqual(expected(await gridId(u, name), finalLayout, finalMapping));
    }
  }, 120_000);
});

describe('access', () => {
  it('another user sees 404; a public share lets anyone read the parse and the page, not write', async () => {
    const owner = await makeUser();
    const other = await makeUser();
    const name = await newGrid(owner);
    await write(owner, `/v1/vis/grids/${name}/layout`, LAYOUT);
    const shared = `/v1/users/${owner.username}/vis/grids/${name}`;
    const pub = `/v1/u/${owner.username}/g/${name}/html`;
    expect((await call('GET', `${shared}/json/data.json`, { token: other.token })).status).toBe(404);
    expect((await call('GET', `${shared}/html`)).status).toBe(404);
    expect((await call('GET', pub)).status).toBe(404);
    expect((await call('GET', pub, { token: other.token })).status).toBe(404);
    expect((await call('POST', '/v1/admin/profile/public', { token: owner.token, text: 'yes' })).status).toBeLessThan(
      300,
    );
    expect((await call('PUT', `/v1/vis/grids/${name}/shared/public`, { token: owner.token })).status).toBe(201);
    expect((await call('GET', `${shared}/json/data.json`)).status).toBe(200);
    expect((await call('GET', `${shared}/html`)).status).toBe(200);
    expect((await call('GET', pub)).status).toBe(200);
    expect((await call('GET', `${shared}/layout`, { token: other.token })).status).toBe(200);
    expect((await write(other, `${shared}/layout`, LAYOUT)).status).toBe(403);
    expect((await call('GET', `${shared}/json/parse_time`)).status).toBe(401);
    expect((await call('DELETE', `/v1/vis/grids/${name}/shared/public`, { token: owner.token })).status).toBe(204);
    expect((await call('GET', pub)).status).toBe(404);
  });

  it('the owner reads the page at its own path and at the public url', async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    await write(u, `/v1/vis/grids/${name}/layout`, LAYOUT);
    expect((await call('GET', `/v1/vis/grids/${name}/html`, { token: u.token })).status).toBe(200);
    expect((await call('GET', `/v1/u/${u.username}/g/${name}/html`, { token: u.token })).status).toBe(200);
    expect((await call('GET', `/v1/u/${u.username}/g/nosuch/html`, { token: u.token })).status).toBe(404);
  });

  it('json/data.json is read-only (405 on POST)', async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    expect((await write(u, `/v1/vis/grids/${name}/json/data.json`, '{}')).status).toBe(405);
  });
});

describe('rendered page', () => {
  it('is HTML with a strict CSP whose style hash matches the page, escapes text and has no script', async () => {
    const u = await makeUser();
    const name = await newGrid(u);
    const base = `/v1/vis/grids/${name}`;
    await write(u, `${base}/layout`, LAYOUT);
    await write(u, `${base}/mapping`, 'A => /u/<img>/p/"q"\nC => /u/ann/p/c');
    await write(u, `${base}/name`, '<script>alert(1)</script>');
    const res = await call('GET', `${base}/html`, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('Content-Security-Policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'none'");
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const html = await res.text();
    expect(html).not.toMatch(/<script|<img/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const style = /<style>([^<]*)<\/style>/.exec(html)![1]!;
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(style));
    expect(csp).toContain(`style-src 'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
    expect(html.match(/class="cell/g)).toHaveLength(3);
  });
});

describe('parse timing (diagnostics, authenticated)', () => {
  it('reports the time per parse measured inside the Worker; runs must be 1-500', async () => {
    const u = await makeUser();
    const base = `/v1/vis/grids/${await newGrid(u)}`;
    await write(u, `${base}/layout`, LAYOUT);
    const res = await call('GET', `${base}/json/parse_time?runs=20`, { token: u.token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { samples: number[]; ms_per_parse: number };
    expect(body).toMatchObject({
      runs: 20,
      columns: 13,
      rows: 5,
      cells: 3,
      ms_per_parse: expect.any(Number),
      mean_ms_per_parse: expect.any(Number),
      best_ms_per_parse: expect.any(Number),
    });
    expect(body.samples).toHaveLength(4); // batches of 5
    expect(body.ms_per_parse).toBe([...body.samples].sort((a, b) => a - b)[1]);
    for (const bad of ['0', '501', 'x', '1.5'])
      expect((await call('GET', `${base}/json/parse_time?runs=${bad}`, { token: u.token })).status).toBe(400);
  });

  it('runs × the time of one parse must fit in 500 ms: a slow drawing with many runs is 400 with max_runs, and parses nothing more', async () => {
    const u = await makeUser();
    const base = `/v1/vis/grids/${await newGrid(u)}`;
    // a fine mesh of 1-character boxes (14400 cells): tens of ms per parse, far above the clock's 1 ms
    const mesh = Array.from({ length: 241 }, (_, y) =>
      Array.from({ length: 241 }, (_, x) => (y % 2 ? (x % 2 ? ' ' : '|') : x % 2 ? '-' : '+')).join(''),
    ).join('\n');
    expect((await write(u, `${base}/layout`, mesh)).status).toBe(204);
    const t0 = Date.now();
    const res = await call('GET', `${base}/json/parse_time?runs=500`, { token: u.token });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { status: number; message: string; max_runs: number };
    expect(body).toMatchObject({ status: 400, message: expect.stringMatching(/at most \d+ runs fit in the 500 ms/) });
    expect(body.max_runs).toBeGreaterThanOrEqual(1);
    expect(body.max_runs).toBeLessThan(500);
    expect(Date.now() - t0).toBeLessThan(5000); // refused before the runs, not after
    // one run always fits (the clock is coarse and the machine shared: max_runs itself may move a little between calls)
    const ok = await call('GET', `${base}/json/parse_time?runs=1`, { token: u.token });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ runs: 1, cells: 14400 });
  });
});
