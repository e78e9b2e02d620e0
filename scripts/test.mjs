#!/usr/bin/env node
// npm test: the lint checks (formatting, import layering, type checks), then the Node suite (pure
// functions that time themselves, alone on the machine; the paths the docs name; the route
// table), then the unit tests (pure functions, in Node), then the workerd suite (vitest +
// Workers pool: real local D1, R2, Durable Objects), then the end-to-end suite (real server
// over HTTP). Prints one closing line `tests: N passed, N failed, N skipped` and exits
// non-zero on any failure, a failed lint check included. SKIP_LINT=1 skips the lint checks.
// Extra arguments are passed to every vitest run (e.g. a file filter).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localBrowserSetup } from './local-browser.mjs';
import { lint } from './lint.mjs';
import { killOrphans } from './serve.mjs';
import { wranglerEnv } from './wrangler-env.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, '.test-results');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const env = wranglerEnv();

// `npm run lint` first (formatting, layering, type checks, generated types: scripts/lint.mjs).
let lintFailures = [];
if (process.env.SKIP_LINT === '1') console.log('=== lint skipped (SKIP_LINT=1)');
else lintFailures = lint();

localBrowserSetup();

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const suites = [
  ['node', 'vitest.node.config.mts'],
  ['units', 'vitest.units.config.mts'],
  ['workerd', 'vitest.config.mts'],
  ['e2e', 'vitest.e2e.config.mts'],
];
const args = process.argv.slice(2);
let passed = 0,
  failed = 0,
  skipped = 0,
  broken = false;
for (const [name, config] of suites) {
  const json = join(out, `${name}.json`);
  console.log(`\n=== ${name} suite (${config})`);
  const r = spawnSync(
    process.execPath,
    [
      vitest,
      'run',
      '-c',
      config,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${json}`,
      '--passWithNoTests',
      ...args,
    ],
    {
      cwd: root,
      env,
      stdio: 'inherit',
    },
  );
  killOrphans(); // a suite may leave workerd or local Browser Rendering processes behind
  if (!existsSync(json)) {
    console.error(`${name} suite produced no results (exit ${r.status})`);
    broken = true;
    continue;
  }
  const res = JSON.parse(readFileSync(json, 'utf8'));
  passed += res.numPassedTests;
  failed += res.numFailedTests;
  skipped += res.numPendingTests + (res.numTodoTests ?? 0);
  // A suite that failed to load (syntax error, setup failure) counts as failed.
  if (r.status !== 0 && res.numFailedTests === 0) {
    console.error(`${name} suite exited ${r.status}`);
    broken = true;
  }
}
if (lintFailures.length) console.error(`\nlint failed: ${lintFailures.join(', ')} (npm run lint)`);
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed || broken || lintFailures.length ? 1 : 0);
