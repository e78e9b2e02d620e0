/**
 * Grids over HTTP, drawn in a real headless Chromium (Debian's /usr/bin/chromium, driven
 * through the Chrome DevTools protocol): in the page's screenshot, each cell's border lines
 * must be drawn where the layout's shares (worked out by hand from the rules) put them,
 * within 1.5 px. The screenshot is kept.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumForSuite, evaluate, openPage } from './chromium';
import { base, http, makeUser, unique } from './harness';
import { decodePng, type Image } from './png';

const VIEW = { width: 1200, height: 800 };
const TOLERANCE = 1.5; // px

// Uneven, nested three levels: rows, then columns, then rows and columns again.
const LAYOUT = [
  '+----------+-------------------+',
  '|  {A:^}   |       {B}         |',
  '|          +---------+---------+',
  '|          |  {C:v}  |  {D:v}  |',
  '+----------+---------+---------+',
  '|              {E}             |',
  '|                              |',
  '+------------------------------+',
].join('\n');
/**
 * The cells of LAYOUT in characters [x, y, width, height], by hand from the rules (outer
 * border counts 1, a divider 0.5 to each side): 32 x 8; the row divider splits 4.5 + 3.5,
 * the top row 11.5 + 20.5 columns, its right part 2.5 + 2 rows, the lower of those 10 + 10.5.
 */
const CELLS: Record<string, [number, number, number, number]> = {
  A: [0, 0, 11.5, 4.5],
  B: [11.5, 0, 20.5, 2.5],
  C: [11.5, 2.5, 10, 2],
  D: [21.5, 2.5, 10.5, 2],
  E: [0, 4.5, 32, 3.5],
};
const COLUMNS = 32;
const ROWS = 8;
/** The area the cells share: the page below its title (measured in the page), or the whole viewport. */
interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}
const WHOLE: Area = { x: 0, y: 0, ...VIEW };
/** CELLS in pixels of the page: each share of the drawing is that share of the grid's area. */
const pixelBoxes = (area: Area = WHOLE): Record<string, Box> =>
  Object.fromEntries(
    Object.entries(CELLS).map(([l, [x, y, w, h]]) => {
      const [sx, sy] = [area.width / COLUMNS, area.height / ROWS];
      return [l, { path: l, x: area.x + x * sx, y: area.y + y * sy, w: w * sx, h: h * sy }];
    }),
  );
const MAPPING = 'A => /u/ann/p/sales, h=t\nB => /u/ann/p/costs\nC => /u/ann/p/<b>\nE => /u/ann/p/trend, c=true';

