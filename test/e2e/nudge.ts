/**
 * A GET or HEAD that wrangler's proxy could not hand to the Worker's runtime (a connection
 * the runtime closed at that moment) is parked until the next request reaches the proxy
 * (docs/PERFORMANCE.md, "503"). The suite runs one file at a time, so a test awaiting such a
 * GET sends nothing else and would fail on its timeout. Every request of the suite is
 * therefore watched (fetch through `nudging`, node:http through `nudged`): once a GET or HEAD
 * to a loopback server has had no answer for 10 s, the same server is sent a GET of an
 * unknown path (a 404, no D1 work) every 5 s until it answers. Nothing is aborted. (The bench
 * does the same: bench/watchdog.mjs.)
 */
const FIRST_MS = 10_000;
const EVERY_MS = 5_000;

const absolute = (href: string): URL | null => {
  try {
    return new URL(href);
  } catch {
    return null;
  }
};

const loopback = (url: URL): boolean =>
  url.hostname === 'localhost' || url.hostname === '[::1]' || url.hostname.startsWith('127.');

/** `send`, with the nudge around every GET or HEAD to loopback (test/e2e/setup.ts installs it). */
export function nudging(send: typeof fetch, log: (line: string) => void = console.warn): typeof fetch {
  return (input, init) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    return watched(send(input, init), method, href, send, log);
  };
}

/** The answer of a request sent some other way (node:http), nudged the same way through `fetch`. */
export const nudged = <T>(answer: Promise<T>, method: string, href: string): Promise<T> =>
  watched(answer, method, href, fetch, console.warn);

function watched<T>(
  answer: Promise<T>,
  method: string,
  href: string,
  send: typeof fetch,
  log: (line: string) => void,
): Promise<T> {
  const url = absolute(href);
  if (!url || !['GET', 'HEAD'].includes(method.toUpperCase()) || !loopback(url)) return answer;
  const kick = () => {
    log(`e2e: no answer yet for ${method.toUpperCase()} ${url.pathname}: nudging ${url.origin}`);
    send(`${url.origin}/v1/e2e-nudge`)
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  };
  let every: ReturnType<typeof setInterval> | undefined;
  const first = setTimeout(() => {
    kick();
    every = setInterval(kick, EVERY_MS);
  }, FIRST_MS);
  const stop = () => {
    clearTimeout(first);
    clearInterval(every);
  };
  answer.then(stop, stop);
  return answer;
}
