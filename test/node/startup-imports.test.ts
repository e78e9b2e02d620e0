// What the Worker compiles when it starts: every module of its upload's code, imported or not
// (workerd compiles them all). Libraries that serve rare work (puppeteer and pptxgenjs for
// renders; acorn, postal-mime, mimetext, fflate) run in the Worker's own isolates
// (core/isolates.ts): they are in the upload only as the isolates' text, never in its code.
// zod is imported as a namespace, without which esbuild keeps every one of its 50 locales.
// Checked on the bundle `wrangler deploy` builds (esbuild's metafile).
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

/** Run in the Worker's own isolates (isolates/), never compiled by the Worker: package → its use. */
const ISOLATED: Record<string, string> = {
  '@cloudflare/puppeteer': 'PDF, slides and plot PNGs (the browser isolate: render/browser.ts)',
  pptxgenjs: 'slides (the browser isolate)',
  jszip: 'pptxgenjs',
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

describe('startup imports', () => {
  it('the libraries of the isolates are not in the bundle at all', () => {
    const inBundle = new Set(bundled.map(packageOf));
    expect(Object.keys(ISOLATED).filter((p) => inBundle.has(p))).toEqual([]);
  });

  it('the Worker loads nothing by import(): a library of rare use belongs in an isolate, not in its code', () => {
    const dynamic = Object.entries(meta.inputs).flatMap(([from, i]) =>
      i.imports.filter((im) => im.kind === 'dynamic-import' && !im.external).map((im) => `${from} → ${im.path}`),
    );
    expect(dynamic.filter((d) => /^(src|durable)\//.test(d))).toEqual([]);
  });

  it('zod brings its English messages only, not every locale', () => {
    const locales = bundled.filter((p) => p.includes('node_modules/zod/v4/locales/'));
    expect(locales.map((p) => p.split('/').pop())).toEqual(['en.js']);
  });
});
