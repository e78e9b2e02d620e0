/**
 * Sign-in and tokens: the per-username throttle of failed sign-ins, the cap on an account's
 * live tokens, the revocation of every token when the operator sets a new password, and
 * tokens a person manages: listed, revoked by name, expiring (by date and by idleness),
 * their last use written at most once a day, and the read scope refused on every route
 * that writes (a table over the OpenAPI document).
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNIN_MAX_FAILURES, SIGNIN_WINDOW_MS } from '../../../src/accounts/signin-throttle';
import { MAX_TOKENS_PER_ACCOUNT } from '../../../src/accounts/users';
import { platformApi } from '../../../src/app';
import { forgetUser } from '../../../src/core/auth';
import { setClockOffset } from '../../../src/core/clock';
import { dbFor } from '../../../src/core/context';
import { DEFAULT_TOKEN_IDLE_DAYS, sweepExpiredTokens } from '../../../src/core/tokens';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';

afterEach(() => setClockOffset(0));

const signIn = (username: string, password: string) => call('POST', '/v1/token', { json: { username, password } });

async function failures(username: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await signIn(username, `wrong-${i}`)).status);
  return out;
}

async function lockedOut(res: Response) {
  expect(res.status).toBe(429);
  const body = (await res.json()) as { status: number; message: string; retry_after_seconds: number };
  expect(body).toMatchObject({ status: 429, message: expect.stringMatching(/too many failed sign-ins/) });
  expect(body.retry_after_seconds).toBeGreaterThan(0);
  expect(body.retry_after_seconds).toBeLessThanOrEqual(SIGNIN_WINDOW_MS / 1000);
  expect(res.headers.get('Retry-After')).toBe(String(body.retry_after_seconds));
  return body;
}

describe('failed sign-ins are throttled per username', () => {
  it('the 11th failed sign-in within 15 minutes answers 429 with Retry-After, for an existing username', async () => {
    const u = await makeUser();
    expect(await failures(u.username, SIGNIN_MAX_FAILURES)).toEqual(Array(SIGNIN_MAX_FAILURES).fill(401));
    await lockedOut(await signIn(u.username, 'wrong-again'));
  });

  it('the 11th failed sign-in answers 429 for a username no account has, alike (existence is not revealed)', async () => {
    const ghost = unique('ghost');
    expect(await failures(ghost, SIGNIN_MAX_FAILURES)).toEqual(Array(SIGNIN_MAX_FAILURES).fill(401));
    const body = await lockedOut(await signIn(ghost, 'wrong-again'));
    expect(Object.keys(body).sort()).toEqual(['code', 'message', 'request_id', 'retry_after_seconds', 'status']);
  });

  it('during the lockout the right password answers 429 too; once the window is over it signs in', async () => {
    const u = await makeUser();
    await failures(u.username, SIGNIN_MAX_FAILURES);
    await lockedOut(await signIn(u.username, u.password));
    setClockOffset(SIGNIN_WINDOW_MS + 1000);
    expect((await signIn(u.username, u.password)).status).toBe(200);
  });

  it('a successful sign-in clears the count', async () => {
    const u = await makeUser();
    await failures(u.username, SIGNIN_MAX_FAILURES - 1);
    expect((await signIn(u.username, u.password)).status).toBe(200);
    expect(await failures(u.username, SIGNIN_MAX_FAILURES)).toEqual(Array(SIGNIN_MAX_FAILURES).fill(401));
    expect((await signIn(u.username, 'wrong-again')).status).toBe(429);
  });

  it("one username's failures do not lock another; tokens already issued keep working", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    await failures(a.username, SIGNIN_MAX_FAILURES + 1);
    expect((await signIn(b.username, b.password)).status).toBe(200);
    expect((await call('GET', '/v1/whoami', { token: a.token })).status).toBe(200);
  });

  it('a username that cannot exist (bad syntax) answers 401 and stores no count', async () => {
    const bad = `Bad-${unique('x')}`;
    expect(await failures(bad, SIGNIN_MAX_FAILURES + 1)).toEqual(Array(SIGNIN_MAX_FAILURES + 1).fill(401));
    expect(await env.DB.prepare('select 1 from signin_failures where username = ?').bind(bad).first()).toBeNull();
  });
});

describe('an account holds at most 100 live tokens', () => {
  it('the sign-in beyond the cap answers 409 naming the cap and POST /v1/logout; a logout frees one', async () => {
    const u = await makeUser(); // one token
    const id = (await env.DB.prepare('select id from users where username = ?')
      .bind(u.username)
      .first<{ id: number }>())!.id;
    const now = new Date().toISOString();
    const fill = Array.from({ length: MAX_TOKENS_PER_ACCOUNT - 1 }, (_, i) =>
      env.DB.prepare("insert into tokens (user_id, token_hash, name, created_on) values (?, ?, 'filler', ?)").bind(
        id,
        `filler-${u.username}-${i}`,
        now,
      ),
    );
    await env.DB.batch(fill);
    const res = await signIn(u.username, u.password);
    expect(res.status).toBe(409);
    const body = (await res.json()) as { status: number; message: string };
    expect(body.message).toContain(String(MAX_TOKENS_PER_ACCOUNT));
    expect(body.message).toContain('POST /v1/logout');
    expect(
      (await env.DB.prepare('select count(*) n from tokens where user_id = ?').bind(id).first<{ n: number }>())!.n,
    ).toBe(MAX_TOKENS_PER_ACCOUNT);
    expect((await call('POST', '/v1/logout', { token: u.token })).status).toBe(204);
    expect((await signIn(u.username, u.password)).status).toBe(200);
    expect((await signIn(u.username, u.password)).status).toBe(409);
  });
});

describe('a password change through the operator interface revokes every token of the account', () => {
  it('old tokens answer 401 at once; the old password no longer signs in, the new one does', async () => {
    const u = await makeUser();
    const second = (
      (await (
        await call('POST', '/v1/token', {
          json: { username: u.username, password: u.password, token_name: 'ro', scope: 'read', expires_in_days: 9 },
        })
      ).json()) as { token: string }
    ).token;
    for (const t of [u.token, second]) expect((await call('GET', '/v1/whoami', { token: t })).status).toBe(200); // cached in this isolate
    expect(
      (await call('PUT', `/v1/ops/users/${u.username}`, { token: OPS, json: { password: 'a new password' } })).status,
    ).toBe(200);
    for (const t of [u.token, second]) expect((await call('GET', '/v1/whoami', { token: t })).status).toBe(401);
    expect(
      (await env.DB.prepare('select count(*) n from tokens t join users u on u.id = t.user_id where u.username = ?')
        .bind(u.username)
        .first<{ n: number }>())!.n,
    ).toBe(0);
    expect((await signIn(u.username, u.password)).status).toBe(401);
    expect((await signIn(u.username, 'a new password')).status).toBe(200);
  });

  it('an update without a password keeps the tokens', async () => {
    const u = await makeUser();
    expect((await call('PUT', `/v1/ops/users/${u.username}`, { token: OPS, json: { plan: 'premium' } })).status).toBe(
      200,
    );
    expect((await call('GET', '/v1/whoami', { token: u.token })).status).toBe(200);
  });
});

const DAY = 86_400_000;

interface Listed {
  token_name: string;
  token_description: string;
  created_on: string;
  last_used_on: string | null;
  expires_on: string | null;
  scope: 'full' | 'read';
  expired: boolean;
}

/** Signs in for a further token of `u` with these token fields; answers the token. */
async function another(u: TestUser, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await call('POST', '/v1/token', { json: { username: u.username, password: u.password, ...fields } });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function listed(token: string): Promise<Listed[]> {
  const res = await call('GET', '/v1/tokens', { token });
  expect(res.status).toBe(200);
  return (await res.json()) as Listed[];
}

const userId = async (username: string) =>
  (await env.DB.prepare('select id from users where username = ?').bind(username).first<{ id: number }>())!.id;

/** A token's stored last use, once the request's waitUntil has written it (polled: it runs after the answer). */
async function lastUse(token: string, until: (v: string | null) => boolean = () => true): Promise<string | null> {
  const hash = [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
  let v: string | null = null;
  for (let i = 0; i < 50; i++) {
    v = (await env.DB.prepare('select last_used_on v from tokens where token_hash = ?').bind(hash).first<{
      v: string | null;
    }>())!.v;
    if (until(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  return v;
}

async function errorOf(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  return ((await res.json()) as { message: string }).message;
}

describe("GET /v1/tokens lists the caller's tokens, never their secrets", () => {
  it('each token with its name, description, created_on, last_used_on, expires_on and scope', async () => {
    const u = await makeUser();
    const ci = await another(u, {
      token_name: 'ci',
      token_description: 'the build',
      scope: 'read',
      expires_in_days: 30,
    });
    const res = await call('GET', '/v1/tokens', { token: u.token });
    const text = await res.clone().text();
    expect(text).not.toContain(u.token);
    expect(text).not.toContain(ci);
    expect(text).not.toContain('hash');
    const list = (await res.json()) as Listed[];
    expect(list.map((t) => t.token_name)).toEqual(['default', 'ci']);
    expect(list[0]).toMatchObject({ token_description: '', scope: 'full', expires_on: null, expired: false });
    expect(list[1]).toMatchObject({
      token_description: 'the build',
      scope: 'read',
      last_used_on: null,
      expired: false,
    });
    expect(Object.keys(list[1]!).sort()).toEqual(
      ['created_on', 'expired', 'expires_on', 'last_used_on', 'scope', 'token_description', 'token_name'].sort(),
    );
    const expires = Date.parse(list[1]!.expires_on!) - Date.parse(list[1]!.created_on);
    expect(expires).toBe(30 * DAY);
    // Another account's tokens are not listed.
    const other = await makeUser();
    expect((await listed(other.token)).map((t) => t.token_name)).toEqual(['default']);
  });

  it('POST /v1/token answers the scope and expiry; refuses a bad scope or lifetime with 400', async () => {
    const u = await makeUser();
    const res = await call('POST', '/v1/token', {
      json: { username: u.username, password: u.password, scope: 'read', expires_in_days: 7 },
    });
    expect(await res.json()).toMatchObject({ token_name: 'default', scope: 'read', expires_on: expect.any(String) });
    for (const bad of [
      { scope: 'admin' },
      { expires_in_days: 0 },
      { expires_in_days: 1.5 },
      { expires_in_days: 'x' },
    ]) {
      const r = await call('POST', '/v1/token', { json: { username: u.username, password: u.password, ...bad } });
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
  });
});

describe('DELETE /v1/tokens/<token_name> revokes a token of the caller', () => {
  it('the revoked token answers 401 at once; the others keep working', async () => {
    const u = await makeUser();
    const laptop = await another(u, { token_name: 'laptop' });
    expect((await call('GET', '/v1/whoami', { token: laptop })).status).toBe(200); // cached in this isolate
    expect((await call('DELETE', '/v1/tokens/laptop', { token: u.token })).status).toBe(204);
    expect((await call('GET', '/v1/whoami', { token: laptop })).status).toBe(401);
    expect((await call('GET', '/v1/whoami', { token: u.token })).status).toBe(200);
    expect((await listed(u.token)).map((t) => t.token_name)).toEqual(['default']);
  });

  it("404 for a name the caller has no token of, another account's included (that token keeps working)", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    await another(b, { token_name: 'bobs' });
    expect(await errorOf(await call('DELETE', '/v1/tokens/nosuch', { token: a.token }), 404)).toContain('nosuch');
    expect((await call('DELETE', '/v1/tokens/bobs', { token: a.token })).status).toBe(404);
    expect((await listed(b.token)).map((t) => t.token_name)).toEqual(['default', 'bobs']);
  });

  it('a token can revoke itself by name; POST /v1/logout still revokes the token sent', async () => {
    const u = await makeUser();
    const second = await another(u, { token_name: 'second' });
    expect((await call('DELETE', '/v1/tokens/second', { token: second })).status).toBe(204);
    expect((await call('GET', '/v1/whoami', { token: second })).status).toBe(401);
    expect((await call('POST', '/v1/logout', { token: u.token })).status).toBe(204);
    expect((await call('GET', '/v1/whoami', { token: u.token })).status).toBe(401);
  });
});

describe('tokens expire', () => {
  it('a token with expires_in_days answers 401 saying it expired once the clock passes it', async () => {
    const u = await makeUser();
    const short = await another(u, { token_name: 'short', expires_in_days: 1 });
    expect((await call('GET', '/v1/whoami', { token: short })).status).toBe(200);
    setClockOffset(DAY - 60_000);
    expect((await call('GET', '/v1/whoami', { token: short })).status).toBe(200);
    setClockOffset(DAY + 1000);
    const res = await call('GET', '/v1/whoami', { token: short });
    expect(res.headers.get('WWW-Authenticate')).toBe('Bearer error="invalid_token"');
    expect(await errorOf(res, 401)).toMatch(/token expired on .*sign in again/);
    // Listed as expired; the token without an expiry still works.
    const list = await listed(u.token);
    expect(list.find((t) => t.token_name === 'short')).toMatchObject({ expired: true });
    // On a route that takes a token optionally too: an expired token is refused, not taken as anonymous.
    expect((await call('POST', '/gql', { token: short, json: { query: '{ me { username } }' } })).status).toBe(401);
  });

  it(`a token unused for ${DEFAULT_TOKEN_IDLE_DAYS} days expires; each use (recorded once a day) restarts the count`, async () => {
    const u = await makeUser();
    const kept = await another(u, { token_name: 'kept' });
    const idle = await another(u, { token_name: 'idle' });
    setClockOffset(100 * DAY);
    expect((await call('GET', '/v1/whoami', { token: kept })).status).toBe(200);
    expect(await lastUse(kept, (v) => v !== null)).not.toBeNull();
    forgetUser(await userId(u.username)); // read from D1 again, not this isolate's cache
    setClockOffset((DEFAULT_TOKEN_IDLE_DAYS + 1) * DAY);
    expect(await errorOf(await call('GET', '/v1/whoami', { token: idle }), 401)).toMatch(
      new RegExp(`token expired: unused for more than ${DEFAULT_TOKEN_IDLE_DAYS} days`),
    );
    expect((await call('GET', '/v1/whoami', { token: kept })).status).toBe(200);
  });

  it("signing in deletes the account's expired tokens, so they do not count towards the cap", async () => {
    const u = await makeUser();
    await another(u, { token_name: 'soon', expires_in_days: 1 });
    setClockOffset(2 * DAY);
    await another(u, { token_name: 'fresh' });
    const names = (
      await env.DB.prepare('select name from tokens where user_id = ? order by id')
        .bind(await userId(u.username))
        .all<{
          name: string;
        }>()
    ).results.map((r) => r.name);
    expect(names).toEqual(['default', 'fresh']);
  });
});

describe('sweepExpiredTokens (for a scheduled sweep)', () => {
  it('deletes expired tokens of any account, up to its limit, and keeps live ones', async () => {
    const u = await makeUser();
    await another(u, { token_name: 'dated', expires_in_days: 1 });
    await another(u, { token_name: 'dated2', expires_in_days: 1 });
    const id = await userId(u.username);
    const names = async () =>
      (
        await env.DB.prepare('select name from tokens where user_id = ? order by id').bind(id).all<{ name: string }>()
      ).results.map((r) => r.name);
    setClockOffset(2 * DAY);
    const db = dbFor(env);
    // Other tests' expired tokens go too: swept until none is left, one row at a time at first.
    expect(await sweepExpiredTokens(db, env, Date.now() + 2 * DAY, 1)).toBe(1);
    while ((await sweepExpiredTokens(db, env, Date.now() + 2 * DAY, 100)) > 0);
    expect(await names()).toEqual(['default']);
  });
});

describe("a token's last use is written at most once a day (reads stay reads)", () => {
  it('the first use of a day writes last_used_on after the answer, later ones that day do not; the next day does', async () => {
    const u = await makeUser();
    const t = await another(u, { token_name: 'daily' });
    expect(await lastUse(t)).toBeNull();
    // 01:00 UTC ten days from now, then 20:00 the same day, then 01:00 the next day.
    const day = Math.floor(Date.now() / DAY) * DAY + 10 * DAY;
    const at = (ms: number) => setClockOffset(ms - Date.now());
    at(day + 3_600_000);
    const first = await call('GET', '/v1/whoami', { token: t });
    expect(first.status).toBe(200);
    // The write is not one of the request's round trips (the token read is its one).
    expect(first.headers.get('Server-Timing')).toMatch(/d1;desc="1 round trips"/);
    const v1 = await lastUse(t, (v) => v !== null);
    expect(v1!.slice(0, 13)).toBe(new Date(day + 3_600_000).toISOString().slice(0, 13));
    const id = await userId(u.username);
    at(day + 20 * 3_600_000);
    forgetUser(id);
    expect((await call('GET', '/v1/whoami', { token: t })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect(await lastUse(t)).toBe(v1);
    at(day + DAY + 3_600_000);
    expect((await call('GET', '/v1/whoami', { token: t })).status).toBe(200); // cached: the day is still checked
    const v2 = await lastUse(t, (v) => v !== v1);
    expect(v2!.slice(0, 10)).toBe(new Date(day + DAY).toISOString().slice(0, 10));
    expect((await listed(t)).find((x) => x.token_name === 'daily')!.last_used_on).toBe(v2);
  });
});

describe('a read token may only read', () => {
  it('GET, HEAD and GraphQL answer; POST /v1/logout and every write answer 403 saying the token is read-only', async () => {
    const u = await makeUser();
    const read = await another(u, { token_name: 'reader', scope: 'read' });
    expect((await call('GET', '/v1/whoami', { token: read })).status).toBe(200);
    expect((await call('HEAD', '/v1/whoami', { token: read })).status).toBe(200);
    expect((await call('GET', '/v1/tokens', { token: read })).status).toBe(200);
    const gql = await call('POST', '/gql', { token: read, json: { query: '{ me { username } }' } });
    expect(await gql.json()).toEqual({ data: { me: { username: u.username } } });
    expect(await errorOf(await call('PUT', '/v1/vis/docs/mine', { token: read }), 403)).toMatch(/read-only/);
    expect((await call('PUT', '/v1/vis/docs/mine', { token: u.token })).status).toBe(201);
  });

  it('every non-GET operation of the OpenAPI document that takes a token answers a read token 403 before anything else', async () => {
    const u = await makeUser();
    const read = await another(u, { token_name: 'reader', scope: 'read' });
    const doc = platformApi().openApiDocument() as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    // POST /gql only reads (the GraphQL API has no mutations); the operator routes take the operator's token.
    const reads = new Set(['post /gql']);
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith('/v1/ops/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (method === 'get' || !op.security?.length || reads.has(`${method} ${path}`)) continue;
        // Sample values: nothing of this name exists, so only a scope check that comes first answers 403.
        const url = path.replace(/\{(\w+)\}/g, (_, p: string) => `sample${p.replace(/[^a-z]/gi, '').toLowerCase()}`);
        const res = await call(method.toUpperCase(), url, { token: read, json: {} });
        const text = await res.text(); // not JSON when a route acted (a 204, a file)
        const body = (text.startsWith('{') ? JSON.parse(text) : { message: text }) as { message?: string };
        checked.push(`${method} ${path}`);
        if (res.status !== 403 || !/read-only/.test(body.message ?? ''))
          wrong.push(`${method.toUpperCase()} ${path}: ${res.status} ${body.message}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checked.length).toBeGreaterThan(50);
    expect(checked).toContain('delete /v1/tokens/{token_name}');
    expect(checked).toContain('post /v1/logout');
    // Nothing was done: the read token is still there, and the account has no new resource.
    expect((await listed(u.token)).map((t) => t.token_name)).toEqual(['default', 'reader']);
  }, 120_000); // several hundred operations, one after another: over 30 s on a loaded 2-core machine
});

describe('GraphQL me { tokens }', () => {
  it("lists the caller's tokens with the same fields as GET /v1/tokens", async () => {
    const u = await makeUser();
    await another(u, { token_name: 'ci', token_description: 'the build', scope: 'read', expires_in_days: 3 });
    // The day's use of u.token written first, so both listings read the same row.
    expect((await call('GET', '/v1/whoami', { token: u.token })).status).toBe(200);
    await lastUse(u.token, (v) => v !== null);
    const res = await call('POST', '/gql', {
      token: u.token,
      json: {
        query: '{ me { tokens { token_name token_description created_on last_used_on expires_on scope expired } } }',
      },
    });
    const body = (await res.json()) as { data: { me: { tokens: Listed[] } } };
    expect(body.data.me.tokens).toEqual(await listed(u.token));
    expect(body.data.me.tokens.map((t) => t.token_name)).toEqual(['default', 'ci']);
  });
});
