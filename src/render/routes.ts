/**
 * Routes of the rendering area: the canonical page of a document (`/u/:user/d/:doc`, and
 * `/s/:shortname` redirecting to it), and its PDF and PPTX outputs (`files/doc.pdf`,
 * `files/doc.pptx`, `/v1/u/:user/d/:doc/pdf|pptx`). Same access rules as the document:
 * public documents need no token; anything the caller may not read is 404.
 */
import { and, eq } from 'drizzle-orm';
import { resources, users } from '../db/schema';
import type { Api } from '../core/api';
import { sha256Hex } from '../core/crypto';
import { notFound } from '../core/errors';
import { loadResource, resourceRouter, type ResourceCtx } from '../core/resource';
import { loadAliased } from '../docs/alias';
import { docKind } from '../docs/kind';
import { cachedOutput, MAX_RENDER_PAGES, outputHash, OUTPUT_TYPES, RENDER_DEADLINE_MS, type OutputName } from './outputs';
import { documentPages, isPublic } from './source';

const OUTPUTS: { name: OutputName; alias: 'pdf' | 'pptx'; summary: string; disposition: 'inline' | 'attachment'; ext: string }[] = [
  { name: 'doc.pdf', alias: 'pdf', summary: 'The document as PDF (A4 pages for doc/docs, 16:9 for pres, one continuous page for blog/web)', disposition: 'inline', ext: 'pdf' },
  { name: 'doc.pptx', alias: 'pptx', summary: 'The document as a slide deck: one slide per page (its image, its text in the notes)', disposition: 'attachment', ext: 'pptx' },
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
    'X-Content-Type-Options': 'nosniff',
  };
  if (rc.req.headers.get('If-None-Match') === etag) return new Response(null, { status: 304, headers });
  const out = await cachedOutput(rc, o.name, () => pages('inline'), hash);
  headers['X-Render-Cache'] = out.cached ? 'hit' : 'miss';
  headers['Server-Timing'] = `page;dur=${t1 - t0}, output;dur=${Date.now() - t1};desc="${out.cached ? 'cache hit' : 'rendered'}"`;
  return new Response(out.bytes, { headers });
}

const outputResponses = (name: OutputName) => ({
  200: { description: name, type: OUTPUT_TYPES[name] },
  304: { description: 'Not modified (If-None-Match)' },
  413: { description: `More than ${MAX_RENDER_PAGES} pages` },
  502: { description: 'The browser failed to render' },
  504: { description: `The render took longer than ${RENDER_DEADLINE_MS / 1000} s` },
});

export function renderRoutes(api: Api): void {
  const files = resourceRouter(api, docKind);
  for (const o of OUTPUTS) {
    files.get(`/files/${o.name}`, {
      summary: o.summary,
      need: 'r',
      anonymous: true,
      responses: outputResponses(o.name),
      handler: (rc) => outputResponse(rc, o),
    });
    api.get(`/v1/u/:user/d/:doc/${o.alias}`, {
      summary: `${o.summary} (read-only alias)`,
      tag: 'alias',
      auth: 'optional',
      responses: outputResponses(o.name),
      handler: async (ctx) => outputResponse(await loadAliased(ctx), o),
    });
  }

  api.get('/u/:user/d/:doc', {
    summary: "The document's canonical page: sanitized HTML with its theme and layout, under a strict Content-Security-Policy",
    tag: 'pages',
    auth: 'optional',
    responses: { 200: { description: 'The document as an HTML page', type: 'text/html' }, 304: { description: 'Not modified (If-None-Match)' } },
    handler: async (ctx) => {
      const rc = await loadAliased(ctx);
      // A private document's viewer has no token for asset urls in the browser: embed them.
      const [pages, pub] = await Promise.all([documentPages(rc), isPublic(rc)]);
      const mode = pub ? 'link' : 'inline';
      // Linked pages hold no asset bytes: the page is its own ETag source. Inline pages are
      // keyed by asset versions, so a 304 never reads the asset bytes.
      const linked = mode === 'link' ? await pages('link') : null;
      const key = linked ?? (await pages('key'));
      const etag = `"${await sha256Hex(`page\n${mode}\n${key.html}`)}"`;
      const headers: Record<string, string> = {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': key.csp,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'private, no-cache',
        ETag: etag,
      };
      if (ctx.req.headers.get('If-None-Match') === etag) return new Response(null, { status: 304, headers });
      const built = linked ?? (await pages('inline'));
      headers['Content-Security-Policy'] = built.csp;
      return new Response(built.html, { headers });
    },
  });

  api.get('/s/:shortname', {
    summary: "A document's short url: redirects to its canonical page (same access rules)",
    tag: 'pages',
    auth: 'optional',
    responses: { 302: { description: 'Redirect to /u/<user>/d/<doc>' } },
    handler: async (ctx) => {
      const missing = () => notFound(`no such document: ${ctx.params.shortname}`);
      const row = await ctx.db
        .select({ name: resources.name, owner: users.username })
        .from(resources)
        .innerJoin(users, eq(users.id, resources.owner_id))
        .where(and(eq(resources.shortname, ctx.params.shortname!), eq(resources.kind, docKind.kind)))
        .get();
      if (!row) throw missing();
      await loadResource({ ...ctx, params: { owner: row.owner } }, docKind, row.name); // 404 unless readable
      return new Response(null, { status: 302, headers: { Location: `/u/${row.owner}/d/${row.name}` } });
    },
  });
}
