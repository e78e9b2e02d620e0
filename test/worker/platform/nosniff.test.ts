// Every answer of the platform carries `X-Content-Type-Options: nosniff` and a `Cache-Control`
// rule (public only for build-time answers and the anonymous reads the edge keeps, never with a
// token), whatever produced it
// (a route, the GraphQL endpoint and its explorer, a static file, HEAD, 404, 405, an error
// before routing): a browser never reads an answer as another type than the one declared,
// so a user's text (a public variable's text/plain value) never runs as a same-origin
// script through <script src=…>. The walk covers every route of /v1/openapi.json: GETs
// and HEADs with real names as the owner and anonymously, every other method without a
// token (nothing is written).
import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { platformApi } from '../../../src/app';
import { EDGE_RULE } from '../../../src/core/edge-cache';
import worker from '../../../src/index';
import { call, makeUser, OPS, unique } from '../helpers';
import { openApiRoutes, realValue, walkWorld } from './route-walk';

/** One request straight into the Worker's fetch handler (the pool's SELF wrapper overflows past ~1,500 calls). */
async function send(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const req = new Request(`http://platform.test${path}`, { method, headers, body });
  const res = await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
  await res.body?.cancel();
  return res;
}

/** Answers that are the same for everyone until a deployment: the only ones that may be `public`. */
const BUILD_TIME_PATHS = new Set(['/v1/openapi.json', '/v1/docs', '/v1/docs/scalar.js']);

/** The patterns of the routes whose anonymous answers the edge keeps (core/edge-cache.ts). */
const EDGE_PATHS = platformApi().edgePaths;

/**
 * What is wrong with an answer's caching rule (core/cache-rule.ts): none at all (left to a
 * cache's heuristics), `public` on an answer to a request with a token, or on anything
 * that is neither a build-time answer nor an anonymous read the edge keeps (the edge's rule,
 * tagged by account: only an item shared public answers an anonymous read at all).
 */
function cacheFault(res: Response, path: string, headers: Record<string, string> = {}): string | null {
  const rule = res.headers.get('Cache-Control');
  if (!rule) return 'no Cache-Control';
  if (res.status >= 400 && rule !== 'no-store') return `an error with ${rule}`;
  if (!/\bpublic\b/i.test(rule)) return null;
  if ('Authorization' in headers) return `public with a token: ${rule}`;
  const url = new URL(path, 'http://x.test');
  if (BUILD_TIME_PATHS.has(url.pathname)) return null;
  const edge = rule === EDGE_RULE && !url.search && EDGE_PATHS.some((re) => re.test(url.pathname));
  return edge && /^o\d+(,o\d+)*$/.test(res.headers.get('Cache-Tag') ?? '') ? null : `public: ${rule}`;
}

/** An answer without nosniff, or without its request id (every answer names it: core/request-id.ts). */
const sniffable = (res: Response) =>
  res.headers.get('X-Content-Type-Options')?.toLowerCase() !== 'nosniff' || !res.headers.get('X-Request-Id');

describe('X-Content-Type-Options: nosniff and a caching rule on every answer', () => {
  it('a public text variable (text/plain) is answered with nosniff, so it never runs as a script', async () => {
    const u = await makeUser({ profile_public: true });
    const doc = unique('d');
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${doc}/shared/public`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${doc}/vars/v`, { token: u.token })).status).toBe(201);
    expect((await call('POST', `/v1/vis/docs/${doc}/vars/v/type`, { token: u.token, text: 'text' })).status).toBe(204);
    expect((await call('POST', `/v1/vis/docs/${doc}/vars/v/value`, { token: u.token, text: 'alert(1)' })).status).toBe(
      204,
    );
    const res = await call('GET', `/v1/u/${u.username}/d/${doc}/v/v/txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('alert(1)');
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });

  it('every route of the OpenAPI document, /gql, static files, HEAD, 404, 405 and early errors (nosniff, Cache-Control)', async () => {
    const owner = await makeUser({ profile_public: true }, 'ns');
    const names = await walkWorld(owner, 'n', true);
    expect((await call('PUT', `/v1/vis/docs/${names.doc}/vars/title`, { token: owner.token })).status).toBe(201);
    const { routes, paths } = await openApiRoutes();
    // Renders of a real document drive a browser for seconds (the render suites cover them).
    const value = (param: string, path: string): string =>
      /\/(pdf|pptx)$/.test(path) ? unique('none') : realValue(param, path, owner, names);
    const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, p: string) => value(p, path));

    const shots: [string, string, Record<string, string>?, string?][] = [];
    for (const { method, path } of routes) {
      const real = fill(path);
      if (method === 'GET') {
        const token = path.startsWith('/v1/ops/') ? OPS : owner.token;
        shots.push(['GET', real, { Authorization: `Bearer ${token}` }]);
        shots.push(['HEAD', real, { Authorization: `Bearer ${token}` }]);
        shots.push(['GET', real]);
      } else {
        shots.push([method, real, { 'Content-Type': 'application/json' }, '{}']);
      }
    }
    const scalar = paths['/v1/docs/scalar.js'] ? '/v1/docs/scalar.js' : null;
    shots.push(
      ['GET', '/gql', { Accept: 'text/html' }],
      ['HEAD', '/gql'],
      ['POST', '/gql', { 'Content-Type': 'application/json' }, '{"query":"{ me { username } }"}'],
      ['POST', '/gql', { 'Content-Type': 'application/json', Authorization: `Bearer ${owner.token}` }, '{"query":"{'],
      ['GET', '//gql'],
      ['GET', '/no/such/route'],
      ['HEAD', '/no/such/route'],
      ['DELETE', '/v1/openapi.json'],
      ['GET', '/v1/openapi.json', { 'x-d1-bookmark': 'not-a-bookmark' }],
      ['HEAD', '/v1/openapi.json', { 'x-d1-bookmark': 'not-a-bookmark' }],
      ['GET', `/u/${owner.username}/d/${names.doc}`],
      ['GET', `/v1/u/${owner.username}/d/${names.doc}/v/title/txt`],
    );
    if (scalar)
      shots.push(
        ['GET', scalar],
        ['GET', `${scalar}?v=1`],
        ['GET', scalar, { Authorization: `Bearer ${owner.token}` }],
      );

    const missing: string[] = [];
    const caching: string[] = [];
    for (let i = 0; i < shots.length; i += 8) {
      const batch = shots.slice(i, i + 8);
      const answers = await Promise.all(batch.map(([m, p, h, b]) => send(m, p, h, b)));
      answers.forEach((res, j) => {
        const [method, path, headers] = batch[j]!;
        if (sniffable(res)) missing.push(`${method} ${path} → ${res.status}`);
        const fault = cacheFault(res, path, headers);
        if (fault) caching.push(`${method} ${path} → ${res.status}: ${fault}`);
      });
    }
    expect(shots.length).toBeGreaterThan(routes.length);
    expect(missing).toEqual([]);
    expect(caching, 'every answer states a caching rule; public only for build-time answers').toEqual([]);
  });
});
