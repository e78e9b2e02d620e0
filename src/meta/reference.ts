/**
 * The browsable reference page of the OpenAPI document: Scalar's API reference
 * (@scalar/api-reference, its standalone browser bundle a static asset of this Worker,
 * scalar.ts, served from this origin: no CDN).
 */
import { BUNDLE_PATH, SCALAR_VERSION, scalarBundle } from './scalar';

export { BUNDLE_PATH };

/**
 * The page's settings for Scalar: same-origin "try it" with the bearer scheme, system fonts, nothing fetched elsewhere.
 */
const REFERENCE_CONFIG = {
  withDefaultFonts: false, // Scalar's default fonts come from fonts.scalar.com: use the system's
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: false,
  authentication: { preferredSecurityScheme: 'bearer' },
  // System font stacks (Scalar's own default fonts are not bundled and never fetched).
  customCss:
    ':root{--scalar-font:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif;--scalar-font-code:ui-monospace,"SFMono-Regular","DejaVu Sans Mono","Liberation Mono",monospace}',
} as const;

/**
 * The page shell: Scalar reads the document url and its settings from the script tag; no
 * inline code runs. `origin` (the page's own) is the server of code samples and "try it".
 */
function referencePage(origin: string): string {
  const config = JSON.stringify({ ...REFERENCE_CONFIG, servers: [{ url: origin, description: 'this deployment' }] })
    .replace(/&/g, '&amp;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;');
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

export function referenceResponse(origin: string): Response {
  return new Response(referencePage(origin), {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': REFERENCE_CSP,
      'X-Content-Type-Options': 'nosniff',
    },
  });
}

/** The bundle from the ASSETS binding, with this route's own headers (not the asset server's). */
export async function bundleResponse(assets: Fetcher, url: URL): Promise<Response> {
  const asset = await scalarBundle(assets, url);
  const length = asset.headers.get('Content-Length');
  return new Response(asset.body, {
    headers: {
      ...(length ? { 'Content-Length': length } : {}),
      'Content-Type': 'text/javascript; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      // The page asks for ?v=<version>: that url never changes content.
      'Cache-Control':
        url.searchParams.get('v') === SCALAR_VERSION ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    },
  });
}
