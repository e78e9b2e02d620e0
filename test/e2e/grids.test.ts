/**
 * Grids over HTTP, drawn in a real headless Chromium (Debian's /usr/bin/chromium, driven
 * through the Chrome DevTools protocol): the dashboard page's cells must sit where the
 * parsed shares say, within a pixel, and a screenshot is kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { base, http, makeUser, unique } from './harness';

const CHROMIUM = '/usr/bin/chromium';
const VIEW = { width: 1200, height: 800 };
const TOLERANCE = 1.5; // px

// Uneven, nested three levels: rows, then columns, then rows and columns again.
const LAYOUT = [
  '+----------+-------------------+',
  '|  {A:^}   |       {B}         |',
  '|          +---------+---------+',
  '|          |  {C:v}  |   {D}   |',
  '+----------+---------+---------+',
  '|              {E}             |',
  '|                              |',
  '+------------------------------+',
].join('\n');
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

/** Expected pixel boxes from data.json alone: each child's share of its parent. */
function expectedBoxes(root: Node, width: number, height: number): Box[] {
  const out: Box[] = [];
  const visit = (n: Node, x: number, y: number, w: number, h: number, path: string) => {
    if (!n.children.length) return out.push({ path, x, y, w, h });
    const stacked = n.children.length > 1 && n.children.every((c) => c.width === n.width);
    let offset = 0;
    n.children.forEach((c, i) => {
      const p = path ? `${path}.${i}` : `${i}`;
      if (stacked) visit(c, x, y + offset, w, (h * c.height) / n.height, p);
      else visit(c, x + offset, y, (w * c.width) / n.width, h, p);
      offset += stacked ? (h * c.height) / n.height : (w * c.width) / n.width;
    });
  };
  visit(root, 0, 0, width, height, '');
  return out;
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
  it('draws each cell at its parsed share (within 1.5 px), at the owner path and the public url, and keeps a screenshot', async () => {
    const u = await makeUser();
    const name = unique('g');
    const g = `/v1/vis/grids/${name}`;
    expect((await http('PUT', g, { token: u.token })).status).toBe(201);
    expect((await http('POST', `${g}/mapping`, { token: u.token, text: MAPPING })).status).toBe(204);
    expect((await http('POST', `${g}/layout`, { token: u.token, text: LAYOUT })).status).toBe(204);
    const data = (await (await http('GET', `${g}/json/data.json`, { token: u.token })).json()) as { structure: Node };
    const expected = expectedBoxes(data.structure, VIEW.width, VIEW.height);
    expect(expected).toHaveLength(5);

    const cdp = await launch();
    try {
      const measure = async (url: string, headers?: Record<string, string>) => {
        const session = await openPage(cdp, url, headers);
        const boxes = await evaluate<(Box & { text: string })[]>(
          cdp,
          session,
          `[...document.querySelectorAll('.cell')].map((e) => { const r = e.getBoundingClientRect(); return { path: e.dataset.path, x: r.x, y: r.y, w: r.width, h: r.height, text: e.innerText }; })`,
        );
        return { session, boxes };
      };
      const own = await measure(base() + `${g}/html`, { Authorization: `Bearer ${u.token}` });
      expect(own.boxes.map((b) => b.path)).toEqual(expected.map((b) => b.path));
      own.boxes.forEach((got, i) => {
        const want = expected[i]!;
        for (const k of ['x', 'y', 'w', 'h'] as const) expect(Math.abs(got[k] - want[k]), `${got.path}.${k}: ${got[k]} vs ${want[k]}`).toBeLessThanOrEqual(TOLERANCE);
      });
      // what each cell shows: label, position, plot; D has no mapping line and is empty
      expect(own.boxes.map((b) => b.text.replace(/\s+/g, ' ').trim())).toEqual([
        'A top /u/ann/p/sales',
        'B middle /u/ann/p/costs',
        'C bottom /u/ann/p/<b>',
        'empty',
        'E middle /u/ann/p/trend',
      ]);
      // the page ran no script and its one style applied under the CSP (cells are placed, not stacked)
      expect(await evaluate<number>(cdp, own.session, 'document.scripts.length')).toBe(0);

      const shot = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png' }, own.session);
      const png = Buffer.from(shot.data, 'base64');
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([VIEW.width, VIEW.height]);
      const file = join(tmpdir(), 'grids-dashboard.png');
      writeFileSync(file, png);
      console.log(`grids: screenshot of the dashboard written to ${file}`);

      // the public url: anonymous once shared publicly, 404 before
      const pub = base() + `/v1/u/${u.username}/g/${name}/html`;
      expect((await http('GET', `/v1/u/${u.username}/g/${name}/html`)).status).toBe(404);
      expect((await http('POST', '/v1/admin/profile/public', { token: u.token, text: 'yes' })).status).toBeLessThan(300);
      expect((await http('PUT', `${g}/shared/public`, { token: u.token })).status).toBe(201);
      const anon = await measure(pub);
      expect(anon.boxes.map(({ x, y, w, h }) => [x, y, w, h])).toEqual(own.boxes.map(({ x, y, w, h }) => [x, y, w, h]));
    } finally {
      await cdp.send('Browser.close').catch(() => undefined);
      cdp.close();
    }
  });
});
