import { env } from 'cloudflare:workers';
import { createExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platformApi } from '../../../src/app';
import { call, makeUser, OPS, unique } from '../helpers';

const api = platformApi();

const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');

describe('POST /v1/token', () => {
  it('answers {token, token_name} for good credentials; the token authenticates', async () => {
    const u = await makeUser();
    const res = await call('POST', '/v1/token', {
      json: { username: u.username, password: u.password, token_name: 'cli', token_description: 'laptop' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token: string; token_name: string };
    expect(body.token_name).toBe('cli');
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const who = await call('GET', '/v1/whoami', { token: body.token });
    expect(who.headers.get('Content-Type')).toMatch(/^text\/plain/);
    expect(await who.text()).toBe(u.username);
  });

  it('tokens are stored hashed: the database never holds the token itself', async () => {
    const u = await makeUser();
    const rows = await env.DB.prepare(
      'select token_hash from tokens t join users u on u.id = t.user_id where u.username = ?',
    )
      .bind(u.username)
      .all<{ token_hash: string }>();
    expect(rows.results.length).toBe(1);
    expect(rows.results[0]!.token_hash).not.toBe(u.token);
    // The stored value is SHA-256 of the token, computed here with WebCrypto, not our helper.
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(u.token)));
    expect(rows.results[0]!.token_hash).toBe(hex(digest));
  });

  it('passwords are hashed with PBKDF2 and a per-user salt', async () => {
    const a = await makeUser();
    const row = await env.DB.prepare('select password_hash, password_salt from users where username = ?')
      .bind(a.username)
      .first<{ password_hash: string; password_salt: string }>();
    expect(row!.password_hash).not.toContain(a.password);
    expect(row!.password_salt).toMatch(/^[0-9a-f]{32}$/);
    // Recompute PBKDF2-HMAC-SHA-256, 100,000 iterations, over the stored salt: a plain hash would not match.
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(a.password), 'PBKDF2', false, [
      'deriveBits',
    ]);
    const salt = Uint8Array.from(row!.password_salt.match(/../g)!.map((h) => parseInt(h, 16)));
    const bits = await crypto.subtle.deriveBits(
      { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: 100_000 },
      key,
      256,
    );
    expect(row!.password_hash).toBe(hex(new Uint8Array(bits)));
    const b = await makeUser();
    const row2 = await env.DB.prepare('select password_salt from users where username = ?')
      .bind(b.username)
      .first<{ password_salt: string }>();
    expect(row2!.password_salt).not.toBe(row!.password_salt);
  });

  it.each([
    ['wrong password', (u: { username: string }) => ({ username: u.username, password: 'nope' })],
    ['unknown user', () => ({ username: 'nobody_here_at_all', password: 'x' })],
    ['invalid username', () => ({ username: 'Not Valid', password: 'x' })],
  ])('401 JSON {message} for %s', async (_name, body) => {
    const u = await makeUser();
    const res = await call('POST', '/v1/token', { json: body(u) });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: 401, message: expect.any(String) });
  });

  it.each([
    ['malformed JSON', { body: '{"username":', type: 'application/json' }, 400],
    ['missing password', { json: { username: 'abc' } }, 400],
    ['bad token name', { json: { username: 'abc', password: 'x', token_name: '1bad' } }, 400],
    ['text body', { text: 'username=abc' }, 415],
    ['form body', { text: 'username=abc', type: 'application/x-www-form-urlencoded' }, 415],
  ] as const)('%s answers %i with a message', async (_n, opts, status) => {
    const res = await call('POST', '/v1/token', opts as never);
    expect(res.status).toBe(status);
    expect(((await res.json()) as { message: string }).message.length).toBeGreaterThan(0);
  });

  it('an oversized body answers 413 and stores nothing', async () => {
    const u = await makeUser();
    const count = () =>
      env.DB.prepare('select count(*) as n from tokens t join users u on u.id = t.user_id where u.username = ?')
        .bind(u.username)
        .first<{ n: number }>();
    const before = (await count())!.n;
    const res = await call('POST', '/v1/token', {
      json: { username: u.username, password: u.password, token_description: 'y'.repeat(2 * 1024 * 1024) },
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ status: 413, message: expect.any(String) });
    expect((await count())!.n).toBe(before);
  });

  it('a failed request stores nothing: a bad token name issues no token', async () => {
    const u = await makeUser();
    const count = () =>
      env.DB.prepare('select count(*) as n from tokens t join users u on u.id = t.user_id where u.username = ?')
        .bind(u.username)
        .first<{ n: number }>();
    const before = (await count())!.n;
    expect(
      (await call('POST', '/v1/token', { json: { username: u.username, password: u.password, token_name: '1bad' } }))
        .status,
    ).toBe(400);
    expect((await count())!.n).toBe(before);
  });
});

