/**
 * Routes of the grids area: the grid resource (core resourceRoutes: create, list, rename,
 * copy, delete, name, description, layout, mapping, sharing, tags, log), its parsed
 * results under json/, and the rendered dashboard page (html) under the owner's path,
 * the share grantee's path and the public alias /v1/u/:owner/g/:grid/html.
 */
import { resourceThreadRoutes } from '../core/resource/thread-routes';
import { z } from 'zod';
import type { Api } from '../core/api';
import { listingResponse, listingResponses } from '../core/listing';
import { listingItem, loadResource, resourceRoutes, type ResourceCtx } from '../core/resource';
import { readEntry } from '../core/entries';
import { badRequest } from '../core/errors';
import { permList } from '../core/perms';
import type { GridData, MetaData } from './build';
import { renderGridPage } from './html';
import { gridKind } from './kind';
import { parseGrid, readParsed, readSources } from './store';
import { timeInBatches } from './timing';

const PARSE_TIME_MAX_RUNS = 500;
const PARSE_TIME_BATCH = 5;
/** Parsing time one diagnostics request may spend: the cost per character varies ~30x between drawings, so it is measured, not guessed from the size. */
export const PARSE_TIME_BUDGET_MS = 500;

function jsonFile(text: string): Response {
  return new Response(text, { headers: { 'Content-Type': 'application/json', 'X-NVM-Type': 'file' } });
}

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

/** The dashboard page, with a CSP that allows nothing but its own hashed <style>. */
async function gridPage(rc: ResourceCtx): Promise<Response> {
  const [data, meta, name] = await Promise.all([
    readParsed(rc.env, rc.db, rc.resource.id, 'data'),
    readParsed(rc.env, rc.db, rc.resource.id, 'meta'),
    readEntry(rc.env, rc.db, rc.resource.id, 'name'),
  ]);
  const page = renderGridPage(name || rc.resource.name, JSON.parse(data) as GridData, JSON.parse(meta) as MetaData);
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${await sha256Base64(page.style)}'`,
    "img-src 'none'",
    "script-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return new Response(page.html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': csp,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'private, no-store',
      'X-NVM-Type': 'file',
    },
  });
}

const instSchema = z.object({ lid: z.string(), position: z.enum(['top', 'middle', 'bottom']), include_header: z.boolean(), include_caption: z.boolean() });
// Nodes nest to any depth: described as a node whose children are nodes (one level spelled out).
const leafSchema = z.object({ type: z.enum(['wrapper', 'wrapper container']), width: z.number(), height: z.number(), children: z.array(z.unknown()), inst: instSchema.optional() });
const nodeSchema = leafSchema.extend({ children: z.array(leafSchema) });
const dataSchema = z.object({ structure: nodeSchema });
const metaSchema = z.record(z.string(), z.object({ lid: z.string(), ref: z.string(), params: z.record(z.string(), z.union([z.string(), z.boolean()])) }));

const parseTimeSchema = z.object({
  runs: z.number().int(),
  ms_per_parse: z.number(),
  mean_ms_per_parse: z.number(),
  best_ms_per_parse: z.number(),
  samples: z.array(z.number()),
  columns: z.number(),
  rows: z.number(),
  cells: z.number(),
});

export function gridRoutes(api: Api): void {
  resourceRoutes(api, gridKind, (r) => {
    resourceThreadRoutes(r, 'grid');
    r.get('/json', {
      summary: 'List the parsed results of a grid',
      need: 'r',
      responses: listingResponses,
      handler: (rc) => {
        const at = (name: string) => listingItem(rc, name, `${rc.base}/json/${name}`, 'file', ['GET'], rc.resource.created_on, rc.resource.last_modified);
        return listingResponse(['data.json', 'meta_data.json', 'parse_time'].map(at), { 'X-NVM-Permissions': permList(rc.access).join(', ') });
      },
    });
    const parsedFiles = [
      ['data.json', 'data', 'The parsed structure: {structure: node}, nodes {type, width, height, children, inst on leaves}', dataSchema],
      ['meta_data.json', 'meta', 'The mapping references: {LABEL: {lid, ref, params}}', metaSchema],
    ] as const;
    for (const [file, which, summary, schema] of parsedFiles) {
      r.get(`/json/${file}`, {
        summary,
        need: 'r',
        anonymous: true,
        responses: { 200: { description: summary, type: 'application/json', schema } },
        handler: async (rc) => jsonFile(await readParsed(rc.env, rc.db, rc.resource.id, which)),
      });
    }
    r.get('/json/parse_time', {
      summary:
        'Diagnostics: parses the stored layout and mapping `runs` times (1-500, default 100) inside the Worker and reports the time per parse (median of batches of 5, mean, best, and each batch); runs × the time of one parse must fit in 500 ms, else 400 with max_runs',
      need: 'r',
      query: z.object({ runs: z.string().optional() }),
      responses: { 200: { description: 'Timing', type: 'application/json', schema: parseTimeSchema } },
      handler: async (rc) => {
        const raw = rc.url.searchParams.get('runs') ?? '100';
        const runs = Number(raw);
        if (!/^\d+$/.test(raw) || runs < 1 || runs > PARSE_TIME_MAX_RUNS) throw badRequest(`runs must be a whole number from 1 to ${PARSE_TIME_MAX_RUNS}`);
        const [layout, mapping] = await readSources(rc.env, rc.db, rc.resource.id);
        const parse = () => parseGrid(layout, mapping, rc.resource.id);
        let last = parse();
        // One more parse, timed (1 ms resolution, so at least 1 ms), caps the runs: the request stays within its budget.
        const one = Math.max(1, (await timeInBatches(1, 1, () => (last = parse()))).mean);
        const maxRuns = Math.max(1, Math.min(PARSE_TIME_MAX_RUNS, Math.floor(PARSE_TIME_BUDGET_MS / one)));
        if (runs > maxRuns) {
          throw badRequest(`runs=${runs} is too many for this grid: one parse takes about ${one} ms, so at most ${maxRuns} runs fit in the ${PARSE_TIME_BUDGET_MS} ms a request may spend`, { max_runs: maxRuns });
        }
        const timing = await timeInBatches(runs, PARSE_TIME_BATCH, () => (last = parse()));
        return Response.json({
          runs,
          ms_per_parse: timing.p50,
          mean_ms_per_parse: timing.mean,
          best_ms_per_parse: timing.best,
          samples: timing.samples,
          columns: last.layout?.columns ?? 0,
          rows: last.layout?.rows ?? 0,
          cells: last.layout?.cells ?? 0,
        });
      },
    });
    r.get('/html', {
      summary: 'The dashboard drawn as HTML/CSS (each cell sized by its share); anonymous for public grids',
      need: 'r',
      anonymous: true,
      responses: { 200: { description: 'HTML page', type: 'text/html' } },
      handler: gridPage,
    });
  });

  api.get('/v1/u/:owner/g/:grid/html', {
    summary: "A grid's dashboard page by its public url (anonymous for publicly shared grids; same access rules otherwise)",
    tag: gridKind.collection,
    auth: 'optional',
    responses: { 200: { description: 'HTML page', type: 'text/html' } },
    handler: async (ctx) => gridPage(await loadResource(ctx, gridKind)),
  });
}
