/**
 * The OpenAPI side of the route table: each declared route becomes one operation of the
 * document served at /v1/openapi.json (params from the path, the JSON or other body, the
 * responses). What every route shares is derived here from its declaration, never
 * written per route: the operationId from method and path (operation-id.ts), and the
 * error responses from what the route's wrapper can answer (`errorCodes`), each with the
 * one error body `Error`. Bodies a route shares with others are named schemas
 * (components/schemas, `.meta({ id })` where they are declared) and every JSON or text body
 * has an example (examples.ts).
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { ZodType } from 'zod';
import { ERROR_CODES, FINER_CODES } from './errors';
import { exampleOf, ownExample, takesExample } from './examples';
import { listingQuery, listingSchema } from './listing';
import { built, once } from './once';
import { operationIds } from './operation-id';
import type { DeclaredRoute, Method } from './route-spec';

/** `{status, message, ...extra}` (errors.ts): the extra fields some routes add, all optional. */
export const errorBody = once(() =>
  z
    .object({
      status: z
        .union([z.number().int(), z.string()])
        .describe('The HTTP status (a cancel of an ended run: its final status)'),
      message: z.string().describe('What went wrong, in words meant for a person'),
      code: z
        .enum([...new Set([...Object.values(ERROR_CODES), ...FINER_CODES])] as [string, ...string[]])
        .describe(
          'What went wrong, for a program to branch on: one per status, `invalid_token` for a 401 whose token was sent',
        ),
      request_id: z
        .string()
        .optional()
        .describe('The request, as X-Request-Id names it (cf-ray on Cloudflare): quote it when reporting a problem'),
      retry_after_seconds: z.number().int().optional().describe('429 and 425: seconds until a retry can succeed'),
      final_status: z.string().optional().describe("409 on a run's status: the status the run ended with"),
      run: z.string().optional().describe('The run a trigger started (also in X-Run-Id)'),
      rejected: z
        .array(z.object({ line: z.string(), reason: z.string() }))
        .optional()
        .describe('400 on a recipient list: the lines refused, each with its reason'),
      row: z.number().int().optional().describe('400 on a grid layout: the row at fault'),
      column: z.number().int().optional().describe('400 on a grid layout: the column at fault'),
      allowed: z.array(z.string()).optional().describe('405: the methods the path answers'),
      answered: z
        .number()
        .int()
        .optional()
        .describe('409 `idempotency_answer_not_kept`: the status the first request with the key answered'),
    })
    .passthrough()
    .meta({
      example: {
        status: 404,
        message: "no document named 'q3_report'",
        code: 'not_found',
        request_id: '8f1c2a7be6d94c03-AMS',
      },
    }),
);

/**
 * components/schemas/Error, as JSON Schema (every error response refers to it): made with
 * the document, not at module load (the JSON Schema converter is not run at startup).
 */
function errorSchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(errorBody(), { io: 'output' }) as Record<string, unknown>;
  return schema;
}
const ERROR_REF = { $ref: '#/components/schemas/Error' };
const errorContent = { 'application/json': { schema: ERROR_REF } };
const retryAfter = {
  'Retry-After': { description: 'Seconds until a retry can succeed', schema: { type: 'integer' as const } },
};

/** The shared error responses (components/responses), by status. */
const ERRORS: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'Malformed request: a path segment, query, body or value the route refuses' },
  401: {
    name: 'Unauthorized',
    description: 'No token, an unknown or expired one (WWW-Authenticate: Bearer); the operator token on /v1/ops',
  },
  403: {
    name: 'Forbidden',
    description:
      'The caller may see what the path names but not do this, or the token is read-only (scope read) and the route writes',
  },
  404: { name: 'NotFound', description: 'What the path names does not exist or is not visible to the caller' },
  409: {
    name: 'Conflict',
    description:
      'It already exists (PUT creates, never updates), a cap is reached, or the first request with this Idempotency-Key is still running',
  },
  413: { name: 'ContentTooLarge', description: 'The body is larger than the route accepts' },
  415: { name: 'UnsupportedMediaType', description: 'The body has another Content-Type than the route reads' },
  422: {
    name: 'UnprocessableContent',
    description: 'Idempotency-Key already used with another body or on another route (`idempotency_key_reused`)',
  },
  429: {
    name: 'TooManyRequests',
    description: 'Rate limit of the address or the account exceeded (Retry-After, retry_after_seconds)',
  },
};

const hasParams = (path: string) => /:\w/.test(path);

/** A route that answers a folder listing: it pages (`limit`, `cursor`, the Link header). */
const isListing = (spec: DeclaredRoute['spec']) => spec.responses[200]?.schema === listingSchema;
const linkHeader = {
  Link: {
    description: 'RFC 8288 `<url>; rel="next"`: the next page, while more items remain',
    schema: { type: 'string' as const },
  },
};
/** The request header of the routes that act (RouteSpec.idempotent). */
const idempotencyHeader = once(() =>
  z.object({
    'Idempotency-Key': z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe(
        'A key of your choosing (a random UUID), 1-255 printable ASCII characters: within 24 hours the same key with the same body answers the first answer again (`Idempotent-Replayed: true`) and does nothing twice; with another body or route, 422; while the first request runs, 409 (Retry-After). Keys are per account.',
      ),
  }),
);

/**
 * The error statuses a route can answer from its declaration alone: what the handler
 * wrapper (route-handler.ts), the scopes and serve.ts check before the route's own code.
 */
