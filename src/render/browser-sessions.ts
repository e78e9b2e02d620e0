/**
 * Browser Rendering sessions (`@cloudflare/puppeteer` over the BROWSER binding the Worker
 * hands in: render/browser.ts) for one render each: with a keep-alive configured, an idle
 * session is reused and released afterwards for the next render of this isolate; without,
 * every render launches a browser and closes it. Runs in the browser isolate
 * (isolates/browser.ts), never in the Worker.
 */
import puppeteer, { type Browser, type BrowserWorker, type Page, type Viewport } from '@cloudflare/puppeteer';

/** Longest a browser step may take before the render fails. */
const STEP_TIMEOUT_MS = 30_000;

/** Sessions this isolate released (most recent last): the first candidates for reuse. */
const released: string[] = [];
const MAX_RELEASED = 4;

async function connectTo(browser: BrowserWorker, ids: string[]): Promise<Browser | null> {
  for (const id of ids) {
    try {
      return await puppeteer.connect(browser, id);
    } catch {
      // taken by another render, or gone: try the next one
    }
  }
  return null;
}

/** Closes the sessions this isolate keeps for reuse (tests, and anyone who wants them gone now). */
export async function closeReleasedSessions(browser: BrowserWorker): Promise<void> {
  for (const id of released.splice(0)) {
    const b = await connectTo(browser, [id]);
    await b?.close().catch(() => undefined);
  }
}

/**
 * A browser session for one render. With a keep-alive configured: a session this isolate
 * released, else an idle kept-alive one, else a new one; afterwards it is released with
 * disconnect (up to a few per isolate; others are closed). Without: launch, then close.
 * An abort (the render deadline) closes the browser, which fails whatever step is running.
 */
export async function withBrowser<T>(
  endpoint: BrowserWorker,
  keepAlive: number,
  signal: AbortSignal,
  fn: (b: Browser) => Promise<T>,
): Promise<{ value: T; session: 'reused' | 'new' }> {
  let browser: Browser | null = null;
  if (keepAlive) {
    browser = await connectTo(endpoint, released.splice(0).reverse());
    if (!browser) {
      try {
        const idle = (await puppeteer.sessions(endpoint)).filter((s) => !s.connectionId).map((s) => s.sessionId);
        browser = await connectTo(endpoint, idle);
      } catch {
        // session listing unavailable: launch
      }
    }
  }
  const session = browser ? 'reused' : 'new';
  browser ??= await puppeteer.launch(endpoint, keepAlive ? { keep_alive: keepAlive } : undefined);
  const b = browser;
  const abort = () => void b.close().catch(() => undefined);
  if (signal.aborted) abort();
  signal.addEventListener('abort', abort);
  let healthy = false;
  try {
    const value = await fn(b);
    healthy = true;
    return { value, session };
  } finally {
    signal.removeEventListener('abort', abort);
    try {
      if (keepAlive && healthy && released.length < MAX_RELEASED) {
        const id = b.sessionId();
        b.disconnect();
        released.push(id);
      } else await b.close();
    } catch {
      // already gone
    }
  }
}

/**
 * A new page of `browser` showing `html` at `viewport`, JavaScript off (what is rendered is
 * the platform's own markup and drawings: no script of a user runs), for `fn`; closed after.
 */
export async function withStaticPage<T>(
  browser: Browser,
  viewport: Viewport,
  html: string,
  fn: (page: Page) => Promise<T>,
): Promise<T> {
  const page = await browser.newPage();
  try {
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    await page.setJavaScriptEnabled(false);
    await page.setViewport(viewport);
    await page.setContent(html, { waitUntil: 'load', timeout: STEP_TIMEOUT_MS });
    return await fn(page);
  } finally {
    await page.close().catch(() => undefined);
  }
}
