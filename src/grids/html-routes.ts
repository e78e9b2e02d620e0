/**
 * The html entry of a grid: its dashboard page, served at the grid's own path, at the
 * public alias /v1/u/:user/g/:grid/html and at the grid's url /u/:user/g/:grid.
 */
import { sha256Base64 } from '../core/crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { entryValues } from '../core/entries';
import type { Api } from '../core/api';
import { loadUserPath, type Preload, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { entries } from '../db/schema';
import { strictPolicy } from '../markup/strict-page';
import type { GridData, MetaData } from './build';
import { renderGridPage } from './html';
import { gridKind } from './kind';
import { DATA_PATH, META_PATH, parsedOr } from './store';

/** A dashboard shows no images and runs no script: its policy says so outright. */
const ALLOW = ["img-src 'none'", "script-src 'none'"];

/** The page's reads (the parse results and the name) batched with the grid's own. */
export const pagePreload: Preload = {
  rows: (ctx, id) =>
    ctx.db
      .select({ path: entries.path, value: entries.value, blob_key: entries.blob_key })
      .from(entries)
      .where(and(eq(entries.resource_id, id), inArray(entries.path, [DATA_PATH, META_PATH, 'name']))),
};

/** The dashboard page, with a CSP that allows nothing but its own hashed <style>. */
export async function gridPage(rc: ResourceCtx): Promise<Response> {
  const stored = await entryValues(rc.env, rc.preloaded!.rows as Parameters<typeof entryValues>[1]);
  const [data, meta, name] = [
    parsedOr(stored.get(DATA_PATH), rc.resource.id, 'data'),
    parsedOr(stored.get(META_PATH), rc.resource.id, 'meta'),
    stored.get('name'),
  ];
  const page = renderGridPage(name || rc.resource.name, JSON.parse(data) as GridData, JSON.parse(meta) as MetaData);
  return new Response(page.html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': strictPolicy(await sha256Base64(page.style), ALLOW),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'private, no-store',
      'X-NVM-Type': 'file',
    },
  });
}

const pageResponses = { 200: { description: 'HTML page', type: 'text/html' } } as const;

/** html below a grid (owner's and share grantee's paths). */
export function htmlRoute(r: ResourceRoutes): void {
  r.get('/html', {
    summary: 'The dashboard drawn as HTML/CSS (each cell sized by its share); anonymous for public grids',
    need: 'r',
    anonymous: true,
    responses: pageResponses,
    preload: pagePreload,
    handler: gridPage,
  });
}

/** The dashboard by its public paths: the alias /v1/u/:user/g/:grid/html and the grid's url /u/:user/g/:grid. */
export function publicPageRoutes(api: Api): void {
  api.get('/v1/u/:user/g/:grid/html', {
    summary:
      "A grid's dashboard page by its public url (anonymous for publicly shared grids; same access rules otherwise)",
    tag: gridKind.collection,
    auth: 'optional',
    responses: pageResponses,
    handler: async (ctx) => gridPage(await loadUserPath(ctx, gridKind, undefined, pagePreload)),
  });

  api.get('/u/:user/g/:grid', {
    summary:
      "A grid's page at its url: its dashboard (anonymous for publicly shared grids; same access rules otherwise)",
    tag: 'pages',
    auth: 'optional',
    responses: pageResponses,
    handler: async (ctx) => gridPage(await loadUserPath(ctx, gridKind, undefined, pagePreload)),
  });
}
