// Over real HTTP (what curl sends; a Request inside workerd cannot carry a HEAD body):
// HEAD with a body answers as GET would, without its body, on every kind of route, and the
// server keeps serving other callers (it used to answer 500 and restart the Worker).
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nudged } from './nudge';
// @ts-expect-error plain ESM helper shared with the bench
import { startPlatform } from '../../scripts/serve.mjs';

let server: { base: string; ops: string; stop: () => Promise<void> };

function raw(
  method: string,
  url: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const answer = new Promise<{ status: number; body: string }>((ok, fail) => {
    const r = http.request(
      url,
      {
        method,
        headers: { 'Content-Type': 'text/plain', 'Content-Length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    r.on('error', fail);
    r.end(body);
  });
  // Not through fetch (it cannot send a body with HEAD), so nudged here (test/e2e/nudge.ts).
  return nudged(answer, method, url);
}

beforeAll(async () => {
  server = await startPlatform();
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

describe('HEAD with a request body', () => {
  it('answers like GET without a body on anonymous, signed-in and unknown routes (never a 500)', async () => {
    const cases: [string, number][] = [
      ['/v1/whoami', 401],
      ['/v1/openapi.json', 200],
      ['/v1/no/such/route', 404],
      ['/v1//whoami/', 401],
    ];
    for (const [path, want] of cases) {
      const res = await raw('HEAD', server.base + path, 'x');
      expect(res.status, path).toBe(want);
      expect(res.body, path).toBe('');
    }
  });

  it('a 6 MiB body is ignored unread: the answer comes at once and other callers are unaffected', async () => {
    const t0 = Date.now();
    const [big, other] = await Promise.all([
      raw('HEAD', `${server.base}/v1/whoami`, Buffer.alloc(6 * 1024 * 1024, 0x61)),
      fetch(`${server.base}/v1/openapi.json`),
    ]);
    expect(big.status).toBe(401);
    expect(other.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((await fetch(`${server.base}/v1/openapi.json`)).status).toBe(200);
  });
});
