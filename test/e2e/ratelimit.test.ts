/**
 * The default rate limit of `npm start` (wrangler.toml: 1000 requests a minute per account, 5000 per address)
 * over real HTTP, on a server of its own started with the default configuration (the
 * shared e2e server runs with RATE_LIMITING:off).
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { startPlatform } from '../../scripts/serve.mjs';

const LIMIT = 1000;

async function burst(n: number, send: () => Promise<Response>, concurrency = 16): Promise<number[]> {
  const out: number[] = [];
  let left = n;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const res = await send();
        await res.body?.cancel();
        out.push(res.status);
      }
    }),
  );
  return out;
}

describe('rate limits as npm start configures them', () => {
  it('a token gets 1000 requests a minute, then 429 with Retry-After; another token and the operator are not affected', async () => {
    const server = await startPlatform();
    try {
      const json = { 'Content-Type': 'application/json' };
      const token = async (name: string) => {
        await fetch(`${server.base}/v1/ops/users/${name}`, {
          method: 'PUT',
          headers: { ...json, Authorization: `Bearer ${server.ops}` },
          body: JSON.stringify({ password: `pw-${name}` }),
        });
        const res = await fetch(`${server.base}/v1/token`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ username: name, password: `pw-${name}` }),
        });
        return ((await res.json()) as { token: string }).token;
      };
      const [a, b] = [await token('limited'), await token('other')];
      // The limit counts in minute windows: start the burst with the window's most part ahead.
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 25_000) await new Promise((r) => setTimeout(r, left + 100));
      const whoami = (t: string) => () =>
        fetch(`${server.base}/v1/whoami`, { headers: { Authorization: `Bearer ${t}` } });

      const statuses = await burst(LIMIT, whoami(a));
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      const over = await whoami(a)();
      expect(over.status).toBe(429);
      const body = (await over.json()) as { status: number; retry_after_seconds: number };
      expect(body.status).toBe(429);
      expect(over.headers.get('Retry-After')).toBe(String(body.retry_after_seconds));
      expect((await whoami(b)()).status).toBe(200);
      expect(
        (await fetch(`${server.base}/v1/ops/outbox`, { headers: { Authorization: `Bearer ${server.ops}` } })).status,
      ).toBe(200);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
