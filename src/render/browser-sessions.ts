/**
 * Browser Rendering sessions (`@cloudflare/puppeteer` over the BROWSER binding) for one
 * render each: with a keep-alive configured, an idle session is reused and released
 * afterwards for the next render of this isolate; without, every render launches a
 * browser and closes it.
 */
import type { Browser } from '@cloudflare/puppeteer';

/**
 * The puppeteer client, loaded at the first render: imported at the top, its 750 KiB would
 * be compiled and run at every start of the Worker, which mostly serves no render.
 */
const puppeteer = async () => (await import('@cloudflare/puppeteer')).default;

/** Sessions this isolate released (most recent last): the first candidates for reuse. */
const released: string[] = [];
const MAX_RELEASED = 4;

/**
 * How long an idle browser session is kept for reuse (the `BROWSER_KEEP_ALIVE_MS` var,
 * at most Browser Rendering's 10 minutes). Unset or 0: every render starts a browser and
 * closes it (nothing outlives the request; the local default).
 */
export function keepAliveMs(env: Env): number {
  const v = Number(env.BROWSER_KEEP_ALIVE_MS ?? 0);
  return Number.isFinite(v) && v > 0 ? Math.min(v, 600_000) : 0;
}

async function connectTo(env: Env, ids: string[]): Promise<Browser | null> {
  for (const id of ids) {
    try {
      return await (await puppeteer()).connect(env.BROWSER, id);
    } catch {
      // taken by another render, or gone: try the next one
    }
  }
  return null;
}

/** Closes the sessions this isolate keeps for reuse (tests, and anyone who wants them gone now). */
export async function closeReleasedSessions(env: Env): Promise<void> {
  for (const id of released.splice(0)) {
    const b = await connectTo(env, [id]);
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
  env: Env,
  signal: AbortSignal,
  fn: (b: Browser) => Promise<T>,
): Promise<{ value: T; session: 'reused' | 'new' }> {
  const keepAlive = keepAliveMs(env);
  let browser: Browser | null = null;
  if (keepAlive) {
    browser = await connectTo(env, released.splice(0).reverse());
    if (!browser) {
      try {
        const idle = (await (await puppeteer()).sessions(env.BROWSER))
          .filter((s) => !s.connectionId)
          .map((s) => s.sessionId);
        browser = await connectTo(env, idle);
      } catch {
        // session listing unavailable: launch
      }
    }
  }
  const session = browser ? 'reused' : 'new';
  browser ??= await (await puppeteer()).launch(env.BROWSER, keepAlive ? { keep_alive: keepAlive } : undefined);
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