describe('token lifecycle', () => {
  it('GET /v1/token describes the token; POST /v1/logout revokes it', async () => {
    const u = await makeUser();
    const t = (await (
      await call('POST', '/v1/token', {
        json: { username: u.username, password: u.password, token_name: 'ci.bot', token_description: 'for ci' },
      })
    ).json()) as {
      token: string;
    };
    const info = await call('GET', '/v1/token', { token: t.token });
    expect(await info.json()).toEqual({
      token_name: 'ci.bot',
      token_description: 'for ci',
      created_on: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await call('POST', '/v1/logout', { token: t.token })).status).toBe(204);
    expect((await call('GET', '/v1/whoami', { token: t.token })).status).toBe(401);
    // Other tokens of the same user keep working.
    expect((await call('GET', '/v1/whoami', { token: u.token })).status).toBe(200);
  });

  it('missing, malformed and unknown bearer tokens answer 401 with WWW-Authenticate; an unknown one says invalid_token', async () => {
    for (const [headers, challenge, code] of [
      [{}, 'Bearer', 'authentication_required'],
      [{ Authorization: 'Basic abc' }, 'Bearer', 'authentication_required'],
      [{ Authorization: 'Bearer nope' }, 'Bearer error="invalid_token"', 'invalid_token'],
    ] as [Record<string, string>, string, string][]) {
      const res = await call('GET', '/v1/whoami', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toBe(challenge);
      expect(((await res.json()) as { code: string }).code).toBe(code);
    }
  });
});

describe('operator interface', () => {
  it('PUT /v1/ops/users/:user creates (201) then updates (200) every field', async () => {
    const name = unique('ops');
    const c = await call('PUT', `/v1/ops/users/${name}`, { token: OPS, json: { password: 'p1' } });
    expect(c.status).toBe(201);
    expect(await c.json()).toEqual({
      username: name,
      email: '',
      email_verified: false,
      account: 'user',
      plan: 'free',
      profile_public: false,
    });
    const u = await call('PUT', `/v1/ops/users/${name}`, {
      token: OPS,
      json: {
        password: 'p2',
        email: `${name}@example.com`,
        email_verified: true,
        account: 'organisation',
        plan: 'premium',
        profile_public: true,
      },
    });
    expect(u.status).toBe(200);
    expect(await u.json()).toEqual({
      username: name,
      email: `${name}@example.com`,
      email_verified: true,
      account: 'organisation',
      plan: 'premium',
      profile_public: true,
    });
    expect((await call('POST', '/v1/token', { json: { username: name, password: 'p1' } })).status).toBe(401);
    expect((await call('POST', '/v1/token', { json: { username: name, password: 'p2' } })).status).toBe(200);
  });

  it('PUT /v1/ops/users/:user takes an IANA timezone', async () => {
    const name = unique('tz');
    expect(
      (await call('PUT', `/v1/ops/users/${name}`, { token: OPS, json: { password: 'p', timezone: 'Europe/Paris' } }))
        .status,
    ).toBe(201);
    const row = await env.DB.prepare('select timezone from users where username = ?')
      .bind(name)
      .first<{ timezone: string }>();
    expect(row!.timezone).toBe('Europe/Paris');
  });

  it.each([
    ['invalid username', 'Bad Name', { password: 'x' }],
    ['username too long', 'a'.repeat(65), { password: 'x' }],
    ['unknown field', 'okname', { password: 'x', admin: true }],
    ['bad account', 'okname', { password: 'x', account: 'root' }],
    ['bad plan', 'okname', { password: 'x', plan: 'gold' }],
    ['bad email', 'okname', { password: 'x', email: 'not-an-address' }],
    ['unknown time zone', 'okname', { password: 'x', timezone: 'Mars/Olympus' }],
    ['create without password', unique('nopw'), { email: 'a@b.co' }],
  ])('%s answers 400 and creates nothing', async (_n, name, body) => {
    const res = await call('PUT', `/v1/ops/users/${encodeURIComponent(name)}`, { token: OPS, json: body });
    expect(res.status).toBe(400);
    const row = await env.DB.prepare('select 1 from users where username = ?').bind(name).first();
    expect(row).toBeNull();
  });

  it('requires the operator token (401), compared exactly', async () => {
    const u = await makeUser();
    for (const token of [null, u.token, `${OPS}x`, OPS.slice(0, -1)]) {
      expect((await call('GET', '/v1/ops/outbox', { token })).status).toBe(401);
    }
  });

  it.each([
    ['GET', '/v1/ops/outbox'],
    ['DELETE', '/v1/ops/outbox'],
    ['PUT', '/v1/ops/users/someone'],
    ['GET', '/v1/ops/users/someone'], // a method the route lacks: 404, not a 405 that betrays it
    ['POST', '/v1/ops'],
  ])('is disabled (404 for every method) when OPS_TOKEN is unset: %s %s', async (method, path) => {
    const req = new Request(`http://x${path}`, {
      method,
      headers: { Authorization: `Bearer ${OPS}`, 'Content-Type': 'application/json' },
      body: method === 'PUT' ? JSON.stringify({ password: 'pw-someone' }) : undefined,
    });
    const res = await api.fetch(req, { ...env, OPS_TOKEN: undefined } as Env, createExecutionContext());
    expect(res.status).toBe(404);
    expect(res.headers.get('Allow')).toBeNull();
    expect(await res.json()).toMatchObject({ status: 404 });
    expect(await env.DB.prepare('select 1 from users where username = ?').bind('someone').first()).toBeNull();
  });

  it('GET /v1/ops/outbox lists what the transport was handed; DELETE empties it', async () => {
    const { sendMail } = await import('../../../src/core/mailer');
    const { dbFor } = await import('../../../src/core/context');
    await call('DELETE', '/v1/ops/outbox', { token: OPS });
    await sendMail(env, dbFor(env), {
      kind: 'invite',
      to: ['a@example.com'],
      subject: 'Hi',
      text: 'hello',
      html: '<p>hello</p>',
      attachments: [{ filename: 'a.txt', content_type: 'text/plain', content: new Uint8Array(3) }],
    });
    const list = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as unknown[];
    expect(list).toEqual([
      {
        id: expect.any(Number),
        kind: 'invite',
        from: env.MAIL_FROM,
        to: ['a@example.com'],
        subject: 'Hi',
        text: 'hello',
        html: '<p>hello</p>',
        attachments: [{ filename: 'a.txt', content_type: 'text/plain', size: 3 }],
        created_on: expect.any(String),
        message_id: null,
        provider_id: null,
      },
    ]);
    expect((await call('DELETE', '/v1/ops/outbox', { token: OPS })).status).toBe(204);
    expect(await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()).toEqual([]);
  });
});

describe("the caller's own account", () => {
  it('GET /v1/admin/profile answers the account fields', async () => {
    const u = await makeUser({ email: 'me@example.com', email_verified: true });
    const res = await call('GET', '/v1/admin/profile', { token: u.token });
    expect(await res.json()).toEqual({
      username: u.username,
      email: 'me@example.com',
      email_verified: true,
      account: 'user',
      plan: 'free',
      profile_public: false,
    });
  });

  it('POST /v1/admin/profile/public takes yes or no exactly', async () => {
    const u = await makeUser();
    expect((await call('POST', '/v1/admin/profile/public', { token: u.token, text: 'yes' })).status).toBe(204);
    expect(
      ((await (await call('GET', '/v1/admin/profile', { token: u.token })).json()) as { profile_public: boolean })
        .profile_public,
    ).toBe(true);
    expect(await (await call('GET', '/v1/admin/profile/public', { token: u.token })).text()).toBe('yes');
    for (const bad of ['YES', 'true', 'yes\n', '']) {
      const res = await call('POST', '/v1/admin/profile/public', { token: u.token, text: bad });
      expect(res.status).toBe(400);
    }
    expect(
      (
        await call('POST', '/v1/admin/profile/public', {
          token: u.token,
          text: 'no',
          type: 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(415);
    expect(await (await call('GET', '/v1/admin/profile/public', { token: u.token })).text()).toBe('yes');
  });
});

describe('routing', () => {
  it('unknown routes answer 404 JSON, wrong methods 405 with Allow', async () => {
    const u = await makeUser();
    const nf = await call('GET', '/v1/nope', { token: u.token });
    expect(nf.status).toBe(404);
    expect(await nf.json()).toMatchObject({ status: 404, message: expect.stringContaining('/v1/nope') });
    const wm = await call('PATCH', '/v1/whoami', { token: u.token });
    expect(wm.status).toBe(405);
    expect(wm.headers.get('Allow')).toContain('GET');
    expect(wm.headers.get('Allow')).toContain('HEAD');
  });

  it('HEAD on a GET route answers its status and headers without a body', async () => {
    const u = await makeUser();
    const get = await call('GET', '/v1/admin/profile', { token: u.token });
    const head = await call('HEAD', '/v1/admin/profile', { token: u.token });
    expect(head.status).toBe(200);
    expect(head.headers.get('Content-Type')).toBe(get.headers.get('Content-Type'));
    expect(await head.text()).toBe('');
    expect((await call('HEAD', '/v1/admin/profile')).status).toBe(401);
    expect((await call('HEAD', '/v1/nope', { token: u.token })).status).toBe(404);
    expect((await call('HEAD', '/v1/ops/outbox', { token: OPS })).status).toBe(200);
  });

  it('tolerant paths: repeated and trailing slashes', async () => {
    const u = await makeUser();
    expect(await (await call('GET', '/v1//whoami/', { token: u.token })).text()).toBe(u.username);
  });

  it('malformed percent-encoding in a path segment is a 400, not a 500', async () => {
    const res = await call('PUT', '/v1/ops/users/%E0%A4%A', { token: OPS, json: { password: 'x' } });
    expect(res.status).toBe(400);
  });
});
