/**
 * The OpenAPI side of the route table: each declared route becomes one operation of the
 * registry that generates /v1/openapi.json (params from the path, the JSON or other body,
 * the responses, and the error body every route may answer).
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';
import type { Method, RouteSpec } from './route-spec';

const errorBody = z.object({ status: z.number().int(), message: z.string() }).passthrough();

function openApiPath(path: string): string {
  return path.replace(/:(\w+)\+?/g, '{$1}');
}

function paramsSchema(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  if (!names.length) return undefined;
  return z.object(Object.fromEntries(names.map((n) => [n, z.string()])));
}

/** A registry with the bearer scheme the routes' security names. */
export function newRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  return registry;
}

/** Registers one route as an OpenAPI operation. */
export function registerOperation<S extends ZodType | undefined>(
  registry: OpenAPIRegistry,
  method: Method,
  path: string,
  spec: Omit<RouteSpec<S>, 'handler'>,
): void {
  const responses: RouteConfig['responses'] = {};
  for (const [code, r] of Object.entries(spec.responses)) {
    responses[code] = {
      description: r.description,
      ...(r.type
        ? { content: { [r.type]: { schema: r.schema ?? (r.type === 'application/json' ? z.unknown() : z.string()) } } }
        : {}),
    };
  }
  responses.default = { description: 'Error', content: { 'application/json': { schema: errorBody } } };
  const body = spec.json
    ? { content: { 'application/json': { schema: spec.json } }, required: true }
    : spec.body
      ? {
          description: spec.body.description,
          content: { [spec.body.type]: { schema: spec.body.schema ?? z.string() } },
          required: true,
        }
      : undefined;
  registry.registerPath({
    method,
    path: openApiPath(path),
    summary: spec.summary,
    tags: [spec.tag],
    // A token is required (user, ops) or optional (an empty requirement: anonymous allowed).
    ...(spec.auth === 'user' || spec.auth === 'ops'
      ? { security: [{ bearer: [] }] }
      : spec.auth === 'optional'
        ? { security: [{ bearer: [] }, {}] }
        : {}),
    request: { params: paramsSchema(path), query: spec.query, ...(body ? { body } : {}) },
    responses,
  });
}

/** The OpenAPI 3.1 document of every registered route. */
export function openApiDocument(registry: OpenAPIRegistry): object {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Edge platform API', version: '1' },
  });
}
