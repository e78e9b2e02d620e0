import { describe, expect, it } from 'vitest';
import { api } from '../../src/app';
import { call } from './helpers';

describe('the API describes itself', () => {
  it('every route served by the router is declared with a schema (one OpenAPI operation each)', () => {
    // Routes added straight to the router, bypassing api.route(), have no schema: the
    // router would hold more routes than the declared table.
    expect(api.router.routes.length).toBe(api.table.length);
    const doc = api.openApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
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
      if (spec.body?.type === 'application/json' && !spec.body.schema) missing.push(`${name}: JSON request body without a schema`);
    }
    expect(missing).toEqual([]);
  });

  it('GET /v1/openapi.json serves an OpenAPI 3.1 document with the bearer scheme', async () => {
    const res = await call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown>; components: { securitySchemes: Record<string, unknown> } };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(doc.paths)).toContain('/v1/ops/users/{user}');
  });

  it('GET /v1/docs serves a browsable reference page listing the routes', async () => {
    const res = await call('GET', '/v1/docs');
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('/v1/token');
    expect(html).toContain('Issue a token for a username and password');
  });
});
