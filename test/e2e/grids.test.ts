/**
 * Grids over HTTP, drawn in a real headless Chromium (Debian's /usr/bin/chromium, driven
 * through the Chrome DevTools protocol): in the page's screenshot, each cell's border lines
 * must be drawn where the layout's shares (worked out by hand from the rules) put them,
 * within 1.5 px. The screenshot is kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base, http, makeUser, unique } from './harness';
import { decodePng, type Image } from './png';

const CHROMIUM = '/usr/bin/chromium';
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
/** CELLS in pixels of the viewport: each share of the drawing is that share of the page. */
const pixelBoxes = (): Record<string, Box> =>
  Object.fromEntries(
    Object.entries(CELLS).map(([l, [x, y, w, h]]) => {
      const [sx, sy] = [VIEW.width / COLUMNS, VIEW.height / ROWS];
      return [l, { path: l, x: x * sx, y: y * sy, w: w * sx, h: h * sy }];
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
const isBorder = ([r, g, b]: [number, number, number]) => Math.abs(r - BORDER[0]) + Math.abs(g - BORDER[1]) + Math.abs(b - BORDER[2]) <= 12;

/**
 * Where a cell's edge is drawn: near the expected coordinate `at` (px), the pixel lines
 * that are border-coloured along the middle 80% of the edge. Cells are border-box with a
 * 1 px border, so between two cells two border lines touch: the edge is between them. The
 * left/top edge of a cell is its own first border line, the right/bottom edge is one past
 * its own last: `side` says which.
 */
function drawnEdge(img: Image, axis: 'x' | 'y', at: number, from: number, to: number, side: 'start' | 'end'): number | null {
  const limit = axis === 'x' ? img.width : img.height;
  const hits: number[] = [];
  for (let line = Math.max(0, Math.floor(at) - 3); line <= Math.min(limit - 1, Math.ceil(at) + 2); line++) {
    let border = 0;
    let samples = 0;
    for (let along = Math.ceil(from + (to - from) * 0.1); along <= Math.floor(from + (to - from) * 0.9); along++, samples++) {
      if (isBorder(axis === 'x' ? img.rgb(line, along) : img.rgb(along, line))) border++;
    }
    if (samples && border >= samples * 0.9) hits.push(line);
  }
  if (!hits.length) return null;
  return side === 'start' ? Math.max(...hits) : Math.min(...hits) + 1;
}

/** Each cell's four edges as drawn in the screenshot, next to where the shares put them. */
function measureCells(img: Image, expected: Record<string, Box>): Record<string, { want: number; got: number | null }[]> {
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
      expect(Math.abs(got! - want), `${label} ${edge}: drawn at ${got} px, share says ${want} px`).toBeLessThanOrEqual(TOLERANCE);
    });
  }
}

/** A minimal DevTools-protocol client over the browser's WebSocket. */
class Cdp {
  private id = 0;
  private pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  private listeners: ((m: { method: string; params: unknown; sessionId?: string }) => void)[] = [];
  private constructor(private ws: WebSocket) {
    ws.addEventListener('message', (ev) => {
      const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: unknown; sessionId?: string };
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p?.fail(new Error(msg.error.message));
        else p?.ok(msg.result);
      } else if (msg.method) for (const l of this.listeners) l({ method: msg.method, params: msg.params, sessionId: msg.sessionId });
    });
  }
  static open(url: string): Promise<Cdp> {
    return new Promise((ok, fail) => {
      const ws = new WebSocket(url);
      ws.addEventListener('open', () => ok(new Cdp(ws)));
      ws.addEventListener('error', () => fail(new Error(`cannot connect to ${url}`)));
    });
  }
  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = ++this.id;
    return new Promise((ok, fail) => {
      this.pending.set(id, { ok: ok as (v: unknown) => void, fail });
      this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }
  once(method: string, sessionId: string): Promise<unknown> {
    return new Promise((ok) => {
      const l = (m: { method: string; params: unknown; sessionId?: string }) => {
        if (m.method === method && m.sessionId === sessionId) {
          this.listeners = this.listeners.filter((x) => x !== l);
          ok(m.params);
        }
      };
      this.listeners.push(l);
    });
  }
  close() {
    this.ws.close();
  }
}

