/**
 * Request rate limits: per account (every token of it together; unknown tokens and
 * anonymous callers per address) and a ceiling per address. The Worker's pipeline
 * (api.fetch) is handed the test-only RATE_LIMIT_LOW (3 a minute) and RATE_LIMIT_ADDRESS_LOW
 * (5 a minute) bindings (vitest.config.mts) in place of RATE_LIMIT and RATE_LIMIT_ADDRESS,
 * whose limits in this suite are out of reach.
 */
import { env } from 'cloudflare:workers';
import { createExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platformApi } from '../../../src/app';
import { addressKey, addressOf, callerKey, isOperator, retryAfterSeconds } from '../../../src/core/ratelimit';
import { makeUser, OPS } from '../helpers';

const api = platformApi();

const LOW = 3;
const ADDRESS_LOW = 5;
const low = env as unknown as { RATE_LIMIT_LOW: RateLimit; RATE_LIMIT_ADDRESS_LOW: RateLimit };
const lowEnv = { ...env, RATE_LIMIT: low.RATE_LIMIT_LOW, RATE_LIMIT_ADDRESS: low.RATE_LIMIT_ADDRESS_LOW } as Env;
/** Only the address ceiling is low: what an address hits whatever the per-caller count. */
const ceilingEnv = { ...env, RATE_LIMIT_ADDRESS: low.RATE_LIMIT_ADDRESS_LOW } as Env;

/** A request through the pipeline; from a fresh address unless `ip` is given (the address ceiling is low too). */
function send(
  path: string,
  { token, ip = freshIp(), method = 'GET', e = lowEnv }: { token?: string; ip?: string; method?: string; e?: Env } = {},
) {
  const headers = new Headers();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  headers.set('CF-Connecting-IP', ip);
  return api.fetch(new Request(`http://platform.test${path}`, { method, headers }), e, createExecutionContext());
}

const roundTrips = (res: Response) =>
  Number(/d1;desc="(\d+) round trips"/.exec(res.headers.get('Server-Timing') ?? '')?.[1]);

/** The binding counts in fixed minute windows: keep a test's burst inside one window. */
async function awayFromWindowEdge() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3_000) await new Promise((r) => setTimeout(r, left + 50));
}

let ipSeq = 0;
const randomByte = () => crypto.getRandomValues(new Uint8Array(1))[0]!;
const freshIp = () => `10.${randomByte()}.${randomByte()}.${++ipSeq % 250}`;
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
    expect(
      await env.DB.prepare('select 1 from resources r join users u on u.id = r.owner_id where u.username = ?')
        .bind(u.username)
        .first(),
    ).toBeNull();
  });

  it('different accounts are counted independently', async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    await awayFromWindowEdge();
    await statuses(LOW + 1, '/v1/whoami', { token: a.token });
    expect((await send('/v1/whoami', { token: a.token })).status).toBe(429);
    expect(await statuses(LOW, '/v1/whoami', { token: b.token })).toEqual([200, 200, 200]);
  });

  it("a second token of the same account shares the first's count (signing in again does not multiply the limit)", async () => {
    const u = await makeUser();
    const second = (
      (await (
        await api.fetch(
          new Request('http://platform.test/v1/token', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ username: u.username, password: u.password }),
          }),
          env,
          createExecutionContext(),
        )
      ).json()) as { token: string }
    ).token;
    await awayFromWindowEdge();
    expect(await statuses(2, '/v1/whoami', { token: u.token })).toEqual([200, 200]);
    expect((await send('/v1/whoami', { token: second })).status).toBe(200);
    expect((await send('/v1/whoami', { token: second })).status).toBe(429);
    expect((await send('/v1/whoami', { token: u.token })).status).toBe(429);
  });

  it("unknown tokens count against the caller's address: fresh random tokens from one address share one count", async () => {
    const ip = freshIp();
    await awayFromWindowEdge();
    const random = () => `bogus-${crypto.randomUUID()}`;
    const out: number[] = [];
    for (let i = 0; i < LOW + 1; i++) out.push((await send('/v1/whoami', { token: random(), ip })).status);
    expect(out).toEqual([401, 401, 401, 429]);
    // Anonymous requests from that address share the count; another address has its own.
    expect((await send('/v1/openapi.json', { ip })).status).toBe(429);
    expect((await send('/v1/whoami', { token: random() })).status).toBe(401);
  });

  it('random bearer tokens from one address hit the address ceiling, and a 429 there costs no D1 lookup', async () => {
    const ip = freshIp();
    await awayFromWindowEdge();
    const out: number[] = [];
    for (let i = 0; i < ADDRESS_LOW + 1; i++)
      out.push((await send('/v1/whoami', { token: `bogus-${crypto.randomUUID()}`, ip, e: ceilingEnv })).status);
    expect(out).toEqual([...Array(ADDRESS_LOW).fill(401), 429]);
    const over = await send('/v1/whoami', { token: `bogus-${crypto.randomUUID()}`, ip, e: ceilingEnv });
    expect(over.status).toBe(429);
    expect(roundTrips(over)).toBe(0);
    // The ceiling binds every caller of that address, a known account's token too.
    const u = await makeUser();
    expect((await send('/v1/whoami', { token: u.token, ip, e: ceilingEnv })).status).toBe(429);
    expect((await send('/v1/whoami', { token: u.token, e: ceilingEnv })).status).toBe(200);
  });

  it('accounts signed in from one address share its ceiling beside their own limits', async () => {
    const users = [await makeUser(), await makeUser(), await makeUser()];
    const ip = freshIp();
    await awayFromWindowEdge();
    const out: number[] = [];
    for (const u of users)
      for (let i = 0; i < 2; i++) out.push((await send('/v1/whoami', { token: u.token, ip })).status);
    expect(out).toEqual([200, 200, 200, 200, 200, 429]); // each account under 3, the address at 5
  });

  it("a known token's limit costs no D1 round trip beyond the route's own authentication (cached: none)", async () => {
    const u = await makeUser();
    await awayFromWindowEdge();
    await send('/v1/whoami', { token: u.token }); // warm in this isolate
    expect(roundTrips(await send('/v1/whoami', { token: u.token }))).toBe(0);
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

  it('keys: a known token counts under its account, anything else under the address; never a token', async () => {
    const req = new Request('http://x/', {
      headers: { Authorization: 'Bearer secret-token-value', 'CF-Connecting-IP': '203.0.113.7' },
    });
    expect(addressOf(req)).toBe('ip:203.0.113.7');
    expect(callerKey({ id: 42 }, addressOf(req))).toBe('u:42');
    expect(callerKey(null, addressOf(req))).toBe('ip:203.0.113.7');
    expect(addressOf(new Request('http://x/', { headers: { 'CF-Connecting-IP': '2001:db8:1:2:3:4:5:6' } }))).toBe(
      'ip:2001:db8:1:2::/64',
    );
    expect(isOperator(req, env)).toBe(false);
    expect(isOperator(new Request('http://x/', { headers: { Authorization: `Bearer ${OPS}` } }), env)).toBe(true);
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
