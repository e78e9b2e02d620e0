/**
 * The Worker's own isolates: code of isolates/<name>.ts that scripts/isolates.mjs bundles with
 * its libraries into build/<name>.isolate.js, which the Worker holds as text and the Worker
 * Loader compiles at the first call (the libraries isolate: libraries.ts; the browser
 * isolate: render/browser.ts). Libraries of rare work live there so that every start of the
 * Worker does not compile them. An isolate has no network and no bindings but those `env`
 * hands it (the browser isolate: a loopback entrypoint to the BROWSER binding).
 */
import type { WorkerEntrypoint } from 'cloudflare:workers';

/** The compatibility date the isolates run at (the Worker's own). */
const COMPAT_DATE = '2026-04-20';
/** scripts/isolates.mjs starts each text with `// sha256:<hex>` of its code. */
const HASH_AT = '// sha256:'.length;

/** The default entrypoint of the isolate of `source`; its id names the code's hash, so a new build is a new isolate. */
export function isolateEntrypoint<T extends WorkerEntrypoint>(
  env: Env,
  name: string,
  source: string,
  bindings: Record<string, unknown> = {},
) {
  const worker = env.LOADER.get(`${name}-${source.slice(HASH_AT, HASH_AT + 16)}`, async () => ({
    compatibilityDate: COMPAT_DATE,
    compatibilityFlags: ['nodejs_compat'],
    mainModule: `${name}.js`,
    modules: { [`${name}.js`]: source },
    env: bindings,
    globalOutbound: null,
  }));
  return worker.getEntrypoint<T>();
}

/**
 * Bytes as they cross into or out of an isolate when they may be large: a stream, which the
 * 32 MiB limit of one RPC message does not bound (a zip of a run's outputs, a PDF, a deck).
 */
export const streamOf = (bytes: Uint8Array<ArrayBuffer>): ReadableStream<Uint8Array> => new Response(bytes).body!;

/** The bytes of such a stream, read whole. */
export const bytesOf = async (stream: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> =>
  new Uint8Array(await new Response(stream).arrayBuffer());
