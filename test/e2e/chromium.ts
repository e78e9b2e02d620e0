/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven over the Chrome DevTools protocol,
 * for every e2e test that looks at a page in a real browser.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';
import { afterAll, beforeAll } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';

export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

/** A minimal DevTools-protocol client over the browser's WebSocket; keeps every event it saw. */
export class Cdp {
  private id = 0;
  private pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  readonly events: CdpEvent[] = [];
  private constructor(private ws: WebSocket) {
    ws.addEventListener('message', (ev) => {
      const msg = JSON.parse(String(ev.data)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
        method?: string;
        params?: Record<string, unknown>;
        sessionId?: string;
      };
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p?.fail(new Error(msg.error.message));
        else p?.ok(msg.result);
      } else if (msg.method)
        this.events.push({ method: msg.method, params: msg.params ?? {}, sessionId: msg.sessionId });
    });
    // A browser that goes away (Browser.close may end the socket before it answers) fails
    // every call still waiting instead of leaving it hanging.
    ws.addEventListener('close', () => {
      for (const p of this.pending.values()) p.fail(new Error('the browser closed the DevTools connection'));
      this.pending.clear();
    });
  }
  static open(url: string): Promise<Cdp> {
    return new Promise((ok, fail) => {
      const ws = new WebSocket(url);
      ws.addEventListener('open', () => ok(new Cdp(ws)));
      ws.addEventListener('error', () => fail(new Error(`cannot connect to ${url}`)));
    });
  }
  send<T = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<T> {
    const id = ++this.id;
    return new Promise((ok, fail) => {
      if (this.ws.readyState !== WebSocket.OPEN) return fail(new Error(`${method}: the DevTools connection is closed`));
      this.pending.set(id, { ok: ok as (v: unknown) => void, fail });
      this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }
  close() {
    this.ws.close();
  }
}

export interface Browser {
  cdp: Cdp;
  stop: () => Promise<void>;
}

export async function launchChromium(view: { width: number; height: number }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'e2e-chromium-'));
  const child: ChildProcess = spawn(
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
      `--window-size=${view.width},${view.height}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const stop = async () => {
    // started in its own process group: end that group (renderers included)
    if (child.pid && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const wsUrl = await new Promise<string>((ok, fail) => {
      let err = '';
      const timer = setTimeout(() => fail(new Error(`chromium did not start: ${err}`)), 45_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          ok(m[1]!);
        }
      });
      child.on('exit', (code) => fail(new Error(`chromium exited (${code}): ${err}`)));
    });
    return { cdp: await Cdp.open(wsUrl), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A tab at `view`, with network, page, runtime and log events on. */
export async function newTab(cdp: Cdp, view: { width: number; height: number }): Promise<string> {
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  await cdp.send('Emulation.setDeviceMetricsOverride', { ...view, deviceScaleFactor: 1, mobile: false }, sessionId);
  for (const domain of ['Network', 'Page', 'Runtime', 'Log']) await cdp.send(`${domain}.enable`, {}, sessionId);
  return sessionId;
}

/**
 * Opens `url` in a fresh tab at `view` (with extra request headers) and waits for its load event; returns the tab's
 * session.
 */
export async function openPage(
  cdp: Cdp,
  view: { width: number; height: number },
  url: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const sessionId = await newTab(cdp, view);
  await cdp.send('Network.setExtraHTTPHeaders', { headers }, sessionId);
  const seen = cdp.events.length;
  await cdp.send('Page.navigate', { url }, sessionId);
  const loaded = () =>
    cdp.events.slice(seen).some((e) => e.method === 'Page.loadEventFired' && e.sessionId === sessionId);
  for (const deadline = Date.now() + 30_000; !loaded(); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out loading ${url}`);
  }
  return sessionId;
}

export async function evaluate<T>(cdp: Cdp, sessionId: string, expression: string): Promise<T> {
  const r = await cdp.send<{ result: { value: T }; exceptionDetails?: { text: string } }>(
    'Runtime.evaluate',
    { expression, returnByValue: true, awaitPromise: true },
    sessionId,
  );
  if (r.exceptionDetails) throw new Error(`evaluate: ${r.exceptionDetails.text}: ${expression}`);
  return r.result.value;
}