function errorCodes(method: Method, path: string, spec: DeclaredRoute['spec']): number[] {
  const codes = new Set<number>();
  const token = spec.auth === 'user' || spec.auth === 'optional';
  // A path parameter: malformed percent-encoding (400), nothing visible by that name (404).
  if (hasParams(path)) codes.add(400).add(404);
  if (token || spec.auth === 'ops') codes.add(401); // no token, or expired (optional routes refuse it too)
  if (spec.auth === 'ops') codes.add(404); // no OPS_TOKEN configured: the operator interface does not exist
  // A read-only token on a write; a scope's "visible but not allowed": a scoped route names
  // what it needs (`need`), and only reading (`r`, a group's `see`) is never refused so.
  const need = (spec as { need?: unknown }).need;
  const refusable = need !== undefined && need !== 'r' && need !== 'see';
  if (token && ((method !== 'get' && !spec.reads) || refusable)) codes.add(403);
  if (spec.json || spec.body) codes.add(400).add(413).add(415);
  if (isListing(spec)) codes.add(400); // a limit or cursor that is not one
  if (method === 'put') codes.add(409);
  // Idempotency-Key (idempotency.ts): malformed (400), its first request still running (409), reused (422).
  if (spec.idempotent) codes.add(400).add(409).add(422);
  if (spec.auth !== 'ops') codes.add(429); // the operator is exempt from rate limits
  return [...codes];
}

function openApiPath(path: string): string {
  return path.replace(/:(\w+)\+?/g, '{$1}');
}

/**
 * One media type of a body: its schema, and an example where the body takes one
 * (examples.ts) and the schema does not carry its own (a named schema's is in
 * components/schemas; a list of them, an enum, gets one derived here).
 */
function mediaType(type: string, schema: ZodType): { schema: ZodType; example?: unknown } {
  const example = takesExample(type) && ownExample(schema) === undefined ? exampleOf(schema) : undefined;
  return example === undefined ? { schema } : { schema, example };
}

function paramsSchema(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  if (!names.length) return undefined;
  return z.object(Object.fromEntries(names.map((n) => [n, z.string()])));
}

/** The responses of one operation: the declared ones, then the derived errors it does not declare itself. */
function responsesOf(method: Method, path: string, spec: DeclaredRoute['spec']): RouteConfig['responses'] {
  const responses: RouteConfig['responses'] = {};
  const codes = new Set([...Object.keys(spec.responses).map(Number), ...errorCodes(method, path, spec)]);
  for (const code of [...codes].sort((a, b) => a - b)) {
    const r = spec.responses[code];
    if (!r) {
      responses[code] = { $ref: `#/components/responses/${ERRORS[code]!.name}` };
    } else if (r.type) {
      const schema = r.schema ? built(r.schema) : r.type === 'application/json' ? z.unknown() : z.string();
      responses[code] = {
        description: r.description,
        content: { [r.type]: mediaType(r.type, schema) },
        ...(r.schema === listingSchema ? { headers: linkHeader } : {}),
      };
    } else if (code >= 400) {
      // Every error is the JSON error body, whether or not the route says so.
      responses[code] = {
        description: r.description,
        content: errorContent,
        ...(code === 429 ? { headers: retryAfter } : {}),
      } as RouteConfig['responses'][string];
    } else responses[code] = { description: r.description };
  }
  responses.default = { $ref: '#/components/responses/Error' };
  return responses;
}

function registerOperation(registry: OpenAPIRegistry, { method, path, spec }: DeclaredRoute, operationId: string) {
  const body = spec.json
    ? { content: { 'application/json': mediaType('application/json', built(spec.json)) }, required: true }
    : spec.body
      ? {
          description: spec.body.description,
          content: {
            [spec.body.type]: mediaType(spec.body.type, spec.body.schema ? built(spec.body.schema) : z.string()),
          },
          required: true,
        }
      : undefined;
  registry.registerPath({
    method,
    path: openApiPath(path),
    operationId,
    summary: spec.summary,
    tags: [spec.tag],
    // A token is required (user, ops), optional (an empty requirement: anonymous allowed), or not read at all.
    security:
      spec.auth === 'user' || spec.auth === 'ops'
        ? [{ bearer: [] }]
        : spec.auth === 'optional'
          ? [{ bearer: [] }, {}]
          : [],
    request: {
      params: paramsSchema(path),
      query: spec.query ? built(spec.query) : isListing(spec) ? listingQuery() : undefined,
      ...(spec.idempotent ? { headers: idempotencyHeader() } : {}),
      ...(body ? { body } : {}),
    },
    responses: responsesOf(method, path, spec),
  });
}

/** What the document says of itself beside its operations. */
export interface DocumentInfo {
  /** The deployment's origin (PUBLIC_ORIGIN): the document's one server. */
  origin: string;
  /** info.description: the Markdown introduction the reference page shows first. */
  description: string;
}

/** The OpenAPI 3.1 document of every route of `table`, in its order. */
export function openApiDocument(table: readonly DeclaredRoute[], info?: DocumentInfo): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  registry.registerComponent('schemas', 'Error', errorSchema());
  registry.registerComponent('responses', 'Error', {
    description: 'Any other error (500: ours)',
    content: errorContent,
  });
  for (const { name, description } of Object.values(ERRORS)) {
    registry.registerComponent('responses', name, {
      description,
      content: errorContent,
      ...(name === 'TooManyRequests' ? { headers: retryAfter } : {}),
    });
  }
  const ids = operationIds(table);
  for (const route of table)
    registerOperation(registry, route, ids.get(`${route.method.toUpperCase()} ${route.path}`)!);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Edge platform API', version: '1', ...(info ? { description: info.description } : {}) },
    ...(info ? { servers: [{ url: info.origin, description: 'this deployment' }] } : {}),
  });
}
