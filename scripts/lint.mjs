#!/usr/bin/env node
// npm run lint: formatting, import layering, unused exports (knip), oxlint, the type check of every TypeScript project,
// that worker-configuration.d.ts still matches wrangler.toml, and the OpenAPI document's lint. Every check runs even when an
// earlier one fails, so all failures are reported; exits non-zero on any. npm test runs the
// same checks first (scripts/test.mjs). Arguments pick checks by group: `node scripts/lint.mjs
// types` (npm run typecheck) runs only the type checks.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wranglerEnv } from './wrangler-env.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** [name, group, tool in node_modules/.bin, its arguments]. */
export const CHECKS = [
  ['format', 'style', 'prettier', ['--check', '.']],
  ['layering', 'style', 'depcruise', ['src', 'durable', 'isolates', '--config', '.dependency-cruiser.cjs']],
  // Unused files, and exports (values and types) that no other file imports (knip.json names
  // the entry points): one used only in its own file is not exported, one used nowhere is deleted.
  ['unused exports', 'style', 'knip', ['--no-progress']],
  // oxlint's correctness rules and a few suspicious ones (.oxlintrc.json): no errors, no
  // warnings; an intended exception is a disable comment on its line that says why.
  ['oxlint', 'style', 'oxlint', ['--deny-warnings', '.']],
  // One tsc per project: the Worker with its workerd tests, the e2e suite (Node), and the
  // job sandbox's runtime (plain JavaScript, checked through its JSDoc).
  ['types: worker', 'types', 'tsc', ['--noEmit', '-p', 'tsconfig.json']],
  ['types: e2e', 'types', 'tsc', ['--noEmit', '-p', 'test/e2e/tsconfig.json']],
  ['types: sandbox runtime', 'types', 'tsc', ['--noEmit', '-p', 'src/jobs/sandbox-runtime/tsconfig.json']],
  // Compares the hash in the file's header with the bindings of wrangler.toml (no network,
  // no local .dev.vars: scripts/wrangler-types.mjs); the fix is `npm run types`.
  ['bindings', 'types', 'node', ['scripts/wrangler-types.mjs', '--check']],
  // The OpenAPI document, generated from the route table in Node, through `redocly lint`
  // (recommended rules, redocly.yaml): no errors, no warnings.
  ['api description', 'api', 'node', ['scripts/openapi.mjs', '--lint']],
  // One change per commit (CONTRIBUTING.md): subjects and bodies since the rule was written.
  ['commits', 'style', 'node', ['scripts/commits.mjs']],
];

/** Runs the checks of the given groups (all without any); answers the names of those that failed. */
export function lint(groups = []) {
  // No banner: it is where wrangler asks the npm registry for a newer version.
  const env = { ...wranglerEnv(), WRANGLER_HIDE_BANNER: 'true' };
  const failures = [];
  for (const [name, group, tool, args] of CHECKS) {
    if (groups.length && !groups.includes(group)) continue;
    console.log(`\n=== lint: ${name} (${tool} ${args.join(' ')})`);
    const bin = tool === 'node' ? process.execPath : join(root, 'node_modules', '.bin', tool);
    if (!existsSync(bin)) {
      console.error(`${tool} is not installed (no node_modules/.bin/${tool}): run npm install`);
      failures.push(name);
      continue;
    }
    const r = spawnSync(bin, args, {
      cwd: root,
      env,
      stdio: 'inherit',
    });
    if (r.status !== 0) failures.push(name);
  }
  return failures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const failures = lint(process.argv.slice(2));
  if (failures.length) console.error(`\nlint failed: ${failures.join(', ')}`);
  process.exit(failures.length ? 1 : 0);
}