/** Polls `expression` until it is truthy (or fails after `ms`). */
export async function waitFor<T>(
  cdp: Cdp,
  sessionId: string,
  expression: string,
  what: string,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await evaluate<T>(cdp, sessionId, expression);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Brings the element into view the way a user would: an element inside a scrolling box
 * (a sidebar) is scrolled within that box only, since scrolling the page as well makes
 * scroll-spying pages (Scalar's) move the sidebar back to the section now in view; the
 * page itself scrolls only when the element is still outside the window.
 */
const reveal = (elementExpr: string) => `(() => {
  const e = ${elementExpr};
  if (!e) return false;
  for (let p = e.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
    const o = getComputedStyle(p).overflowY;
    if ((o === 'auto' || o === 'scroll') && p.scrollHeight > p.clientHeight) {
      const b = e.getBoundingClientRect(), c = p.getBoundingClientRect();
      p.scrollTop += b.top + b.height / 2 - (c.top + c.height / 2);
      break;
    }
  }
  const b = e.getBoundingClientRect();
  if (b.top < 0 || b.bottom > innerHeight || b.left < 0 || b.right > innerWidth) e.scrollIntoView({ block: 'center' });
  return true;
})()`;

/**
 * Clicks the centre of the element `elementExpr` (a JS expression answering an Element) with
 * the mouse, once it has stayed put for 300 ms and the point is really the element's (in the
 * window, not covered by anything): a mouse event anywhere else would be lost silently.
 */
export async function click(
  cdp: Cdp,
  sessionId: string,
  elementExpr: string,
  what: string,
  ms = 20_000,
): Promise<void> {
  await waitFor(cdp, sessionId, reveal(elementExpr), what, ms);
  const centre = `(() => { const e = ${elementExpr}; if (!e) return null; const b = e.getBoundingClientRect(); const x = b.x + b.width / 2, y = b.y + b.height / 2; const hit = document.elementFromPoint(x, y); return { x, y, hit: !!hit && (e === hit || e.contains(hit)) }; })()`;
  const deadline = Date.now() + ms;
  let at = await evaluate<{ x: number; y: number; hit: boolean } | null>(cdp, sessionId, centre);
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await evaluate<{ x: number; y: number; hit: boolean } | null>(cdp, sessionId, centre);
    if (now && at && now.x === at.x && now.y === at.y && now.hit) {
      at = now;
      break;
    }
    if (Date.now() > deadline)
      throw new Error(
        now ? `${what} never stayed put, in view and uncovered (at ${JSON.stringify(now)})` : `${what} is gone`,
      );
    // Lazily rendered content moved it, or the page scrolled it away again: bring it back.
    if (!now?.hit) await evaluate(cdp, sessionId, reveal(elementExpr));
    at = now;
  }
  for (const type of ['mousePressed', 'mouseReleased'])
    await cdp.send('Input.dispatchMouseEvent', { type, x: at.x, y: at.y, button: 'left', clickCount: 1 }, sessionId);
}

/** What a tab reported since event `seen`: uncaught exceptions and console entries of `levels` (policy violations among them). */
export function pageProblems(
  cdp: Cdp,
  sessionId: string,
  seen: number,
  levels: readonly string[] = ['error'],
): string[] {
  return cdp.events
    .slice(seen)
    .filter(
      (e) =>
        e.sessionId === sessionId &&
        (e.method === 'Runtime.exceptionThrown' ||
          (e.method === 'Log.entryAdded' && levels.includes((e.params.entry as { level: string }).level))),
    )
    .map((e) => JSON.stringify(e.params).slice(0, 300));
}

/**
 * One Chromium for the tests of the calling `describe`: launched before them at `view`, stopped after them. The
 * returned function gives its DevTools connection.
 */
export function chromiumForSuite(view: { width: number; height: number }): () => Cdp {
  let chrome: Browser | undefined;
  beforeAll(async () => {
    chrome = await launchChromium(view);
  });
  afterAll(async () => {
    chrome?.cdp.close();
    await chrome?.stop();
  });
  return () => chrome!.cdp;
}
