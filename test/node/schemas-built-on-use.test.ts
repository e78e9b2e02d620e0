// A route's zod schemas are built at their first use (core/once.ts), never by loading the
// Worker or by building the route table: loading them cost every isolate's startup, and
// building them all cost its first request. Counted by the schemas named with `.meta({ id })`
// in zod's global registry (this file's own module graph: nothing else built them before).
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildApi } from '../../src/app';
import { built } from '../../src/core/once';
import { apiDocument } from '../../src/meta/reference-routes';

const named = () => [...z.globalRegistry._idmap.keys()];

describe('schemas built on use', () => {
  it('loading the Worker builds no named schema', async () => {
    await import('../../src/index');
    expect(named()).toEqual([]);
  });

  it('building the route table builds no named schema', () => {
    const api = buildApi();
    expect(api.table.length).toBeGreaterThan(400);
    expect(named()).toEqual([]);
  });

  it("a route's JSON body schema is built by its first use, once", () => {
    const api = buildApi();
    const token = api.table.find((r) => r.method === 'post' && r.path === '/v1/token')!;
    const schema = built(token.spec.json!);
    expect(built(token.spec.json!)).toBe(schema);
    expect(named()).toEqual(['TokenRequest']);
  });

  it('the OpenAPI document builds the named schemas, each once', () => {
    const api = buildApi();
    const doc = apiDocument(api, { PUBLIC_ORIGIN: 'http://127.0.0.1:8787' }) as {
      components: { schemas: Record<string, unknown> };
    };
    expect(named().length).toBeGreaterThan(30);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(named()));
    // Another document of the table builds nothing again: the same schema objects.
    const before = new Map(z.globalRegistry._idmap);
    apiDocument(api, { PUBLIC_ORIGIN: 'http://127.0.0.1:8787' });
    expect(z.globalRegistry._idmap.size).toBe(before.size);
    for (const [id, schema] of before) expect(z.globalRegistry._idmap.get(id), id).toBe(schema);
  });
});
