/** The grid resource kind: a dashboard drawn by a layout file and bound by a mapping file. */
import { canonicalEntries, typeWordProblem } from '../core/canonical';
import type { ResourceKind } from '../core/resource';
import { KiB } from '../core/http';
import { themeEntryProblem } from '../docs/kind';
import { DEFAULT_THEME } from '../markup/themes';
import { mappingReferences } from './plot-refs';
import { otherSourcePreload, parsedEntries, parseStatements, settleParse, validateLayout } from './store';

export const LAYOUT_LIMIT = 128 * KiB;
export const MAPPING_LIMIT = 64 * KiB;

/** What a layout and its mapping read like (the OpenAPI document's examples; json-routes.ts parses them). */
export const LAYOUT_EXAMPLE = '+-----+-----+\n| {A} |{B:v}|\n+-----+-----+\n|   {C:^}   |\n+-----------+\n';
export const MAPPING_EXAMPLE =
  'A => /u/alice/p/revenue\nB => /u/alice/p/orders, h=t\nC => /u/alice/p/margins, c=true\n';

export const gridKind: ResourceKind = {
  kind: 'grid',
  collection: 'vis/grids',
  param: 'grid',
  noun: 'grid',
  entries: [
    { path: 'name', access: 'rw', summary: 'Display name', example: 'Sales dashboard' },
    {
      path: 'description',
      access: 'rw',
      summary: 'Longer description',
      example: 'Revenue, orders and margins by region, refreshed every morning.',
    },
    { path: 'summary', access: 'rw', limit: 4 * KiB, summary: 'Short text summary', example: 'Sales at a glance' },
    ...canonicalEntries(() => gridKind),
    {
      path: 'config/theme',
      access: 'rw',
      default: DEFAULT_THEME,
      limit: 1 * KiB,
      validate: themeEntryProblem,
      summary: 'Theme name, as for documents (a built-in theme or +<org>/<theme>)',
    },
    {
      path: 'config/type',
      access: 'rw',
      default: 'grid',
      limit: 64,
      validate: typeWordProblem,
      summary: 'Type: a lowercase word (stored for the clients; the dashboard does not change with it)',
    },
    {
      path: 'layout',
      access: 'rw',
      limit: LAYOUT_LIMIT,
      summary:
        'The layout drawing (+ - |); a fault of rules 1-3 answers 400 naming row and column and keeps the previous layout',
      example: LAYOUT_EXAMPLE,
      validate: validateLayout,
      // The parse is stored with the layout (one batch); afterWrite re-checks the sources against a racing write.
      writePreload: otherSourcePreload('layout'),
      writeStatements: (rc, value) => parseStatements(rc, 'layout', value),
      afterWrite: (rc, value) => settleParse(rc, 'layout', value),
    },
    {
      path: 'mapping',
      access: 'rw',
      limit: MAPPING_LIMIT,
      summary: 'The mapping: LABEL => /u/<user>/p/<plot>[,key=value]... per line',
      example: MAPPING_EXAMPLE,
      // The plots it names are drawn with the rights of the grid's owner and of the mapping's writer.
      references: { path: 'grid.plots', of: (value) => mappingReferences(value) },
      writePreload: otherSourcePreload('mapping'),
      writeStatements: (rc, value) => parseStatements(rc, 'mapping', value),
      afterWrite: (rc, value) => settleParse(rc, 'mapping', value),
    },
  ],
  folders: ['json', 'threads'],
  files: [{ name: 'html', access: 'r' }],
  log: true,
  // the dashboard page anyone allowed can open (anonymous once shared publicly)
  url: (env, owner, name) => `${env.PUBLIC_ORIGIN}/u/${owner}/g/${name}`,
  // The copy's parse (it names the copy's id) is made from the copied sources and stored with them.
  copyDerived: (to, values) => parsedEntries(values.get('layout') ?? null, values.get('mapping') ?? null, to.id),
};
