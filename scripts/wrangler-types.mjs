#!/usr/bin/env node
// worker-configuration.d.ts (the Env type of wrangler.toml's bindings), generated
// (`npm run types`) or checked (`npm run lint`: `node scripts/wrangler-types.mjs --check`).
// Both run wrangler in a scratch folder that mirrors the repository without `.dev.vars`:
// wrangler 4.85 adds every key of a local .dev.vars to the generated Env (and its --check
// re-reads it), so a developer's local secrets (OPS_TOKEN, made by npm start) would change
// the committed file or fail the check; a fresh clone (CI) has none.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wranglerEnv } from './wrangler-env.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TYPES = 'worker-configuration.d.ts';
// Copied, not linked: wrangler resolves .dev.vars beside the config's real path.
const COPIED = new Set(['wrangler.toml', TYPES]);
const LEFT_OUT = new Set(['.dev.vars', '.wrangler', '.git']);

const check = process.argv.includes('--check');
const scratch = mkdtempSync(join(tmpdir(), 'wrangler-types-'));
try {
  for (const name of readdirSync(root)) {
    if (LEFT_OUT.has(name) || name.startsWith('.dev.vars') || name.startsWith('.env')) continue;
    if (COPIED.has(name)) copyFileSync(join(root, name), join(scratch, name));
    else symlinkSync(join(root, name), join(scratch, name));
  }
  const args = check ? ['types', '--check'] : ['types', '--strict-vars=false'];
  // No banner: it is where wrangler asks the npm registry for a newer version.
  const env = { ...wranglerEnv(), WRANGLER_HIDE_BANNER: 'true' };
  const r = spawnSync(join(root, 'node_modules', '.bin', 'wrangler'), args, { cwd: scratch, env, stdio: 'inherit' });
  if (r.status === 0 && !check) copyFileSync(join(scratch, TYPES), join(root, TYPES));
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
