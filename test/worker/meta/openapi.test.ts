// The OpenAPI document against the router that serves it, and the reference page /v1/docs.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { SIGNIN_MAX_FAILURES, SIGNIN_WINDOW_MS } from '../../../src/accounts/signin-throttle';
import { MAX_TOKENS_PER_ACCOUNT } from '../../../src/accounts/users';
import { platformApi } from '../../../src/app';
import { DEFAULT_TOKEN_IDLE_DAYS } from '../../../src/core/tokens';
import { apiDocument } from '../../../src/meta/reference-routes';
import { call } from '../helpers';

const api = platformApi();
const ORIGIN = 'https://platform.example';
/** The document as /v1/openapi.json serves it, built from the table (a deployment whose PUBLIC_ORIGIN is ORIGIN). */
const documentOf = () => apiDocument(api, { PUBLIC_ORIGIN: ORIGIN });
const opPath = (path: string) => path.replace(/:(\w+)\+?/g, '{$1}');

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses: Record<
    string,
    { $ref?: string; content?: Record<string, { schema?: { $ref?: string } }>; headers?: object }
  >;
}
interface Doc {
  info: { description?: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { properties: Record<string, unknown> }>;
    responses: Record<string, Operation['responses'][string]>;
  };
}

describe('the API describes itself', () => {
  it('every route served by the router is declared with a schema (one OpenAPI operation each)', () => {
    // Two records kept apart: the entries the router matches requests against and the
    // operations of the served document. A route added straight to the router (bypassing
    // api.route()) has no operation; an operation with no router entry is never answered.
    const doc = documentOf() as Doc;
    const served = api.router.routes
      .map(([method, , , path]) => `${method} ${path!.replace(/:(\w+)\+?/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(served).toEqual(documented);
    // Each operation's path, its parameters filled in, is matched by a router entry of its method.
    for (const op of documented) {
      const [method, path] = op.split(' ') as [string, string];
      const url = path.replace(/\{\w+\}/g, 'x1');
      expect(
        api.router.routes.some(([m, re]) => m === method && re.test(url)),
        op,
      ).toBe(true);
    }
    for (const { method, path } of api.table) {
      const op = doc.paths[path.replace(/:(\w+)\+?/g, '{$1}')]?.[method];
      expect(op, `${method.toUpperCase()} ${path}`).toBeDefined();
      expect(Object.keys(op!.responses).length, `${method.toUpperCase()} ${path} responses`).toBeGreaterThan(1);
    }
  });

  it('every JSON body a route declares (response or request) has a schema', () => {
    const missing: string[] = [];
    for (const { method, path, spec } of api.table) {
      const name = `${method.toUpperCase()} ${path}`;
      for (const [code, r] of Object.entries(spec.responses)) {
        if (r.type === 'application/json' && !r.schema) missing.push(`${name} ${code}: JSON without a schema`);
      }
      if (spec.body?.type === 'application/json' && !spec.body.schema)
        missing.push(`${name}: JSON request body without a schema`);
    }
    expect(missing).toEqual([]);
  });

  it('GET /v1/openapi.json serves an OpenAPI 3.1 document with the bearer scheme', async () => {
    const res = await call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(doc.paths)).toContain('/v1/ops/users/{user}');
  });

  it('GET /v1/docs serves the Scalar reference page for /v1/openapi.json, its script from this origin only', async () => {
    const res = await call('GET', '/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
    const csp = res.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await res.text();
    expect(html).toContain('data-url="/v1/openapi.json"');
    const src = /<script src="([^"]+)"/.exec(html)?.[1];
    expect(src).toMatch(/^\/v1\/docs\/scalar\.js\?v=/);
    expect(html).not.toMatch(/<script>/); // no inline code
    const config = JSON.parse(
      /data-configuration='([^']*)'/
        .exec(html)![1]!
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&amp;/g, '&'),
    );
    expect(config).toMatchObject({
      withDefaultFonts: false,
      telemetry: false,
      servers: [{ url: 'http://platform.test' }],
    });
    // the only absolute url on the page is its own origin (the server "try it" sends to)
    expect(html.match(/https?:\/\/[^\s"'&]+/g)).toEqual(['http://platform.test']);

    const js = await call('GET', src!);
    expect(js.status).toBe(200);
    expect(js.headers.get('Content-Type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('Cache-Control')).toContain('immutable');
    const text = await js.text();
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(text).toContain('createApiReference');
  });

  it('the document declares the bearer scheme on every route that takes a token (required or optional)', () => {
    const doc = documentOf() as Doc;
    for (const { method, path, spec } of api.table) {
      const op = doc.paths[opPath(path)]![method]!;
      const name = `${method.toUpperCase()} ${path}`;
      if (spec.auth === 'user' || spec.auth === 'ops') expect(op.security, name).toEqual([{ bearer: [] }]);
      else if (spec.auth === 'optional') expect(op.security, name).toEqual([{ bearer: [] }, {}]);
      else expect(op.security, `${name}: a public operation says security: []`).toEqual([]);
    }
  });

  it('every operation has an operationId, unique in the document and the same on every build', () => {
    const ids = (doc: Doc) =>
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op.operationId] as const),
      );
    const first = ids(documentOf() as Doc);
    expect(first.filter(([, id]) => !id).map(([op]) => op)).toEqual([]);
    const seen = new Map<string, string[]>();
    for (const [op, id] of first) seen.set(id!, [...(seen.get(id!) ?? []), op]);
    expect([...seen].filter(([, ops]) => ops.length > 1)).toEqual([]);
    expect(ids(documentOf() as Doc)).toEqual(first);
    const byOp = Object.fromEntries(first);
    expect(byOp['GET /v1/vis/docs/{doc}/content']).toBe('getDocContent');
    expect(byOp['PUT /v1/admin/groups/{group}/roles/{role}/{user}']).toBe('putAdminGroupRoleUser');
  });

  it('every operation lists a 4xx response, each error with the shared Error schema; a 429 carries Retry-After', () => {
    const doc = documentOf() as Doc;
    const errorSchema = (r: Operation['responses'][string]) =>
      (r.$ref ? doc.components.responses[r.$ref.split('/').pop()!]! : r).content?.['application/json']?.schema?.$ref;
    const retryAfter = (r: Operation['responses'][string]) =>
      (r.$ref ? doc.components.responses[r.$ref.split('/').pop()!]! : r).headers;
    for (const { method, path, spec } of api.table) {
      const name = `${method.toUpperCase()} ${path}`;
      const { responses } = doc.paths[opPath(path)]![method]!;
      const errors = Object.keys(responses).filter((c) => /^[45]\d\d$/.test(c));
      expect(
        errors.some((c) => c.startsWith('4')),
        `${name} has a 4xx`,
      ).toBe(true);
      for (const code of errors) {
        if (spec.responses[Number(code)]?.type) continue; // a route that answers its own body (an HTML error page)
        expect(errorSchema(responses[code]!), `${name} ${code}`).toBe('#/components/schemas/Error');
      }
      if (responses['429']) expect(retryAfter(responses['429']), `${name} 429`).toHaveProperty('Retry-After');
      // What the wrapper answers before the route's own code.
      if (spec.auth === 'user') expect(errors, name).toContain('401');
      if (/:\w/.test(path)) expect(errors, name).toContain('404');
      if (spec.json) expect(errors, name).toEqual(expect.arrayContaining(['400', '413', '415']));
      if (spec.auth !== 'ops') expect(errors, name).toContain('429');
    }
    expect(Object.keys(doc.components.schemas.Error!.properties)).toEqual(
      expect.arrayContaining(['status', 'message', 'retry_after_seconds', 'final_status', 'rejected']),
    );
    // Only what the wrapper can answer: whoami takes a token and reads; a write can meet a read-only token.
    expect(Object.keys(doc.paths['/v1/whoami']!.get!.responses)).toEqual(['200', '401', '429', 'default']);
    expect(doc.paths['/v1/vis/docs/{doc}/content']!.post!.responses['403']).toBeDefined();
    // A status a route names itself is listed with its own words (a failed run: 502).
    expect(doc.paths['/v1/code/jobs/{job}/data']!.post!.responses['502']).toBeDefined();
  });

  it("the document's server is the deployment's PUBLIC_ORIGIN, and its introduction covers what a client needs first", async () => {
    const doc = documentOf() as Doc;
    expect(doc.servers).toEqual([{ url: ORIGIN, description: 'this deployment' }]);
    const served = (await (await call('GET', '/v1/openapi.json')).json()) as Doc;
    expect(served.servers?.[0]?.url).toBe(env.PUBLIC_ORIGIN);
    const intro = served.info.description ?? '';
    for (const heading of [
      'Authentication and tokens',
      'Errors',
      'Rate limits',
      'Paths and bodies',
      'Listings',
      'D1 bookmarks',
    ])
      expect(intro).toContain(heading);
    for (const topic of [
      'POST /v1/token',
      'scope',
      'expires_in_days',
      'Retry-After',
      'x-d1-bookmark',
      'text/plain',
      'docs/areas/',
    ])
      expect(intro).toContain(topic);
    // Its numbers are the platform's (line breaks aside).
    const flat = intro.replace(/\s+/g, ' ');
    for (const fact of [
      `at most ${MAX_TOKENS_PER_ACCOUNT} live tokens`,
      `(${DEFAULT_TOKEN_IDLE_DAYS} days by default)`,
      `${SIGNIN_MAX_FAILURES} failed sign-ins for one username within ${SIGNIN_WINDOW_MS / 60_000} minutes`,
    ])
      expect(flat).toContain(fact);
  });
});
