/**
 * Errors a program can branch on: every error body is `{status, message, code, request_id}`
 * (plus the route's own fields), `code` one stable word per status (`invalid_token` for a
 * token that was sent but does not authenticate), and `request_id` the answer's
 * `X-Request-Id` (Cloudflare's cf-ray where the request has one).
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/core/errors';
import { call, makeUser, unique } from '../helpers';

async function errorOf(res: Response) {
  const body = (await res.json()) as { status: number; message: string; code: string; request_id: string };
  expect(body.request_id, 'the body names the request of the header').toBe(res.headers.get('X-Request-Id'));
  expect(body.status).toBe(res.status);
  return body;
}

describe('every error body has a stable code and the request id', () => {
  it('not_found, validation_failed, conflict, unsupported_media_type, method_not_allowed, authentication_required', async () => {
    const u = await makeUser();
    const doc = `/v1/vis/docs/${unique('d')}`;
    expect((await errorOf(await call('GET', doc, { token: u.token }))).code).toBe('not_found');
    expect((await call('PUT', doc, { token: u.token })).status).toBe(201);
    expect((await errorOf(await call('PUT', doc, { token: u.token }))).code).toBe('conflict');
    expect(
      (await errorOf(await call('POST', `${doc}/content`, { token: u.token, text: 'x', type: 'text/html' }))).code,
    ).toBe('unsupported_media_type');
    const plot = `/v1/vis/plots/${unique('p')}`;
    expect((await call('PUT', plot, { token: u.token })).status).toBe(201);
    expect((await errorOf(await call('POST', `${plot}/config/type`, { token: u.token, text: 'pie3d' }))).code).toBe(
      'validation_failed',
    );
    expect((await errorOf(await call('PATCH', '/v1/whoami', { token: u.token }))).code).toBe('method_not_allowed');
    expect((await errorOf(await call('GET', '/v1/whoami'))).code).toBe('authentication_required');
  });

  it('a made-up or revoked token is invalid_token, not a missing one (still 401)', async () => {
    const u = await makeUser();
    const made = await errorOf(await call('GET', '/v1/whoami', { token: 'made-up-token' }));
    expect(made).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(made.message).toMatch(/unknown or was revoked/);
    expect((await call('POST', '/v1/logout', { token: u.token })).status).toBe(204);
    const revoked = await call('GET', '/v1/whoami', { token: u.token });
    expect(revoked.headers.get('WWW-Authenticate')).toBe('Bearer error="invalid_token"');
    expect((await errorOf(revoked)).code).toBe('invalid_token');
    // GraphQL says the same
    const gql = await call('POST', '/gql', { token: 'made-up-token', json: { query: '{ me { username } }' } });
    expect(gql.status).toBe(401);
    expect((await errorOf(gql)).code).toBe('invalid_token');
  });

  it('the request id is cf-ray when Cloudflare sent one, else a fresh one per answer, on successes too', async () => {
    const ray = '8f1e2d3c4b5a6978-AMS';
    const res = await call('GET', '/v1/nosuch', { headers: { 'cf-ray': ray } });
    expect(res.headers.get('X-Request-Id')).toBe(ray);
    expect((await errorOf(res)).request_id).toBe(ray);
    const [a, b] = [await call('GET', '/v1/openapi.json'), await call('GET', '/v1/openapi.json')];
    expect(a.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('X-Request-Id')).not.toBe(b.headers.get('X-Request-Id'));
  });

  it('every status the platform answers has its code', () => {
    for (const status of [400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 425, 429, 500, 502, 503, 504])
      expect(ERROR_CODES[status], String(status)).toMatch(/^[a-z_]+$/);
  });
});

describe('a 403 says what would be allowed', () => {
  it('a user account creating an organisation is told how organisations come to exist', async () => {
    const u = await makeUser();
    const res = await call('PUT', `/v1/admin/orgs/${unique('o')}`, { token: u.token });
    const body = await errorOf(res);
    expect(body).toMatchObject({ status: 403, code: 'forbidden' });
    expect(body.message).toContain('PUT /v1/ops/users/<name>');
    expect(body.message).toContain('"account": "organisation"');
  });
});
