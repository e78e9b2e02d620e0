// The import layering `npm run lint` checks (depcruise src durable isolates). Layers, top to bottom:
//   src/index.ts → src/app.ts → durable/ → the areas, level by level (AREA_LEVELS) → src/markup → src/core → src/db
// isolates/ (the code the Worker Loader runs, built apart: scripts/isolates.mjs) sits beside the top: it
// imports what it runs from src/, and nothing imports it (the Worker reads its build as text).
// Every import points down this list; docs/ARCHITECTURE.md ("Layout") draws the same order.

// The areas (src/<area>/) in levels, top to bottom. An area imports only areas on a lower
// level, never one on its own level: adding an import upward (or sideways) means the area is
// in the wrong level or the code it wants belongs lower down.
const AREA_LEVELS = [
  ['gql', 'accounts'], // GraphQL reads every kind of item; accounts holds /v1/ops, which records mail bounces
  ['mail', 'jobs', 'webhooks'], // mail attaches rendered documents and sends to group members; inbound group mail runs jobs; webhooks deliver the events areas emit through core/events.ts
  ['render', 'grids', 'groups'], // render draws documents and plots; grids take documents' themes and draw plots; an org lists its documents' variables
  ['docs', 'meta', 'plots'], // import no area
];
const AREAS = `(${AREA_LEVELS.flat().join('|')})`;

/** One rule per level: its areas may not import an area on the same level or above. */
const areaOrder = AREA_LEVELS.map((level, i) => {
  const notBelow = AREA_LEVELS.slice(0, i + 1).flat();
  const below = AREA_LEVELS.slice(i + 1).flat();
  return {
    name: `area-order-${level.join('-')}`,
    comment: `${level.join(', ')} may import ${below.length ? `only the areas below them (${below.join(', ')})` : 'no area'}: see AREA_LEVELS.`,
    severity: 'error',
    from: { path: `^src/(${level.join('|')})/` },
    to: { path: `^src/(${notBelow.join('|')})/`, pathNot: '^src/$1/' },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'An import cycle: the modules on it cannot be read, tested or moved one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'top-not-imported',
      comment:
        'src/index.ts (the Worker) and src/app.ts (the route table) are the top: only index.ts imports app.ts, nothing imports index.ts.',
      severity: 'error',
      from: { pathNot: '^src/index\\.ts$' },
      to: { path: '^src/(index|app)\\.ts$' },
    },
    {
      name: 'isolates-not-imported',
      comment:
        'isolates/ is built into text the Worker Loader runs (scripts/isolates.mjs): an import of it would put its libraries back into the Worker.',
      severity: 'error',
      from: { pathNot: '^isolates/' },
      to: { path: '^isolates/' },
    },
    {
      name: 'src-not-durable',
      comment:
        'Only src/index.ts (which exports the Durable Object classes) imports durable/; the logic they run lives in its area.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/index\\.ts$' },
      to: { path: '^durable/' },
    },
    ...areaOrder,
    {
      name: 'lower-layers-not-areas',
      comment: 'core/, db/ and markup/ sit below every area: they may not import one.',
      severity: 'error',
      from: { path: '^src/(core|db|markup)/' },
      to: { path: `^src/${AREAS}/` },
    },
    {
      name: 'core-not-markup',
      comment: 'markup/ (pure rendering) sits above core/: core may not import it.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/markup/' },
    },
    {
      name: 'db-at-the-bottom',
      comment: 'db/ (the core drizzle tables) is the lowest layer: it imports nothing else of src/.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/db/' },
    },
    {
      name: 'not-another-areas-routes',
      comment: "An area uses another area's functions, never its route handlers (routes.ts, *-routes.ts).",
      severity: 'error',
      from: { path: `^src/${AREAS}/` },
      to: { path: `^src/${AREAS}(/|/.*[/-])routes\\.ts$`, pathNot: '^src/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
