// The OpenAPI document against the router that serves it, and the reference page /v1/docs.
import { describe, expect, it } from 'vitest';
import { platformApi } from '../../../src/app';
import { call } from '../helpers';

const api = platformApi();

describe('the API describes itself', () => {
  it('every route served by the router is declared with a schema (one OpenAPI operation each)', () => {
    // Two records kept apart: the entries the router matches requests against and the
    // operations of the served document. A route added straight to the router (bypassing
    // api.route()) has no operation; an operation with no router entry is never answered.
    const doc = api.openApiDocument() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
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
    const doc = api.openApiDocument() as {
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
    };
    for (const { method, path, spec } of api.table) {
      const op = doc.paths[path.replace(/:(\w+)\+?/g, '{$1}')]![method]!;
      const name = `${method.toUpperCase()} ${path}`;
      if (spec.auth === 'user' || spec.auth === 'ops') expect(op.security, name).toEqual([{ bearer: [] }]);
      else if (spec.auth === 'optional') expect(op.security, name).toEqual([{ bearer: [] }, {}]);
      else expect(op.security, name).toBeUndefined();
    }
  });
});
