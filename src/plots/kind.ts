/**
 * The plot resource kind: a chart (or table) drawn from a CSV `data` entry and `config/`
 * entries, as the platform's clients write them (their `Plot` object: type, title, caption,
 * colours, legend, table cell styles, custom CSS). What the entries mean: docs/areas/plots.md.
 */
import { canonicalEntries } from '../core/canonical';
import { sha256Hex } from '../core/crypto';
import { entryUpsert } from '../core/entries';
import { KiB } from '../core/http';
import type { EntrySpec, ResourceKind } from '../core/resource';
import { cellConfigProblem, CELL_FILES } from './cell';
import { colorsProblem, colorTypeProblem } from './colors';
import { DATA_LIMIT, parseCsv } from './csv';
import { legendProblem } from './legend';
import { DEFAULT_PLOT_TYPE, plotTypeProblem } from './model';
import { DATA_DIGEST } from './stored';

const oneLine = (max: number) => (v: string) =>
  /[\r\n]/.test(v) ? 'must be one line' : [...v].length > max ? `at most ${max} characters` : undefined;

/**
 * A config entry of the clients' Plot object, stored as written (validated by `validate` when given); `example`: what
 * a value reads like.
 */
const config = (
  path: string,
  summary: string,
  example: string,
  validate?: EntrySpec['validate'],
  limit = 64 * KiB,
  fallback = '',
): EntrySpec => ({
  path: `config/${path}`,
  access: 'rw',
  default: fallback,
  limit,
  summary,
  example,
  ...(validate ? { validate } : {}),
});

/** What the legend files and the table cell files read like. */
const LEGEND_EXAMPLES = { format: '.1%', layout: 'row', position: 'bottom', type: 'default' } as const;
const CELL_EXAMPLES: Record<(typeof CELL_FILES)[number], string> = {
  align: ': 1: >',
  format: ': 1: ,.2f',
  border: '0 : b 1',
  padding: ': : x 2',
  text: '0 : b',
  width: ': 0 i 120',
};

export const plotKind: ResourceKind = {
  kind: 'plot',
  collection: 'vis/plots',
  param: 'plot',
  noun: 'plot',
  entries: [
    { path: 'name', access: 'rw', default: '', limit: 1 * KiB, summary: 'Display name', example: 'Revenue by month' },
    {
      path: 'description',
      access: 'rw',
      default: '',
      limit: 64 * KiB,
      summary: 'Longer description',
      example: 'Monthly revenue and orders since January, from the finance export.',
    },
    {
      path: 'summary',
      access: 'rw',
      default: '',
      limit: 4 * KiB,
      summary: 'Short text summary',
      example: 'Revenue per month, 2025',
    },
    ...canonicalEntries(() => plotKind),
    {
      path: 'data',
      access: 'rw',
      default: '',
      limit: DATA_LIMIT,
      summary: 'The data: CSV as pandas to_csv() writes it (a header row, the index first); read back byte for byte',
      example: 'month,revenue,orders\n2025-08,120500,310\n2025-09,131200,342\n',
      validate: (v) => {
        const parsed = parseCsv(v);
        return 'error' in parsed ? `line ${parsed.line}: ${parsed.error}` : undefined;
      },
      // Its digest joins the write's batch: drawings are keyed by it without reading the data.
      writeStatements: async (rc, value) => {
        const digest = await entryUpsert(
          rc.env,
          rc.db,
          rc.resource.id,
          DATA_DIGEST,
          await sha256Hex(value ?? ''),
          null,
        );
        return { statements: [digest.statement], after: digest.after };
      },
    },
    config(
      'type',
      'Chart type: line, area, bar, sbar, gbar, hbar, scatter, donut, table (mtable)',
      'bar',
      (v) => plotTypeProblem(v),
      64,
      DEFAULT_PLOT_TYPE,
    ),
    config('title', 'Title drawn above the chart', 'Revenue by month', oneLine(256), 1 * KiB),
    config('caption', 'Caption drawn below the chart', 'Source: finance export, October 2025', undefined, 4 * KiB),
    config(
      'colors/colors',
      'Colours: lines of <rows> <columns> <bg|fg> <color> [<dark color>]',
      ': 1 bg blue-500',
      (v) => colorsProblem(v),
    ),
    config('colors/type', 'How colour lines are written: ix or clr', 'clr', (v) => colorTypeProblem(v)),
    ...(['format', 'layout', 'position', 'type'] as const).map((f) =>
      config(`legend/${f}`, `Legend ${f}`, LEGEND_EXAMPLES[f], (v) => legendProblem(f, v)),
    ),
    ...CELL_FILES.map((c) =>
      config(`table/cell/${c}`, `Table cells: ${c} (lines of <rows> <columns> <instruction>)`, CELL_EXAMPLES[c], (v) =>
        cellConfigProblem(c, v),
      ),
    ),
    config(
      'custom/custom.css',
      'Custom CSS, scoped to the plot when it is drawn',
      '.plot .title { font-weight: 600; }\n',
    ),
    config(
      'custom/custom.js',
      'Custom JavaScript: stored and read back, never executed',
      "document.title = 'Revenue by month';\n",
    ),
  ],
  folders: ['files', 'threads'],
  log: true,
  // The plot's page: anyone allowed can open it (anonymous once shared publicly).
  url: (env, owner, name) => `${env.PUBLIC_ORIGIN}/u/${owner}/p/${name}`,
};
