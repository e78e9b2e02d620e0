/**
 * The json/ folder of a grid: its parsed results (data.json, meta_data.json, stored when
 * the layout or mapping is written) and parse_time, a diagnostic that parses the stored
 * sources again and times it.
 */
import * as z from 'zod';
import { badRequest } from '../core/errors';
import { listingResponse, listingResponses } from '../core/listing';
import { permList } from '../core/perms';
import { listingItem, type ResourceRoutes } from '../core/resource';
import { buildData, buildMeta } from './build';
import { LAYOUT_EXAMPLE, MAPPING_EXAMPLE } from './kind';
import { parseLayout } from './layout';
import { parseMapping } from './mapping';
import { parseGrid, readParsed, readSources } from './store';
import { timeInBatches } from './timing';
import { once } from '../core/once';

const PARSE_TIME_MAX_RUNS = 500;
const PARSE_TIME_BATCH = 5;
/**
 * Parsing time one diagnostics request may spend: the cost per character varies ~30x between drawings, so it is
 * measured, not guessed from the size.
 */
const PARSE_TIME_BUDGET_MS = 500;

function jsonFile(text: string): Response {
  return new Response(text, { headers: { 'Content-Type': 'application/json', 'X-NVM-Type': 'file' } });
}

const instSchema = once(() =>
  z.object({
    lid: z.string(),
    position: z.enum(['top', 'middle', 'bottom']),
    include_header: z.boolean(),
    include_caption: z.boolean(),
  }),
);
// Nodes nest to any depth: described as a node whose children are nodes (one level spelled out).
const leafSchema = once(() =>
  z.object({
    type: z.enum(['wrapper', 'wrapper container']),
    width: z.number(),
    height: z.number(),
    children: z.array(z.unknown()),
    inst: instSchema().optional(),
  }),
);
const nodeSchema = once(() => leafSchema().extend({ children: z.array(leafSchema()) }));
/** The examples of data.json and meta_data.json: what the example layout and mapping of a grid (id 42) parse to. */
const exampleMapping = once(() => parseMapping(MAPPING_EXAMPLE));
const dataSchema = once(() =>
  z.object({ structure: nodeSchema() }).meta({
    id: 'GridData',
    description: "A grid's layout as nested boxes (data.json): sizes, and the cell each innermost box shows",
    example: buildData(parseLayout(LAYOUT_EXAMPLE), exampleMapping(), 42),
  }),
);
const metaSchema = once(() =>
  z
    .record(
      z.string(),
      z.object({ lid: z.string(), ref: z.string(), params: z.record(z.string(), z.union([z.string(), z.boolean()])) }),
    )
    .meta({
      id: 'GridMetaData',
      description: "A grid's labels (meta_data.json): each with its lid, the plot it shows and its parameters",
      example: buildMeta(exampleMapping(), 42),
    }),
);

const parseTimeSchema = once(() =>
  z
    .object({
      runs: z.number().int(),
      ms_per_parse: z.number(),
      mean_ms_per_parse: z.number(),
      best_ms_per_parse: z.number(),
      samples: z.array(z.number()),
      columns: z.number(),
      rows: z.number(),
      cells: z.number(),
    })
    .meta({
      example: {
        runs: 100,
        ms_per_parse: 0.21,
        mean_ms_per_parse: 0.23,
        best_ms_per_parse: 0.18,
        samples: [0.2, 0.21, 0.24, 0.22, 0.18],
        columns: 13,
        rows: 5,
        cells: 3,
      },
    }),
);

export function jsonRoutes(r: ResourceRoutes): void {
  r.get('/json', {
    summary: 'List the parsed results of a grid',
    need: 'r',
    responses: listingResponses,
    handler: (rc) => {
      const at = (name: string) =>
        listingItem(
          rc,
          name,
          `${rc.base}/json/${name}`,
          'file',
          ['GET'],
          rc.resource.created_on,
          rc.resource.last_modified,
        );
      return listingResponse(rc.url, ['data.json', 'meta_data.json', 'parse_time'].map(at), {
        'X-NVM-Permissions': permList(rc.access).join(', '),
      });
    },
  });
  const parsedFiles = [
    [
      'data.json',
      'data',
      'The parsed structure: {structure: node}, nodes {type, width, height, children, inst on leaves}',
      dataSchema,
    ],
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
    query: () => z.object({ runs: z.string().optional() }),
    responses: { 200: { description: 'Timing', type: 'application/json', schema: parseTimeSchema } },
    handler: async (rc) => {
      const raw = rc.url.searchParams.get('runs') ?? '100';
      const runs = Number(raw);
      if (!/^\d+$/.test(raw) || runs < 1 || runs > PARSE_TIME_MAX_RUNS)
        throw badRequest(`runs must be a whole number from 1 to ${PARSE_TIME_MAX_RUNS}`);
      const [layout, mapping] = await readSources(rc.env, rc.db, rc.resource.id);
      const parse = () => parseGrid(layout, mapping, rc.resource.id);
      let last = parse();
      // One more parse, timed (1 ms resolution, so at least 1 ms), caps the runs: the request stays within its budget.
      const one = Math.max(1, (await timeInBatches(1, 1, () => (last = parse()))).mean);
      const maxRuns = Math.max(1, Math.min(PARSE_TIME_MAX_RUNS, Math.floor(PARSE_TIME_BUDGET_MS / one)));
      if (runs > maxRuns) {
        throw badRequest(
          `runs=${runs} is too many for this grid: one parse takes about ${one} ms, so at most ${maxRuns} runs fit in the ${PARSE_TIME_BUDGET_MS} ms a request may spend`,
          { max_runs: maxRuns },
        );
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
}
