// Node tests, alone: one file at a time, nothing else of the suite running beside them.
// Pure-function tests that time themselves (sub-millisecond clock; the parsers they load
// import nothing from the Workers runtime), the repository's own references, read from its
// files (test/node/named-paths.test.ts), and the route table (docs/ROUTES.md), which
// builds the whole Api: its `cloudflare:*` imports get stubs (test/node/stubs/) and the
// files wrangler.toml's [[rules]] import as text are imported as text here too.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';
import { prepareIsolates } from './scripts/isolates.mjs';

// build/*.isolate.js: imported as text by the modules the tests load (core/libraries.ts).
await prepareIsolates();

const stub = (name: string) => fileURLToPath(new URL(`./test/node/stubs/${name}.ts`, import.meta.url));

/** The globs of wrangler.toml's `type = "Text"` rules (the module is the file's text). */
function textGlobs(): RegExp[] {
  const toml = readFileSync(new URL('./wrangler.toml', import.meta.url), 'utf8');
  const rules = toml
    .split('[[rules]]')
    .slice(1)
    .map((r) => r.split(/\n\[/)[0]!);
  return rules
    .filter((r) => /type\s*=\s*"Text"/.test(r))
    .flatMap((r) => [...(/globs\s*=\s*\[([^\]]*)\]/.exec(r)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!))
    .map(
      (g) =>
        new RegExp(
          g
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*\*\//g, '(?:.*/)?')
            .replace(/\*/g, '[^/]*') + '$',
        ),
    );
}

/** Text modules as a virtual module each (a file of node_modules would otherwise be loaded by Node, as JavaScript). */
function textModules(): Plugin {
  const globs = textGlobs();
  const PREFIX = 'virtual:wrangler-text:';
  return {
    name: 'wrangler-text-rules',
    enforce: 'pre',
    resolveId(source, importer) {
      if (!importer || !source.startsWith('.')) return null;
      const file = resolve(dirname(importer), source);
      return globs.some((g) => g.test(file)) ? PREFIX + file : null;
    },
    load(id) {
      return id.startsWith(PREFIX)
        ? `export default ${JSON.stringify(readFileSync(id.slice(PREFIX.length), 'utf8'))};`
        : null;
    },
  };
}

export default defineConfig({
  plugins: [textModules()],
  resolve: {
    alias: { 'cloudflare:workers': stub('cloudflare-workers'), 'cloudflare:email': stub('cloudflare-email') },
  },
  test: {
    include: ['test/node/**/*.test.ts'],
    environment: 'node',
    fileParallelism: false,
    // gc() between samples: a collection of the previous size's garbage is not timed as growth.
    execArgv: ['--expose-gc'],
    testTimeout: 120_000,
  },
});
