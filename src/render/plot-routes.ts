/**
 * A plot's drawings (files/plot.svg, plot.png, plot.txt, plot.ansi) and its page
 * `/u/:user/p/:plot`: what the clients read (`Plot.x` prints files/plot.ansi, `files.img`
 * reads the PNG). Drawn from the data and config read with the plot (one D1 round trip),
 * keyed by their hash: the ETag answers 304, the SVG and text come from the drawing cache, the
 * PNG from R2. Public plots need no token; anything the caller may not read is 404.
 */
import { text } from '../core/examples';
import { htmlPage } from '../core/examples';
import * as z from 'zod';
import type { Api } from '../core/api';
import { sha256Base64 } from '../core/crypto';
import { badRequest } from '../core/errors';
import { USER_BYTES_HEADERS } from '../core/http';
import { listingResponses } from '../core/listing';
import { entriesQuery, entryValues, readEntry } from '../core/entries';
import { loadUserPath, type Preload, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { escapeHtml } from '../markup/escape';
import { pageHeaders, strictPage, strictPolicy } from '../markup/strict-page';
import { drawStored, requestKey, type DrawRequest } from '../plots/draw';
import { plotKind } from '../plots/kind';
import { DEFAULT_SIZE, DEFAULT_TEXT_WIDTH, type Size } from '../plots/model';
import { drawingHash } from '../plots/stored';
import { hoistStyle } from '../plots/svg-style';
import { filesListing } from './file-routes';
import { cachedPng } from './plot-png';
import { once } from '../core/once';

const PLOT_FILES = ['plot.ansi', 'plot.png', 'plot.svg', 'plot.txt'] as const;

/** Sizes a request may ask for: width and height in CSS px, text width in characters. */
const SIZE_RANGE = { min: 100, max: 4000 };
const TEXT_RANGE = { min: 20, max: 400 };

/** A whole number from the query in [min, max], or the fallback when absent; 400 otherwise. */
function numberParam(rc: ResourceCtx, name: string, range: { min: number; max: number }, fallback: number): number {
  const raw = rc.url.searchParams.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < range.min || n > range.max)
    throw badRequest(`${name} must be a whole number from ${range.min} to ${range.max}`);
  return n;
}

const sizeOf = (rc: ResourceCtx): Size => ({
  width: numberParam(rc, 'width', SIZE_RANGE, DEFAULT_SIZE.width),
  height: numberParam(rc, 'height', SIZE_RANGE, DEFAULT_SIZE.height),
});

/** The plot's own headers on a drawing: revalidated by ETag, never read as another type, never run. */
function drawingHeaders(type: string, etag: string): Record<string, string> {
  return {
    'Content-Type': type,
    ETag: etag,
    'Cache-Control': 'private, no-cache',
    'X-NVM-Type': 'file',
    ...USER_BYTES_HEADERS,
  };
}

/** Everything of the plot but its data, read with the plot (one round trip): a cached drawing needs no more. */
const withoutData: Preload = { rows: (ctx, id) => entriesQuery(ctx.db, id, '', ['data']) };

/** The plot's entries but its data, and how to read the data when a drawing is not cached. */
async function storedPlot(rc: ResourceCtx) {
  const values = await entryValues(rc.env, rc.preloaded!.rows as Parameters<typeof entryValues>[1]);
  const loadData = async () => (await readEntry(rc.env, rc.db, rc.resource.id, 'data')) ?? '';
  return { values, loadData };
}

/** 304 when the caller holds the drawing of `hash`. */
const notModified = (rc: ResourceCtx, headers: Record<string, string>) =>
  rc.req.headers.get('If-None-Match') === headers.ETag ? new Response(null, { status: 304, headers }) : null;

async function drawingResponse(rc: ResourceCtx, req: DrawRequest, type: string): Promise<Response> {
  const { values, loadData } = await storedPlot(rc);
  const headers = drawingHeaders(type, `"${await drawingHash(values, rc.resource.name, requestKey(req))}"`);
  const same = notModified(rc, headers);
  if (same) return same;
  const { drawing } = await drawStored(values, rc.resource.name, req, loadData);
  return new Response(drawing, { headers });
}

async function pngResponse(rc: ResourceCtx): Promise<Response> {
  const { values, loadData } = await storedPlot(rc);
  const size = sizeOf(rc);
  const req: DrawRequest = { format: 'svg', size };
  const hash = await drawingHash(values, rc.resource.name, `png ${requestKey(req)}`);
  const headers = drawingHeaders('image/png', `"${hash}"`);
  const same = notModified(rc, headers);
  if (same) return same;
  const out = await cachedPng(rc.env, rc.resource.id, hash, async () => ({
    svg: (await drawStored(values, rc.resource.name, req, loadData)).drawing,
    size,
  }));
  return new Response(out.bytes, { headers: { ...headers, 'X-Render-Cache': out.cached ? 'hit' : 'miss' } });
}

