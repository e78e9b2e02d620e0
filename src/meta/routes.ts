/**
 * The API describes itself: the OpenAPI 3.1 document and a browsable reference page,
 * Scalar's API reference (@scalar/api-reference, its standalone browser bundle imported
 * as text through wrangler.toml's [[rules]] and served by this Worker: no CDN).
 */
import { z } from 'zod';
import type { Api } from '../core/api';
import { SCALAR_BUNDLE, SCALAR_VERSION } from './scalar';

/** The page's settings for Scalar: same-origin "try it" with the bearer scheme, system fonts, nothing fetched elsewhere. */
export const REFERENCE_CONFIG = {
  withDefaultFonts: false, // Scalar's default fonts come from fonts.scalar.com: use the system's
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: false,
  authentication: { preferredSecurityScheme: 'bearer' },
  // System font stacks (Scalar's own default fonts are not bundled and never fetched).
  customCss: ':root{--scalar-font:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif;--scalar-font-code:ui-monospace,"SFMono-Regular","DejaVu Sans Mono","Liberation Mono",monospace}',
} as const;

export const BUNDLE_PATH = '/v1/docs/scalar.js';

/**
 * The page shell: Scalar reads the document url and its settings from the script tag; no
 * inline code runs. `origin` (the page's own) is the server of code samples and "try it".
 */
export function referencePage(origin: string): string {
  const config = JSON.stringify({ ...REFERENCE_CONFIG, servers: [{ url: origin, description: 'this deployment' }] }).replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Edge platform API reference</title><link rel="icon" href="data:,"></head><body>
<script id="api-reference" data-url="/v1/openapi.json" data-configuration='${config}'></script>
<script src="${BUNDLE_PATH}?v=${SCALAR_VERSION}"></script>
</body></html>`;
}

/**
 * The page runs only the bundle served from this origin and talks only to this origin.
 * Scalar adds its styles at run time (inline <style>), hence 'unsafe-inline' for styles only.
 */
const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function metaRoutes(api: Api): void {
  let cached: object | null = null;
  let cachedJson: string | null = null;
  const doc = () => (cached ??= api.openApiDocument());
  api.get('/v1/openapi.json', {
    summary: 'The OpenAPI 3.1 document of this API',
    tag: 'meta',
    auth: 'none',
    responses: {
      200: {
        description: 'OpenAPI document',
        type: 'application/json',
        schema: z.object({ openapi: z.literal('3.1.0'), info: z.object({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }).passthrough(),
      },
    },
    // The document is large and never changes while the Worker runs: serialise it once.
    handler: () => new Response((cachedJson ??= JSON.stringify(doc())), { headers: { 'Content-Type': 'application/json' } }),
  });
  api.get('/v1/docs', {
    summary: 'Browsable API reference (Scalar) of /v1/openapi.json, with "try it" against this origin',
    tag: 'meta',
    auth: 'none',
    responses: { 200: { description: 'HTML page', type: 'text/html' } },
    handler: ({ url }) =>
      new Response(referencePage(url.origin), {
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': REFERENCE_CSP, 'X-Content-Type-Options': 'nosniff' },
      }),
  });
  api.get(BUNDLE_PATH, {
    summary: "The API reference's script (Scalar's standalone bundle, served from here)",
    tag: 'meta',
    auth: 'none',
    responses: { 200: { description: 'JavaScript', type: 'text/javascript' } },
    handler: ({ url }) =>
      new Response(SCALAR_BUNDLE, {
        headers: {
          'Content-Type': 'text/javascript; charset=utf-8',
          'X-Content-Type-Options': 'nosniff',
          // The page asks for ?v=<version>: that url never changes content.
          'Cache-Control': url.searchParams.get('v') === SCALAR_VERSION ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
        },
      }),
  });
}
