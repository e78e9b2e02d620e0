/**
 * Sign-in and tokens: the per-username throttle of failed sign-ins, the cap on an account's
 * live tokens, and the revocation of every token when the operator sets a new password.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNIN_MAX_FAILURES, SIGNIN_WINDOW_MS } from '../../../src/accounts/signin-throttle';
import { MAX_TOKENS_PER_ACCOUNT } from '../../../src/accounts/users';
import { setClockOffset } from '../../../src/core/clock';
import { call, makeUser, OPS, unique } from '../helpers';

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
    expect(Object.keys(body).sort()).toEqual(['message', 'retry_after_seconds', 'status']);
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
    const second = ((await (await signIn(u.username, u.password)).json()) as { token: string }).token;
    for (const t of [u.token, second]) expect((await call('GET', '/v1/whoami', { token: t })).status).toBe(200); // cached in this isolate
    expect(
      (await call('PUT', `/v1/ops/users/${u.username}`, { token: OPS, json: { password: 'a new password' } })).status,
    ).toBe(200);
    for (const t of [u.token, second]) expect((await call('GET', '/v1/whoami', { token: t })).status).toBe(401);
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