/** What a bar chart drawn as text reads like, plain and in ANSI 256 colours (the document's examples). */
const TEXT_BARS = ['2025-08 ████████████████████ 120,500', '2025-09 ██████████████████████ 131,200'];
const TEXT_EXAMPLES = {
  txt: `Revenue by month\n${TEXT_BARS.join('\n')}\n`,
  ansi: `Revenue by month\n${TEXT_BARS.map((l) => l.replace(/(█+)/, '\u001b[38;5;33m$1\u001b[0m')).join('\n')}\n`,
};

const sizeQuery = once(() => z.object({ width: z.string().optional(), height: z.string().optional() }));
const widthQuery = once(() => z.object({ width: z.string().optional() }));

/** files/ below a plot: its listing and the four drawings. */
export function plotFileRoutes(r: ResourceRoutes): void {
  r.get('/files', {
    summary: "List a plot's drawings",
    need: 'r',
    anonymous: true,
    edge: 'cache',
    responses: listingResponses,
    handler: async (rc) => filesListing(rc, PLOT_FILES),
  });
  r.get('/files/plot.svg', {
    summary: `The plot as SVG (width and height in px, ${SIZE_RANGE.min}-${SIZE_RANGE.max}; default ${DEFAULT_SIZE.width}x${DEFAULT_SIZE.height}): title, description and a table of its data for screen readers, light and dark themes`,
    need: 'r',
    anonymous: true,
    edge: 'cache',
    preload: withoutData,
    query: sizeQuery,
    responses: { 200: { description: 'SVG', type: 'image/svg+xml' }, 304: { description: 'Not modified' } },
    handler: (rc) => drawingResponse(rc, { format: 'svg', size: sizeOf(rc) }, 'image/svg+xml'),
  });
  r.get('/files/plot.png', {
    summary: 'The plot as PNG (the SVG drawn by the browser at twice its size; width and height as for the SVG)',
    need: 'r',
    anonymous: true,
    edge: 'cache',
    preload: withoutData,
    query: sizeQuery,
    responses: {
      200: { description: 'PNG', type: 'image/png' },
      304: { description: 'Not modified' },
      502: { description: 'The browser failed to draw it' },
      504: { description: 'Drawing took too long' },
    },
    handler: pngResponse,
  });
  for (const [file, format] of [
    ['plot.txt', 'txt'],
    ['plot.ansi', 'ansi'],
  ] as const) {
    r.get(`/files/${file}`, {
      summary: `The plot as ${format === 'ansi' ? 'text with ANSI 256 colours' : 'plain text'} for a terminal (width in characters, ${TEXT_RANGE.min}-${TEXT_RANGE.max}; default ${DEFAULT_TEXT_WIDTH})`,
      need: 'r',
      anonymous: true,
      edge: 'cache',
      preload: withoutData,
      query: widthQuery,
      responses: {
        200: { description: 'Text', type: 'text/plain', schema: () => text(TEXT_EXAMPLES[format]) },
        304: { description: 'Not modified' },
      },
      handler: (rc) =>
        drawingResponse(
          rc,
          { format, width: numberParam(rc, 'width', TEXT_RANGE, DEFAULT_TEXT_WIDTH) },
          'text/plain; charset=utf-8',
        ),
    });
  }
}

const PAGE_STYLE =
  'html,body{margin:0;font:15px/1.4 system-ui,sans-serif;background:#fff;color:#1d2433}' +
  'main{max-width:1000px;margin:0 auto;padding:24px}h1{font-size:1.4em;margin:0 0 12px}' +
  '.plot svg{width:100%;height:auto;display:block}.about{color:#5b6475}' +
  '@media (prefers-color-scheme: dark){html,body{background:#111418;color:#e6e9ef}.about{color:#9aa3b2}}';

/** The plot's page: its name, its description and the drawing, under a strict policy (no script). */
async function plotPage(rc: ResourceCtx): Promise<Response> {
  const values = rc.preloaded!.entries!;
  const title = values.get('name') || rc.resource.name;
  const { drawing } = await drawStored(values, rc.resource.name, { format: 'svg', size: DEFAULT_SIZE, scope: 'plot' });
  const { svg, style: plotStyle } = hoistStyle(drawing);
  const style = PAGE_STYLE + plotStyle;
  const about = values.get('description') || values.get('summary') || '';
  const body =
    `<main><h1>${escapeHtml(title)}</h1>` +
    (about ? `<p class="about">${escapeHtml(about)}</p>` : '') +
    `<figure class="plot">${svg}</figure></main>`;
  const hash = await sha256Base64(style);
  return new Response(strictPage({ title, style, body, policy: strictPolicy(hash, [], true) }), {
    headers: pageHeaders(strictPolicy(hash, [])),
  });
}

export function plotPageRoute(api: Api): void {
  api.get('/u/:user/p/:plot', {
    summary: "The plot's page at its url: its drawing with its name and description (anonymous for public plots)",
    tag: 'pages',
    auth: 'optional',
    edge: 'cache',
    responses: {
      200: { description: 'The plot as an HTML page', type: 'text/html', schema: () => htmlPage('Revenue by month') },
    },
    handler: async (ctx) => plotPage(await loadUserPath(ctx, plotKind, undefined, { entries: true })),
  });
}
