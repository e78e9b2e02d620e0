/**
 * The routes by which the API describes itself: the OpenAPI 3.1 document and a browsable
 * reference page of it with its script (reference.ts).
 */
import { htmlPage, text } from '../core/examples';
import * as z from 'zod';
import { BUILD_TIME } from '../core/cache-rule';
import type { Api } from '../core/api';
import { INTRODUCTION } from './introduction';
import { BUNDLE_PATH, bundleResponse, referenceResponse } from './reference';

/** The API's OpenAPI document as this deployment serves it: its server PUBLIC_ORIGIN, its introduction. */
export function apiDocument(api: Api, env: Pick<Env, 'PUBLIC_ORIGIN'>): object {
  return api.openApiDocument({ origin: env.PUBLIC_ORIGIN, description: INTRODUCTION });
}

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
        schema: () =>
          z
            .object({
              openapi: z.literal('3.1.0'),
              info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
              servers: z.array(z.object({ url: z.string() })),
              paths: z.record(z.string(), z.unknown()),
            })
            .passthrough()
            .meta({
              example: {
                openapi: '3.1.0',
                info: { title: 'Edge platform API', version: '1', description: 'What a client needs first: …' },
                servers: [{ url: 'https://platform.example' }],
                paths: { '/v1/whoami': { get: { operationId: 'getWhoami' } } },
              },
            }),
      },
    },
    handler: ({ env }) =>
      new Response((json ??= JSON.stringify(apiDocument(api, env))), {
        headers: { 'Content-Type': 'application/json', 'Cache-Control': BUILD_TIME },
      }),
  });
  api.get('/v1/docs', {
    summary: 'Browsable API reference (Scalar) of /v1/openapi.json, with "try it" against this origin',
    tag: 'meta',
    auth: 'none',
    responses: { 200: { description: 'HTML page', type: 'text/html', schema: () => htmlPage('Edge platform API') } },
    handler: ({ url }) => {
      const page = referenceResponse(url.origin);
      page.headers.set('Cache-Control', BUILD_TIME);
      return page;
    },
  });
  api.get(BUNDLE_PATH, {
    summary: "The API reference's script (Scalar's standalone bundle, served from here)",
    tag: 'meta',
    auth: 'none',
    responses: {
      200: {
        description: 'JavaScript',
        type: 'text/javascript',
        schema: () => text('/*! @scalar/api-reference */\n!function(){"use strict";…}();\n'),
      },
    },
    handler: ({ env, url }) => bundleResponse(env.ASSETS, url),
  });
}
