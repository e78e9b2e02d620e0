/**
 * The rendered outputs of a document (files/doc.pdf, files/doc.pptx and their read-only
 * aliases): keyed by the page in `key` mode (ETag, R2 cache), rendered on a miss.
 */
import type { Api } from '../core/api';
import type { ResourceCtx, ResourceRoutes } from '../core/resource';
import { loadAliased } from '../docs/alias';
import {
  cachedOutput,
  MAX_RENDER_PAGES,
  outputHash,
  OUTPUT_TYPES,
  RENDER_DEADLINE_MS,
  type OutputName,
} from './output-cache';
import { documentPages } from './source';

const OUTPUTS: {
  name: OutputName;
  alias: 'pdf' | 'pptx';
  summary: string;
  disposition: 'inline' | 'attachment';
  ext: string;
}[] = [
  {
    name: 'doc.pdf',
    alias: 'pdf',
    summary: 'The document as PDF (A4 pages for doc/docs, 16:9 for pres, one continuous page for blog/web)',
    disposition: 'inline',
    ext: 'pdf',
  },
  {
    name: 'doc.pptx',
    alias: 'pptx',
    summary: 'The document as a slide deck: one slide per page (its image, its text in the notes)',
    disposition: 'attachment',
    ext: 'pptx',
  },
];

async function outputResponse(rc: ResourceCtx, o: (typeof OUTPUTS)[number]): Promise<Response> {
  const t0 = Date.now();
  // The key page names assets by version: a cache hit reads no asset bytes.
  const pages = await documentPages(rc);
  const hash = await outputHash(o.name, await pages('key'));
  const t1 = Date.now();
  const etag = `"${hash}"`;
  const headers: Record<string, string> = {
    'Content-Type': OUTPUT_TYPES[o.name],
    'Content-Disposition': `${o.disposition}; filename="${rc.resource.name}.${o.ext}"`,
    ETag: etag,
    'Cache-Control': 'private, no-cache',
    'X-NVM-Type': 'file',
    // Not USER_BYTES_HEADERS: these bytes are the platform's own render of a sanitized page
    // (a fixed type, no stored upload), and a sandboxing policy makes browsers refuse to
    // show an inline PDF (their viewer does not run in a sandboxed document).
    'X-Content-Type-Options': 'nosniff',
  };
  if (rc.req.headers.get('If-None-Match') === etag) return new Response(null, { status: 304, headers });
  const out = await cachedOutput(rc, o.name, () => pages('inline'), hash);
  headers['X-Render-Cache'] = out.cached ? 'hit' : 'miss';
  headers['Server-Timing'] =
    `page;dur=${t1 - t0}, output;dur=${Date.now() - t1};desc="${out.cached ? 'cache hit' : 'rendered'}"`;
  return new Response(out.bytes, { headers });
}

const outputResponses = (name: OutputName) => ({
  200: { description: name, type: OUTPUT_TYPES[name] },
  304: { description: 'Not modified (If-None-Match)' },
  413: { description: `More than ${MAX_RENDER_PAGES} pages` },
  502: { description: 'The browser failed to render' },
  504: { description: `The render took longer than ${RENDER_DEADLINE_MS / 1000} s` },
});

/**
 * files/doc.pdf and files/doc.pptx below a document, each followed by its read-only alias /v1/u/:user/d/:doc/pdf|pptx.
 */
export function outputRoutes(api: Api, files: ResourceRoutes): void {
  for (const o of OUTPUTS) {
    files.get(`/files/${o.name}`, {
      summary: o.summary,
      need: 'r',
      anonymous: true,
      edge: 'cache',
      preload: { entries: true },
      responses: outputResponses(o.name),
      handler: (rc) => outputResponse(rc, o),
    });
    api.get(`/v1/u/:user/d/:doc/${o.alias}`, {
      summary: `${o.summary} (read-only alias)`,
      tag: 'alias',
      auth: 'optional',
      edge: 'cache',
      responses: outputResponses(o.name),
      handler: async (ctx) => outputResponse(await loadAliased(ctx, { entries: true }), o),
    });
  }
}
