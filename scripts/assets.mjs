#!/usr/bin/env node
// The Worker's static assets (wrangler.toml [assets], directory public/): copied from
// node_modules, not kept in git (Scalar's bundle alone is 4 MB, and a copy in git could
// drift from the installed version). Run before wrangler reads public/ by `npm start` (so
// the e2e suite and the bench too), `npm run deploy`, `npm run bench` and the workerd
// suite's vitest config; `node scripts/assets.mjs` makes them by hand (e.g. before a bare
// `wrangler dev`). Not a wrangler.toml [build]: a custom build replaces wrangler dev's own
// file watching (it would watch src/ only, and rebuild once more at every start).
// Copies only what changed, so a running `wrangler dev` does not reload for nothing.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ASSETS_DIR = join(root, 'public');

/** Asset path below public/ (the URL it is served at) → its source below node_modules/. */
const ASSETS = {
  // Scalar's standalone bundle: the API reference page's script (src/meta/reference.ts BUNDLE_PATH).
  'v1/docs/scalar.js': '@scalar/api-reference/dist/browser/standalone.js',
};

export function prepareAssets() {
  for (const [to, from] of Object.entries(ASSETS)) {
    const src = join(root, 'node_modules', from);
    const dst = join(ASSETS_DIR, to);
    if (existsSync(dst) && readFileSync(dst).equals(readFileSync(src))) continue;
    mkdirSync(dirname(dst), { recursive: true });
    copyFileSync(src, dst);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) prepareAssets();
