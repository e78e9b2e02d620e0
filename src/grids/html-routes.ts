/**
 * The html entry of a grid: its dashboard page, served at the grid's own path, at the
 * public alias /v1/u/:user/g/:grid/html and at the grid's url /u/:user/g/:grid.
 */
import { htmlPage } from '../core/examples';
import { sha256Base64 } from '../core/crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { entryAuthorship, entryValues } from '../core/entries';
import type { Api } from '../core/api';
import { loadUserPath, type Preload, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { entries } from '../db/schema';
import { strictPolicy } from '../markup/strict-page';
import type { GridData, MetaData } from './build';
import { drawStored } from '../plots/draw';
import { hoistStyle } from '../plots/svg-style';
import { boxPlots } from './box-plots';
import { canvasSize, placeCells, renderGridPage, type CellDrawing } from './html';
import { gridKind } from './kind';
import { DATA_PATH, META_PATH, parsedOr } from './store';

/** A dashboard shows no images and runs no script: its policy says so outright. */
const ALLOW = ["img-src 'none'", "script-src 'none'"];

/** The page's reads (the parse results, the name, who wrote the mapping) batched with the grid's own. */
const pagePreload: Preload = {
  rows: (ctx, id) =>
    ctx.db
      .select({
        path: entries.path,
        value: entries.value,
        blob_key: entries.blob_key,
        written_by: entries.written_by,
        vouched: entries.vouched,
      })
      .from(entries)
      .where(and(eq(entries.resource_id, id), inArray(entries.path, [DATA_PATH, META_PATH, 'name', 'mapping']))),
};

/**
 * The dashboard page, with a CSP that allows nothing but its own hashed <style>: each box
 * draws its plot, resolved now with the rights of the grid's owner and the mapping's writer.
 */
async function gridPage(rc: ResourceCtx): Promise<Response> {
  const rows = rc.preloaded!.rows as Parameters<typeof entryValues>[1] & Parameters<typeof entryAuthorship>[0];
  const stored = await entryValues(rc.env, rows);
  const [data, meta, name] = [
    JSON.parse(parsedOr(stored.get(DATA_PATH), rc.resource.id, 'data')) as GridData,
    JSON.parse(parsedOr(stored.get(META_PATH), rc.resource.id, 'meta')) as MetaData,
    stored.get('name'),
  ];
  const plots = await boxPlots(rc, meta, entryAuthorship(rows).get('mapping'));
  const cells = placeCells(data);
  const drawn = new Map<number, CellDrawing>();
  for (const [i, c] of cells.entries()) {
    const ref = Object.values(meta).find((m) => m.lid === c.node.inst?.lid)?.ref;
    const plot = ref === undefined ? undefined : plots.get(ref);
    if (!plot) continue;
    if (plot.state === 'drawn') {
      const svg = await drawStored(plot.values, plot.name, { format: 'svg', size: canvasSize(c), scope: `plot-c${i}` });
      drawn.set(i, hoistStyle(svg.drawing));
    } else drawn.set(i, { missing: plot.state === 'over' ? plot.why : 'no plot to show' });
  }
  const page = renderGridPage(
    name || rc.resource.name,
    data,
    meta,
    (i) => drawn.get(i) ?? { missing: 'no plot to show' },
  );
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

const pageResponses = {
  200: { description: 'HTML page', type: 'text/html', schema: () => htmlPage('Sales dashboard') },
} as const;

/** html below a grid (owner's and share grantee's paths). */
export function htmlRoute(r: ResourceRoutes): void {
  r.get('/html', {
    summary: 'The dashboard drawn as HTML/CSS (each cell sized by its share); anonymous for public grids',
    need: 'r',
    anonymous: true,
    edge: 'cache',
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
    edge: 'cache',
    responses: pageResponses,
    handler: async (ctx) => gridPage(await loadUserPath(ctx, gridKind, undefined, pagePreload)),
  });

  api.get('/u/:user/g/:grid', {
    summary:
      "A grid's page at its url: its dashboard (anonymous for publicly shared grids; same access rules otherwise)",
    tag: 'pages',
    auth: 'optional',
    edge: 'cache',
    responses: pageResponses,
    handler: async (ctx) => gridPage(await loadUserPath(ctx, gridKind, undefined, pagePreload)),
  });
}
