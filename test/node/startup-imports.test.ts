// What the Worker compiles and runs when it starts: every module its entry reaches by static
// imports. Libraries that serve one rare route are imported where they are used (`await
// import(...)`), so a start that serves a REST read does not build puppeteer's or pptxgenjs's
// modules; those of the libraries isolate (core/libraries.ts) are not in the upload's code at
// all, only in the isolate's text. zod is imported as a namespace, without which esbuild keeps
// every one of its 50 locales. Checked on the bundle `wrangler deploy` builds (esbuild's
// metafile).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript script
import { buildWorker } from '../../scripts/worker-build.mjs';

interface Metafile {
  inputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }>;
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

/** Loaded on first use, never at startup: package → the code that loads it. */
const LAZY: Record<string, string> = {
  '@cloudflare/puppeteer': 'render/browser-sessions.ts (PDF, slides)',
  pptxgenjs: 'render/pptx.ts (slides)',
  jszip: 'pptxgenjs',
};

/** Run in the libraries isolate (isolates/libraries.ts), never compiled by the Worker: package → its use. */
const ISOLATED: Record<string, string> = {
  mimetext: 'the send_email_mime transport (core/mailer.ts)',
  'mime-db': 'mimetext',
  'postal-mime': 'email() (jobs/inbound.ts)',
  acorn: 'a job code write (jobs/code-routes.ts)',
  fflate: 'a run of several output files (jobs/files.ts)',
};

const packageOf = (path: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];

let dir: string;
let meta: Metafile;
/** The inputs with code in the bundle (esbuild reads more: what tree shaking drops). */
let bundled: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'startup-imports-'));
  meta = ((await buildWorker(dir)) as { meta: Metafile }).meta;
  bundled = Object.values(meta.outputs).flatMap((o) =>
    Object.entries(o.inputs)
      .filter(([, i]) => i.bytesInOutput > 0)
      .map(([path]) => path),
  );
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The inputs the entry reaches through import statements and require calls (not `import()`). */
function staticClosure(entry: string): Set<string> {
  const seen = new Set([entry]);
  const todo = [entry];
  while (todo.length) {
    for (const im of meta.inputs[todo.pop()!]!.imports) {
      if (im.external || im.kind === 'dynamic-import' || seen.has(im.path)) continue;
      seen.add(im.path);
      todo.push(im.path);
    }
  }
  return seen;
}

describe('startup imports', () => {
  it('the libraries of rare routes are in the bundle but not reached by static imports', () => {
    const atStartup = new Set([...staticClosure('src/index.ts')].map(packageOf));
    const inBundle = new Set(bundled.map(packageOf));
    expect(Object.keys(LAZY).filter((p) => !inBundle.has(p))).toEqual([]);
    expect(Object.keys(LAZY).filter((p) => atStartup.has(p))).toEqual([]);
  });

  it('the libraries of the libraries isolate are not in the bundle at all', () => {
    const inBundle = new Set(bundled.map(packageOf));
    expect(Object.keys(ISOLATED).filter((p) => inBundle.has(p))).toEqual([]);
  });

  it('zod brings its English messages only, not every locale', () => {
    const locales = bundled.filter((p) => p.includes('node_modules/zod/v4/locales/'));
    expect(locales.map((p) => p.split('/').pop())).toEqual(['en.js']);
  });
});
