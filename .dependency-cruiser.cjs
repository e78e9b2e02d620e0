// The import layering `npm run lint` checks (depcruise src durable). Layers, top to bottom:
//   durable/ (thin Durable Object classes) → areas (src/<area>/) → src/markup, src/core → src/db
// src/index.ts and src/app.ts sit on top: they wire the areas and export the classes.
const AREAS = '(accounts|docs|render|grids|groups|jobs|mail|gql|meta)';

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
      name: 'src-not-durable',
      comment: 'Only src/index.ts (which exports the Durable Object classes) imports durable/; the logic they run lives in its area.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/index\\.ts$' },
      to: { path: '^durable/' },
    },
    {
      name: 'lower-layers-not-areas',
      comment: 'core/, db/ and markup/ sit below every area: they may not import one.',
      severity: 'error',
      from: { path: '^src/(core|db|markup)/' },
      to: { path: `^src/${AREAS}/` },
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
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
