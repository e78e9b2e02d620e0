#!/usr/bin/env node
// The code of the Worker Loader isolates the Worker starts itself (isolates/*.ts), bundled
// with their libraries into build/<name>.isolate.js, which the Worker imports as text
// (wrangler.toml [[rules]]): the upload holds them as a string, compiled only where they run.
// Each file starts with `// sha256:<hex>` of its code, which names the isolate (src/core/isolates.ts).
// Not kept in git (made from node_modules); run before wrangler reads src/ by `npm start`,
// `npm run deploy`, the bench's and the tests' builds and the workerd suite's vitest config,
// as scripts/assets.mjs is; `node scripts/isolates.mjs` makes them by hand. Writes only what
// changed, so a running `wrangler dev` does not reload for nothing.
import { createHash } from 'node:crypto';
import { builtinModules } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, context } from 'esbuild';

/**
 * Node's built-in modules as the isolate's runtime has them (nodejs_compat): `require('path')`
 * of a CommonJS package becomes an import of `node:path`, as wrangler does for the Worker.
 */
const nodeBuiltins = {
  name: 'node-builtins',
  setup(build) {
    const names = new RegExp(`^(${builtinModules.filter((m) => !m.startsWith('_')).join('|')})$`);
    build.onResolve({ filter: names }, (args) => ({ path: args.path, namespace: 'node-builtin' }));
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `import m from 'node:${args.path}'; export * from 'node:${args.path}'; export default m;`,
    }));
  },
};

/** Scripts that run in a browser page (`*.browser.js`) as their text, as wrangler.toml's [[rules]] import them. */
const textRules = {
  name: 'text-rules',
  setup(build) {
    build.onLoad({ filter: /\.browser\.js$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8'),
      loader: 'text',
    }));
  },
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ISOLATES_DIR = join(root, 'build');

const entries = () => readdirSync(join(root, 'isolates')).filter((f) => f.endsWith('.ts'));

/** esbuild's options for the isolate of `entry` (isolates/<entry>). */
const options = (entry) => ({
  entryPoints: [join(root, 'isolates', entry)],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  // As wrangler resolves packages for the Worker.
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['module', 'main'],
  external: ['cloudflare:*', 'node:*'],
  plugins: [nodeBuiltins, textRules],
  legalComments: 'none',
  logLevel: 'error',
});

/** Writes build/<name>.isolate.js of `entry` when its code changed. */
function writeIsolate(entry, out) {
  const text = `// sha256:${createHash('sha256').update(out).digest('hex')}\n${out}`;
  const dst = join(ISOLATES_DIR, `${basename(entry, '.ts')}.isolate.js`);
  if (!existsSync(dst) || readFileSync(dst, 'utf8') !== text) writeFileSync(dst, text);
}

export async function prepareIsolates() {
  mkdirSync(ISOLATES_DIR, { recursive: true });
  for (const entry of entries()) writeIsolate(entry, (await build(options(entry))).outputFiles[0].text);
}

/**
 * What prepareIsolates makes, made again whenever a file an isolate is built from changes
 * (`npm start`): wrangler dev reloads the Worker when the text it imports changes, as it does
 * for src/. Resolves once each isolate's first build (watch mode's own) is written.
 */
export async function watchIsolates() {
  mkdirSync(ISOLATES_DIR, { recursive: true });
  const firstBuilds = entries().map(async (entry) => {
    let first;
    const built = new Promise((resolve, reject) => (first = { resolve, reject }));
    const written = {
      name: 'write-isolate',
      setup(b) {
        b.onEnd((result) => {
          const out = result.outputFiles?.[0];
          if (!result.errors.length && out) writeIsolate(entry, out.text);
          if (result.errors.length) first.reject(new Error(`isolates/${entry} did not build`));
          else first.resolve();
        });
      },
    };
    const o = options(entry);
    await (await context({ ...o, plugins: [...o.plugins, written] })).watch();
    return built;
  });
  await Promise.all(firstBuilds);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await prepareIsolates();
