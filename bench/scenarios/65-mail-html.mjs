// E-mail HTML: the compose time of a 50 KB mail with every block kind (markdown rendered,
// sanitized, styled inline into the table skeleton, size-checked: what a send computes once),
// and the size of its HTML part against its text part. Target: compose p50 <= 10 ms.
// Pure work, timed in this Node process: src/mail/compose.ts bundled with esbuild (the
// `cloudflare:*` imports replaced by the Node suite's stubs, as in test/node).
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from '../../scripts/serve.mjs';

const TARGET_BYTES = 50 * 1024;
const PROSE =
  'The quarter closed with **steady growth** across regions; see the [figures](https://example.com/q3) ' +
  'and the notes below for what changed, what did not, and what we expect next.\n\n';

async function loadCompose() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-mail-'));
  const out = join(dir, 'compose.mjs');
  const stub = (name) => join(root, 'test', 'node', 'stubs', `${name}.ts`);
  await build({
    stdin: {
      contents:
        "export { personalise } from './src/mail/compose.ts';\n" +
        "export { everyBlockMail } from './test/worker/mail/every-block.ts';\n",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    logLevel: 'error',
    // CommonJS dependencies (yaml, xss) require Node built-ins: give the ES module a require.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    alias: { 'cloudflare:workers': stub('cloudflare-workers'), 'cloudflare:email': stub('cloudflare-email') },
    loader: { '.graphql': 'text', '.html': 'text' },
  });
  try {
    return await import(pathToFileURL(out).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function mailHtml(b) {
  const { everyBlockMail, personalise } = await loadCompose();
  let extra = '';
  while (extra.length + 4000 < TARGET_BYTES) extra += PROSE;
  const compose = () => everyBlockMail({}, extra);
  for (let i = 0; i < 5; i++) compose(); // warm-up (JIT)
  await b.time('mail html: compose a 50 KB mail with every block', () => compose(), 50, 'target: p50 <= 10 ms');
  const c = compose();
  const { html, text } = personalise(c, 'https://example.com/v1/mail/unsubscribe/bench.token');
  const bytes = (s) => Buffer.byteLength(s);
  const row = {
    name: 'mail html: HTML part vs text part (bytes)',
    rps: '',
    p50_ms: '',
    p99_ms: '',
    errors: c.oversize ? 1 : 0,
    ratio: +(bytes(html) / bytes(text)).toFixed(2),
    html_bytes: bytes(html),
    text_bytes: bytes(text),
    content_bytes: bytes(extra) + 4000,
    target: 'HTML under 100 KB (no notice)',
  };
  b.results.push(row);
  console.log(
    `${row.name.padEnd(48)}   html ${row.html_bytes} B  text ${row.text_bytes} B  ratio ${row.ratio}${c.oversize ? '  OVER 100 KB: sent as a notice' : ''}`,
  );
}