interface Node {
  type: string;
  width: number;
  height: number;
  children: Node[];
  inst?: { lid: string; position: string };
}
interface Box {
  path: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * The cells' boxes in characters from data.json alone. The JSON names no split direction,
 * but the sizes settle it: a split's children all have the parent's width and their
 * heights sum to its height (stacked), or the reverse (side by side); exactly one holds.
 */
function boxesOf(root: Node): Box[] {
  const out: Box[] = [];
  const visit = (n: Node, x: number, y: number, path: string) => {
    if (!n.children.length) return out.push({ path, x, y, w: n.width, h: n.height });
    const sum = (k: 'width' | 'height') => n.children.reduce((s, c) => s + c[k], 0);
    const stacked = n.children.every((c) => c.width === n.width) && sum('height') === n.height;
    const beside = n.children.every((c) => c.height === n.height) && sum('width') === n.width;
    expect(stacked !== beside, `node ${path || 'root'}: children must either stack or sit side by side`).toBe(true);
    let at = 0;
    n.children.forEach((c, i) => {
      visit(c, stacked ? x : x + at, stacked ? y + at : y, path ? `${path}.${i}` : `${i}`);
      at += stacked ? c.height : c.width;
    });
  };
  visit(root, 0, 0, '');
  return out;
}

/** The page's cell border colour (#8a94a6). */
const BORDER: [number, number, number] = [0x8a, 0x94, 0xa6];
const isBorder = ([r, g, b]: [number, number, number]) =>
  Math.abs(r - BORDER[0]) + Math.abs(g - BORDER[1]) + Math.abs(b - BORDER[2]) <= 12;

/**
 * Where a cell's edge is drawn: near the expected coordinate `at` (px), the pixel lines
 * that are border-coloured along the middle 80% of the edge. Cells are border-box with a
 * 1 px border, so between two cells two border lines touch: the edge is between them. The
 * left/top edge of a cell is its own first border line, the right/bottom edge is one past
 * its own last: `side` says which.
 */
function drawnEdge(
  img: Image,
  axis: 'x' | 'y',
  at: number,
  from: number,
  to: number,
  side: 'start' | 'end',
): number | null {
  const limit = axis === 'x' ? img.width : img.height;
  const hits: number[] = [];
  for (let line = Math.max(0, Math.floor(at) - 3); line <= Math.min(limit - 1, Math.ceil(at) + 2); line++) {
    let border = 0;
    let samples = 0;
    for (
      let along = Math.ceil(from + (to - from) * 0.1);
      along <= Math.floor(from + (to - from) * 0.9);
      along++, samples++
    ) {
      if (isBorder(axis === 'x' ? img.rgb(line, along) : img.rgb(along, line))) border++;
    }
    if (samples && border >= samples * 0.9) hits.push(line);
  }
  if (!hits.length) return null;
  return side === 'start' ? Math.max(...hits) : Math.min(...hits) + 1;
}

/** Each cell's four edges as drawn in the screenshot, next to where the shares put them. */
function measureCells(
  img: Image,
  expected: Record<string, Box>,
): Record<string, { want: number; got: number | null }[]> {
  return Object.fromEntries(
    Object.entries(expected).map(([label, b]) => [
      label,
      [
        { want: b.x, got: drawnEdge(img, 'x', b.x, b.y, b.y + b.h, 'start') },
        { want: b.y, got: drawnEdge(img, 'y', b.y, b.x, b.x + b.w, 'start') },
        { want: b.x + b.w, got: drawnEdge(img, 'x', b.x + b.w, b.y, b.y + b.h, 'end') },
        { want: b.y + b.h, got: drawnEdge(img, 'y', b.y + b.h, b.x, b.x + b.w, 'end') },
      ],
    ]),
  );
}

function expectDrawnAtShares(img: Image, expected: Record<string, Box>) {
  for (const [label, edges] of Object.entries(measureCells(img, expected))) {
    edges.forEach(({ want, got }, i) => {
      const edge = ['left', 'top', 'right', 'bottom'][i];
      expect(got, `${label} ${edge}: no border line drawn near ${want} px`).not.toBeNull();
      expect(Math.abs(got! - want), `${label} ${edge}: drawn at ${got} px, share says ${want} px`).toBeLessThanOrEqual(
        TOLERANCE,
      );
    });
  }
}

describe('grids over HTTP', () => {
  it('layout, mapping, data.json and a 400 that names row and column, through the real server', async () => {
    const u = await makeUser();
    const g = `/v1/vis/grids/${unique('g')}`;
    expect((await http('PUT', g, { token: u.token })).status).toBe(201);
    expect((await http('POST', `${g}/layout`, { token: u.token, text: LAYOUT })).status).toBe(204);
    expect((await http('POST', `${g}/mapping`, { token: u.token, text: MAPPING })).status).toBe(204);
    const data = (await (await http('GET', `${g}/json/data.json`, { token: u.token })).json()) as { structure: Node };
    expect(data.structure).toMatchObject({ type: 'wrapper', width: 32, height: 8 });
    const bad = await http('POST', `${g}/layout`, { token: u.token, text: '+---+\n|{A}|\n+--' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ row: 3, column: 4 });
    expect(await (await http('GET', `${g}/layout`, { token: u.token })).text()).toBe(LAYOUT);
  });
});

describe.skipIf(!existsSync(CHROMIUM))(`dashboard page in headless Chromium (${CHROMIUM})`, () => {
  const browser = chromiumForSuite(VIEW);

  it("draws each cell's borders at its parsed share (within 1.5 px of the screenshot), at the owner path and the public url", async () => {
    const u = await makeUser();
    const name = unique('g');
    const g = `/v1/vis/grids/${name}`;
    expect((await http('PUT', g, { token: u.token })).status).toBe(201);
    expect((await http('POST', `${g}/mapping`, { token: u.token, text: MAPPING })).status).toBe(204);
    expect((await http('POST', `${g}/layout`, { token: u.token, text: LAYOUT })).status).toBe(204);
    const data = (await (await http('GET', `${g}/json/data.json`, { token: u.token })).json()) as { structure: Node };
    expect(data.structure).toMatchObject({ width: COLUMNS, height: ROWS });
    // data.json carries the hand-worked shares (reading order A B C D E)
    const labels = Object.keys(CELLS);
    expect(boxesOf(data.structure).map(({ x, y, w, h }) => [x, y, w, h])).toEqual(labels.map((l) => CELLS[l]));

    const shoot = async (url: string, headers?: Record<string, string>) => {
      const session = await openPage(browser(), VIEW, url, headers);
      const shot = await browser().send<{ data: string }>('Page.captureScreenshot', { format: 'png' }, session);
      const png = Buffer.from(shot.data, 'base64');
      const text = await evaluate<string[]>(
        browser(),
        session,
        `[...document.querySelectorAll('.cell')].map((e) => e.innerText.replace(/\\s+/g, ' ').trim())`,
      );
      // The cells share the area below the grid's title.
      const area = JSON.parse(
        await evaluate<string>(
          browser(),
          session,
          `(() => { const r = document.querySelector('main.grid').getBoundingClientRect(); return JSON.stringify({ x: r.x, y: r.y, width: r.width, height: r.height }); })()`,
        ),
      ) as Area;
      const title = await evaluate<string>(browser(), session, `document.querySelector('h1').innerText`);
      return { session, png, img: decodePng(png), text, area, title };
    };
    const own = await shoot(base() + `${g}/html`, { Authorization: `Bearer ${u.token}` });
    const expected = pixelBoxes(own.area);
    expect(own.title).toBe(name);
    expect([own.img.width, own.img.height]).toEqual([VIEW.width, VIEW.height]);
    const file = join(tmpdir(), 'grids-dashboard.png');
    writeFileSync(file, own.png);
    console.log(`grids: screenshot of the dashboard written to ${file}`);
    expectDrawnAtShares(own.img, expected);
    // what each cell shows: its label and that its plot (no such user) is not there to show; D has no mapping line
    expect(own.text).toEqual(['A no plot to show', 'B no plot to show', 'C no plot to show', '', 'E no plot to show']);
    // the page ran no script and its one style applied under the CSP (the borders above are drawn by it)
    expect(await evaluate<number>(browser(), own.session, 'document.scripts.length')).toBe(0);

    // the public url: anonymous once shared publicly, 404 before; drawn the same
    const pub = base() + `/v1/u/${u.username}/g/${name}/html`;
    expect((await http('GET', `/v1/u/${u.username}/g/${name}/html`)).status).toBe(404);
    expect((await http('POST', '/v1/admin/profile/public', { token: u.token, text: 'yes' })).status).toBeLessThan(300);
    expect((await http('PUT', `${g}/shared/public`, { token: u.token })).status).toBe(201);
    const anon = await shoot(pub);
    expectDrawnAtShares(anon.img, expected);
  });

  it('the screenshot check finds misplaced borders (a page drawn with other shares fails it)', async () => {
    // guards the measurement itself: the same cells moved by 3 px are reported, not passed
    const expected = pixelBoxes();
    const cells = Object.entries(expected).map(
      ([l, b]) =>
        `<div style="position:absolute;box-sizing:border-box;border:1px solid #8a94a6;left:${b.x + 3}px;top:${b.y}px;width:${b.w}px;height:${b.h}px">${l}</div>`,
    );
    const html = `<html><body style="margin:0">${cells.join('')}</body></html>`;
    const session = await openPage(browser(), VIEW, `data:text/html;base64,${Buffer.from(html).toString('base64')}`);
    const shot = await browser().send<{ data: string }>('Page.captureScreenshot', { format: 'png' }, session);
    const img = decodePng(Buffer.from(shot.data, 'base64'));
    const measured = measureCells(img, expected);
    const lefts = Object.values(measured).map((edges) => edges[0]!);
    expect(lefts.some(({ want, got }) => got === null || Math.abs(got - want) > TOLERANCE)).toBe(true);
    // and the unshifted tops are still found where they belong
    for (const edges of Object.values(measured))
      expect(Math.abs(edges[1]!.got! - edges[1]!.want)).toBeLessThanOrEqual(TOLERANCE);
  });
});
