/**
 * Routes of the rendering area: the canonical page of a document (`/u/:user/d/:doc`, and
 * `/s/:shortname` redirecting to it), and its PDF and PPTX outputs (`files/doc.pdf`,
 * `files/doc.pptx`, `/v1/u/:user/d/:doc/pdf|pptx`). Same access rules as the document:
 * public documents need no token; anything the caller may not read is 404.
 */
import type { Api } from '../core/api';
import { resourceRouter } from '../core/resource';
import { loadAliased } from '../docs/alias';
import { docKind } from '../docs/kind';
import { outputResponse, outputResponses, OUTPUTS } from './output-routes';
import { canonicalPage, shortUrl } from './page-routes';

export function renderRoutes(api: Api): void {
  const files = resourceRouter(api, docKind);
  for (const o of OUTPUTS) {
    files.get(`/files/${o.name}`, {
      summary: o.summary,
      need: 'r',
      anonymous: true,
      preload: { entries: true },
      responses: outputResponses(o.name),
      handler: (rc) => outputResponse(rc, o),
    });
    api.get(`/v1/u/:user/d/:doc/${o.alias}`, {
      summary: `${o.summary} (read-only alias)`,
      tag: 'alias',
      auth: 'optional',
      responses: outputResponses(o.name),
      handler: async (ctx) => outputResponse(await loadAliased(ctx, { entries: true }), o),
    });
  }

  api.get('/u/:user/d/:doc', {
    summary: "The document's canonical page: sanitized HTML with its theme and layout, under a strict Content-Security-Policy",
    tag: 'pages',
    auth: 'optional',
    responses: { 200: { description: 'The document as an HTML page', type: 'text/html' }, 304: { description: 'Not modified (If-None-Match)' } },
    handler: canonicalPage,
  });

  api.get('/s/:shortname', {
    summary: "A document's short url: redirects to its canonical page (same access rules)",
    tag: 'pages',
    auth: 'optional',
    responses: { 302: { description: 'Redirect to /u/<user>/d/<doc>' } },
    handler: shortUrl,
  });
}
