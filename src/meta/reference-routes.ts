/**
 * The routes by which the API describes itself: the OpenAPI 3.1 document and a browsable
 * reference page of it with its script (reference.ts).
 */
import { z } from 'zod';
import type { Api } from '../core/api';
import { BUNDLE_PATH, bundleResponse, referenceResponse } from './reference';

export function referenceRoutes(api: Api): void {
  // The document is large and never changes while the Worker runs: serialise it once.
  let json: string | null = null;
  api.get('/v1/openapi.json', {
    summary: 'The OpenAPI 3.1 document of this API',
    tag: 'meta',
    auth: 'none',
    responses: {
      200: {
        description: 'OpenAPI document',
        type: 'application/json',
        schema: z
          .object({
            openapi: z.literal('3.1.0'),
            info: z.object({ title: z.string(), version: z.string() }),
            paths: z.record(z.string(), z.unknown()),
          })
          .passthrough(),
      },
    },
    handler: () =>
      new Response((json ??= JSON.stringify(api.openApiDocument())), {
        headers: { 'Content-Type': 'application/json' },
      }),
  });
  api.get('/v1/docs', {
    summary: 'Browsable API reference (Scalar) of /v1/openapi.json, with "try it" against this origin',
    tag: 'meta',
    auth: 'none',
    responses: { 200: { description: 'HTML page', type: 'text/html' } },
    handler: ({ url }) => referenceResponse(url.origin),
  });
  api.get(BUNDLE_PATH, {
    summary: "The API reference's script (Scalar's standalone bundle, served from here)",
    tag: 'meta',
    auth: 'none',
    responses: { 200: { description: 'JavaScript', type: 'text/javascript' } },
    handler: ({ env, url }) => bundleResponse(env.ASSETS, url),
  });
}
