/**
 * The OpenAPI document names its shared bodies and shows an example of every body a client
 * reads or writes as text or JSON, so a generator makes named types and a reader sees what
 * a body looks like. Built here from the route table, as /v1/openapi.json serves it.
 *
 * The rule of which bodies carry an example (src/core/examples.ts): JSON
 * (`application/json`, `...+json`) and text (`text/*`) do, at the media type or on the
 * schema it refers to; a binary body (an image, a PDF, an Office file,
 * application/octet-stream) does not, and says what it is in its description instead.
 * Every example is checked against the zod schema it illustrates (here) and against the
 * document's JSON Schema (`redocly lint`: no-invalid-media-type-examples,
 * no-invalid-schema-examples).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApi } from '../../src/app';
import { exampleOf, takesExample } from '../../src/core/examples';
import { listingResponses, listingSchema } from '../../src/core/listing';
import { built } from '../../src/core/once';
import { errorBody } from '../../src/core/openapi';
import { apiDocument } from '../../src/meta/reference-routes';

type Schema = { $ref?: string; example?: unknown; [key: string]: unknown };
interface MediaType {
  schema?: Schema;
  example?: unknown;
}
interface Body {
  description?: string;
  content?: Record<string, MediaType>;
  $ref?: string;
}
interface Doc {
  paths: Record<string, Record<string, { requestBody?: Body; responses: Record<string, Body> }>>;
  components: { schemas: Record<string, Schema> };
}

const api = buildApi();
const doc = apiDocument(api, { PUBLIC_ORIGIN: 'https://platform.example' }) as Doc;

/** The component schemas a client names its types by: the API's own words for what it answers and takes. */
const NAMED = [
  'Error',
  'Listing',
  'ListingItem',
  'Run',
  'RunStatus',
  'Send',
  'SendState',
  'WebhookEndpoint',
  'Delivery',
  'DeliveryDetail',
  'Token',
  'TokenRequest',
  'TokenInfo',
  'Account',
  'Group',
  'Organisation',
  'Membership',
  'Comment',
  'Created',
  'YesNo',
];

/** Every body of the document: `<METHOD> <path> <status|request> <media type>`, with its media type object. */
function bodies(): { at: string; type: string; media: MediaType; description: string }[] {
  const out: { at: string; type: string; media: MediaType; description: string }[] = [];
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops)) {
      const parts: [string, Body][] = [
        ...(op.requestBody ? [['request', op.requestBody] as [string, Body]] : []),
        ...Object.entries(op.responses),
      ];
      for (const [what, body] of parts)
        for (const [type, media] of Object.entries(body.content ?? {}))
          out.push({
            at: `${method.toUpperCase()} ${path} ${what} ${type}`,
            type,
            media,
            description: body.description ?? '',
          });
    }
  return out;
}

const resolve = (s: Schema | undefined): Schema | undefined =>
  s?.$ref ? doc.components.schemas[s.$ref.replace('#/components/schemas/', '')] : s;

/** A schema without what only annotates it: two shapes compare equal whatever their words and examples. */
function shape(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(shape);
  if (!s || typeof s !== 'object') return s;
  return Object.fromEntries(
    Object.entries(s)
      .filter(([k]) => !['description', 'example', 'examples', 'title'].includes(k))
      .map(([k, v]) => [k, shape(v)]),
  );
}

/** Every inline schema object within `s` (itself included), not following $ref. */
function* inline(s: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(s)) for (const x of s) yield* inline(x);
  else if (s && typeof s === 'object') {
    if (!('$ref' in s)) yield s as Record<string, unknown>;
    for (const v of Object.values(s)) yield* inline(v);
  }
}

/** Every zod schema reachable from `roots`, each once. */
function reachable(roots: z.core.$ZodType[]): Set<z.core.$ZodType> {
  const seen = new Set<z.core.$ZodType>();
  const visit = (x: unknown): void => {
    if (x instanceof z.core.$ZodType) {
      if (seen.has(x)) return;
      seen.add(x);
      visit(Object.values(x._zod.def));
    } else if (Array.isArray(x)) x.forEach(visit);
    else if (x && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype)
      Object.values(x).forEach(visit);
  };
  visit(roots);
  return seen;
}