let browser: ChildProcess | undefined;
let profile: string | undefined;
afterAll(() => {
  // the browser was started in its own process group: end that group (renderers included)
  if (browser?.pid && browser.exitCode === null) {
    try {
      process.kill(-browser.pid, 'SIGKILL');
    } catch {
      browser.kill('SIGKILL');
    }
  }
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function launch(): Promise<Cdp> {
  profile = mkdtempSync(join(tmpdir(), 'grids-chromium-'));
  browser = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--no-first-run',
      '--hide-scrollbars',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      `--window-size=${VIEW.width},${VIEW.height}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const wsUrl = await new Promise<string>((ok, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`chromium did not start: ${err}`)), 45_000);
    browser!.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    browser!.on('exit', (code) => fail(new Error(`chromium exited (${code}): ${err}`)));
  });
  return Cdp.open(wsUrl);
}

/** Opens `url` in a fresh tab at the test's viewport; returns the tab's session. */
async function openPage(cdp: Cdp, url: string, headers: Record<string, string> = {}): Promise<string> {
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  await cdp.send('Emulation.setDeviceMetricsOverride', { ...VIEW, deviceScaleFactor: 1, mobile: false }, sessionId);
  await cdp.send('Network.enable', {}, sessionId);
  await cdp.send('Network.setExtraHTTPHeaders', { headers }, sessionId);
  await cdp.send('Page.enable', {}, sessionId);
  await cdp.send('Runtime.enable', {}, sessionId);
  const loaded = cdp.once('Page.loadEventFired', sessionId);
  await cdp.send('Page.navigate', { url }, sessionId);
  await loaded;
  return sessionId;
}

async function evaluate<T>(cdp: Cdp, sessionId: string, expression: string): Promise<T> {
  const r = await cdp.send<{ result: { value: T } }>('Runtime.evaluate', { expression, returnByValue: true }, sessionId);
  return r.result.value;
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
  let cdp: Cdp;
  beforeAll(async () => {
    cdp = await launch();
  });
  afterAll(async () => {
    await cdp?.send('Browser.close').catch(() => undefined);
    cdp?.close();
  });

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
    const expected = pixelBoxes();

    const shoot = async (url: string, headers?: Record<string, string>) => {
      const session = await openPage(cdp, url, headers);
      const shot = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png' }, session);
      const png = Buffer.from(shot.data, 'base64');
      const text = await evaluate<string[]>(cdp, session, `[...document.querySelectorAll('.cell')].map((e) => e.innerText.replace(/\\s+/g, ' ').trim())`);
      return { session, png, img: decodePng(png), text };
    };
    const own = await shoot(base() + `${g}/html`, { Authorization: `Bearer ${u.token}` });
    expect([own.img.width, own.img.height]).toEqual([VIEW.width, VIEW.height]);
    const file = join(tmpdir(), 'grids-dashboard.png');
    writeFileSync(file, own.png);
    console.log(`grids: screenshot of the dashboard written to ${file}`);
    expectDrawnAtShares(own.img, expected);
    // what each cell shows: label, position, plot; D has no mapping line: empty, at its position
    expect(own.text).toEqual(['A top /u/ann/p/sales', 'B middle /u/ann/p/costs', 'C bottom /u/ann/p/<b>', 'empty bottom', 'E middle /u/ann/p/trend']);
    // the page ran no script and its one style applied under the CSP (the borders above are drawn by it)
    expect(await evaluate<number>(cdp, own.session, 'document.scripts.length')).toBe(0);

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
      ([l, b]) => `<div style="position:absolute;box-sizing:border-box;border:1px solid #8a94a6;left:${b.x + 3}px;top:${b.y}px;width:${b.w}px;height:${b.h}px">${l}</div>`,
    );
    const html = `<html><body style="margin:0">${cells.join('')}</body></html>`;
    const session = await openPage(cdp, `data:text/html;base64,${Buffer.from(html).toString('base64')}`);
    const shot = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png' }, session);
    const img = decodePng(Buffer.from(shot.data, 'base64'));
    const measured = measureCells(img, expected);
    const lefts = Object.values(measured).map((edges) => edges[0]!);
    expect(lefts.some(({ want, got }) => got === null || Math.abs(got - want) > TOLERANCE)).toBe(true);
    // and the unshifted tops are still found where they belong
    for (const edges of Object.values(measured)) expect(Math.abs(edges[1]!.got! - edges[1]!.want)).toBeLessThanOrEqual(TOLERANCE);
  });
});
