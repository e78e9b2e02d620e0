/**
 * The interactive explorer served at GET /gql: one self-contained HTML page (no CDN, no
 * external script or style), so it works offline and under a strict CSP. GraphiQL itself
 * would have to be inlined (~9 MB, as @graphql-yoga/render-graphiql does) into the one Worker
 * bundle every request of the platform loads; this page is ~6 KB. It edits a query and
 * its variables, keeps the bearer token in the page only (never in the browser's storage),
 * POSTs to /gql and shows the schema (types, fields, arguments) from an introspection
 * query. The page is explorer.html, imported as text (wrangler.toml [[rules]], type "Text").
 */
import EXPLORER_HTML from './explorer.html';

/**
 * The page, under a CSP that lets it run only its own inline code and talk only to this
 * origin, never framed by another page (a frame could overlay it to have a token typed in)
 * and without a <base> to move its relative URLs elsewhere.
 */
const EXPLORER_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function explorerPage(): Response {
  return new Response(EXPLORER_HTML, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': EXPLORER_CSP,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
    },
  });
}
