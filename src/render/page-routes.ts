/**
 * The pages of documents: the canonical page `/u/:user/d/:doc` (sanitized HTML under a
 * strict Content-Security-Policy) and the short url `/s/:shortname` that redirects to it.
 */
import { htmlPage } from '../core/examples';
import { and, eq } from 'drizzle-orm';
import type { Api } from '../core/api';
import type { Ctx } from '../core/context';
import { sha256Hex } from '../core/crypto';
import { notFound } from '../core/errors';
import { loadResource } from '../core/resource';
import { resources, users } from '../db/schema';
import { loadAliased } from '../docs/alias';
import { docKind } from '../docs/kind';
import { pageHeaders } from '../markup/strict-page';
import { documentPages, isPublic } from './source';

async function canonicalPage(ctx: Ctx): Promise<Response> {
  const rc = await loadAliased(ctx, { entries: true });
  // A private document's viewer has no token for asset urls in the browser: embed them.
  const [pages, pub] = await Promise.all([documentPages(rc), isPublic(rc)]);
  const mode = pub ? 'link' : 'inline';
  // Linked pages hold no asset bytes: the page is its own ETag source. Inline pages are
  // keyed by asset versions, so a 304 never reads the asset bytes.
  const linked = mode === 'link' ? await pages('link') : null;
  const key = linked ?? (await pages('key'));
  const etag = `"${await sha256Hex(`page\n${mode}\n${key.html}`)}"`;
  const headers: Record<string, string> = { ...pageHeaders(key.csp), ETag: etag };
  if (ctx.req.headers.get('If-None-Match') === etag) return new Response(null, { status: 304, headers });
  const built = linked ?? (await pages('inline'));
  headers['Content-Security-Policy'] = built.csp;
  return new Response(built.html, { headers });
}

async function shortUrl(ctx: Ctx): Promise<Response> {
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
}

export function pageRoutes(api: Api): void {
  api.get('/u/:user/d/:doc', {
    summary:
      "The document's canonical page: sanitized HTML with its theme and layout, under a strict Content-Security-Policy",
    tag: 'pages',
    auth: 'optional',
    edge: 'cache',
    responses: {
      200: { description: 'The document as an HTML page', type: 'text/html', schema: () => htmlPage('Q3 report') },
      304: { description: 'Not modified (If-None-Match)' },
    },
    handler: canonicalPage,
  });

  api.get('/s/:shortname', {
    summary: "A document's short url: redirects to its canonical page (same access rules)",
    tag: 'pages',
    auth: 'optional',
    edge: 'cache',
    responses: { 302: { description: 'Redirect to /u/<user>/d/<doc>' } },
    handler: shortUrl,
  });
}