/** The zod schemas of every body the routes declare, and the error body. */
const bodySchemas = (): z.core.$ZodType[] => [
  errorBody(),
  ...api.table.flatMap(({ spec }) => [
    ...(spec.json ? [built(spec.json)] : []),
    ...(spec.body?.schema ? [built(spec.body.schema)] : []),
    ...Object.values(spec.responses).flatMap((r) => (r.schema ? [built(r.schema)] : [])),
  ]),
];

describe('the OpenAPI document names its bodies and shows an example of each', () => {
  it('names the shared bodies in components/schemas', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(NAMED));
  });

  it('every JSON or text body has an example (at the media type or on its schema); a binary body has a description instead', () => {
    const missing: string[] = [];
    const types = new Set<string>();
    for (const { at, type, media, description } of bodies()) {
      types.add(type);
      const example = media.example ?? resolve(media.schema)?.example;
      const textual = /^(application\/(.+\+)?json|text\/.+)$/.test(type);
      if (!textual) {
        if (!description.trim()) missing.push(`${at}: a binary body without a description`);
        if (media.example !== undefined) missing.push(`${at}: a binary body with an example`);
      } else if (example === undefined) missing.push(`${at}: no example`);
      else if (type.startsWith('text/') && !(typeof example === 'string' && example.trim()))
        missing.push(`${at}: a text example that is not a non-empty string`);
    }
    expect(missing).toEqual([]);
    // The document (openapi.ts, through examples.ts) follows the same rule as this test.
    for (const type of types) expect(takesExample(type), type).toBe(/^(application\/(.+\+)?json|text\/.+)$/.test(type));
    expect([...types]).toEqual(expect.arrayContaining(['application/json', 'text/plain', 'application/pdf']));
  });

  it('no operation spells out inline a shape that a named schema has: it refers to the name', () => {
    const named = Object.entries(doc.components.schemas).map(([name, s]) => [name, JSON.stringify(shape(s))]);
    const duplicates: string[] = [];
    const check = (where: string, s: unknown, self?: string) => {
      for (const sub of inline(s)) {
        const key = JSON.stringify(shape(sub));
        for (const [name, other] of named)
          if (other === key && !(self === name && sub === s)) duplicates.push(`${where}: inline ${name}`);
      }
    };
    for (const { at, media } of bodies()) check(at, media.schema);
    for (const [name, s] of Object.entries(doc.components.schemas)) check(`components/schemas/${name}`, s, name);
    expect(duplicates).toEqual([]);
  });

  it('every folder listing refers to Listing (each item a ListingItem)', () => {
    const listings = api.table.filter(({ spec }) => spec.responses[200]?.schema === listingSchema);
    expect(listings.length).toBeGreaterThan(100);
    expect(listings.filter(({ spec }) => spec.responses === listingResponses).length).toBeGreaterThan(100);
    for (const { method, path } of listings) {
      const op = doc.paths[path.replace(/:(\w+)\+?/g, '{$1}')]![method]!;
      expect(op.responses['200']!.content!['application/json']!.schema, `${method} ${path}`).toEqual({
        $ref: '#/components/schemas/Listing',
      });
    }
    expect(doc.components.schemas.Listing!.items).toEqual({ $ref: '#/components/schemas/ListingItem' });
  });

  it('every example is one of what its zod schema accepts', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const schema of reachable(bodySchemas())) {
      const example = exampleOf(schema);
      if (example === undefined) continue;
      checked++;
      const r = z.safeParse(schema, example);
      if (!r.success) wrong.push(`${JSON.stringify(example).slice(0, 120)}: ${r.error.message.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(50);
    // The check can fail: an example the schema refuses is found.
    const listing = listingSchema();
    expect(z.safeParse(listing, [{ ...(exampleOf(listing) as object[])[0], type: 'folder' }]).success).toBe(false);
  });
});
