/**
 * Per-caller rate limits (issue 17, item 3). The Worker's pipeline (api.fetch) is handed the
 * test-only RATE_LIMIT_LOW binding (3 requests a minute, vitest.config.mts) in place of
 * RATE_LIMIT, whose limit in this suite is out of reach.
 */
import { env } from 'cloudflare:workers';
import { createExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api } from '../../../src/app';
import { sha256Hex } from '../../../src/core/crypto';
import { addressKey, rateLimitKey, retryAfterSeconds } from '../../../src/core/ratelimit';
import { makeUser, OPS } from '../helpers';

const LOW = 3;
const lowEnv = { ...env, RATE_LIMIT: (env as unknown as { RATE_LIMIT_LOW: RateLimit }).RATE_LIMIT_LOW } as Env;

function send(path: string, { token, ip, method = 'GET', e = lowEnv }: { token?: string; ip?: string; method?: string; e?: Env } = {}) {
  const headers = new Headers();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  if (ip) headers.set('CF-Connecting-IP', ip);
  return api.fetch(new Request(`http://platform.test${path}`, { method, headers }), e, createExecutionContext());
}

/** The binding counts in fixed minute windows: keep a test's burst inside one window. */
async function awayFromWindowEdge() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3_000) await new Promise((r) => setTimeout(r, left + 50));
}

let ipSeq = 0;
const freshIp = () => `198.51.100.${(Date.now() % 200) + ++ipSeq}`;
const freshV6 = () => `2001:db8:${(Date.now() % 0xffff).toString(16)}:${(++ipSeq).toString(16)}::1`;

async function statuses(n: number, path: string, o: Parameters<typeof send>[1]) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send(path, o)).status);
  return out;
}

describe('rate limits', () => {
  it('a token over its limit gets 429 with Retry-After and {status, message, retry_after_seconds}', async () => {
    const u = await makeUser();
    await awayFromWindowEdge();
    expect(await statuses(LOW, '/v1/whoami', { token: u.token })).toEqual([200, 200, 200]);
    const res = await send('/v1/whoami', { token: u.token });
    expect(res.status).toBe(429);
    const body = (await res.json()) as { status: number; message: string; retry_after_seconds: number };
    expect(body).toMatchObject({ status: 429, message: expect.stringMatching(/rate limit/) });
    expect(Number.isInteger(body.retry_after_seconds)).toBe(true);
    expect(body.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(body.retry_after_seconds).toBeLessThanOrEqual(60);
    expect(res.headers.get('Retry-After')).toBe(String(body.retry_after_seconds));
    expect(res.headers.get('Content-Type')).toMatch(/application\/json/);
  });

  it('is checked before routing: over the limit, an unknown path and a write answer 429 too', async () => {
    const u = await makeUser();
    await awayFromWindowEdge();
    await statuses(LOW, '/v1/whoami', { token: u.token });
    expect((await send('/v1/no-such-route', { token: u.token })).status).toBe(429);
    expect((await send('/v1/vis/docs/limited', { token: u.token, method: 'PUT' })).status).toBe(429);
    expect(await env.DB.prepare('select 1 from resources r join users u on u.id = r.owner_id where u.username = ?').bind(u.username).first()).toBeNull();
  });

  it('different tokens are counted independently', async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    await awayFromWindowEdge();
    await statuses(LOW + 1, '/v1/whoami', { token: a.token });
    expect((await send('/v1/whoami', { token: a.token })).status).toBe(429);
    expect(await statuses(LOW, '/v1/whoami', { token: b.token })).toEqual([200, 200, 200]);
  });

  it('an unknown token is counted like a known one (401 until the limit, then 429)', async () => {
    await awayFromWindowEdge();
    const bogus = `bogus-${crypto.randomUUID()}`;
    expect(await statuses(LOW + 1, '/v1/whoami', { token: bogus })).toEqual([401, 401, 401, 429]);
  });

  it('anonymous callers are counted by their IP (CF-Connecting-IP), each IP on its own', async () => {
    const [x, y] = [freshIp(), freshIp()];
    await awayFromWindowEdge();
    expect(await statuses(LOW + 1, '/v1/openapi.json', { ip: x })).toEqual([200, 200, 200, 429]);
    expect(await statuses(LOW, '/v1/openapi.json', { ip: y })).toEqual([200, 200, 200]);
    // A signed-in caller on the same address has its own count.
    const u = await makeUser();
    expect((await send('/v1/whoami', { token: u.token, ip: x })).status).toBe(200);
  });

  it('an IPv6 caller is counted by its /64: another address of the same /64 shares the count', async () => {
    const ip = freshV6();
    const sibling = ip.replace(/::1$/, '::beef');
    await awayFromWindowEdge();
    expect(await statuses(LOW, '/v1/openapi.json', { ip })).toEqual([200, 200, 200]);
    expect((await send('/v1/openapi.json', { ip: sibling })).status).toBe(429);
  });

  it('the operator token is exempt', async () => {
    await awayFromWindowEdge();
    expect(new Set(await statuses(LOW * 3, '/v1/ops/outbox', { token: OPS }))).toEqual(new Set([200]));
    expect(new Set(await statuses(LOW * 3, '/v1/openapi.json', { token: OPS }))).toEqual(new Set([200]));
  });

  it('RATE_LIMITING = "off" switches the limits off', async () => {
    const off = { ...lowEnv, RATE_LIMITING: 'off' } as Env;
    const ip = freshIp();
    await awayFromWindowEdge();
    expect(new Set(await statuses(LOW * 2, '/v1/openapi.json', { ip, e: off }))).toEqual(new Set([200]));
  });

  it('the key of a token is its SHA-256, never the token itself', async () => {
    const token = 'secret-token-value';
    const key = await rateLimitKey(new Request('http://x/', { headers: { Authorization: `Bearer ${token}` } }), env);
    expect(key).toBe(`t:${await sha256Hex(token)}`);
    expect(key).not.toContain(token);
    expect(await rateLimitKey(new Request('http://x/', { headers: { Authorization: `Bearer ${OPS}` } }), env)).toBeNull();
    expect(await rateLimitKey(new Request('http://x/', { headers: { 'CF-Connecting-IP': '203.0.113.7' } }), env)).toBe('ip:203.0.113.7');
  });

  it('addresses: IPv4 as is, IPv6 as its /64, none as "unknown"', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8:0001::1')).toBe('2001:db8:1:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey(null)).toBe('unknown');
  });

  it('Retry-After is the time left in the current window, at least one second', () => {
    expect(retryAfterSeconds(60_000 * 5)).toBe(60);
    expect(retryAfterSeconds(60_000 * 5 + 59_500)).toBe(1);
    expect(retryAfterSeconds(60_000 * 5 + 30_000)).toBe(30);
  });
});
