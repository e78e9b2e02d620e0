// The Worker as `wrangler deploy` builds it, without uploading: its modules, the upload bundle
// and esbuild's metafile. Used by the bench (bench/size.mjs: size and startup) and by the test
// of what the Worker loads at startup (test/node/startup-imports.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { prepareAssets } from './assets.mjs';
import { prepareIsolates } from './isolates.mjs';
import { root } from './serve.mjs';
import { wranglerEnv } from './wrangler-env.mjs';

const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');

/** Runs the repository's wrangler offline; throws with its output when it fails. */
export function runWrangler(args) {
  const r = spawnSync(process.execPath, [wrangler, ...args], { cwd: root, env: wranglerEnv(), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
}

/** Builds the Worker of `config` into `dir`: { bundle (path), raw, gzip (bytes of the modules), meta }. */
export async function buildWorker(dir, config = join(root, 'wrangler.toml')) {
  prepareAssets(); // `wrangler deploy` reads public/ (wrangler.toml [assets])
  await prepareIsolates(); // and imports build/*.isolate.js
  mkdirSync(dir, { recursive: true });
  const outdir = join(dir, 'out');
  const bundle = join(dir, 'worker.bundle');
  const metafile = join(dir, 'meta.json');
  runWrangler(['deploy', '-c', config, '--dry-run', '--outdir', outdir, '--outfile', bundle, '--metafile', metafile]);
  // The uploaded modules: everything wrangler writes there but its source maps and README.
  const modules = readdirSync(outdir).filter((f) => !f.endsWith('.map') && f !== 'README.md');
  const bytes = modules.map((f) => readFileSync(join(outdir, f)));
  return {
    bundle,
    raw: bytes.reduce((n, b) => n + b.length, 0),
    gzip: bytes.reduce((n, b) => n + gzipSync(b).length, 0),
    meta: JSON.parse(readFileSync(metafile, 'utf8')),
  };
}
