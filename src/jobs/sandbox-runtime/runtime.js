// @ts-check
/**
 * The sandbox runtime: the main module of every job's Worker Loader sandbox, which
 * src/jobs/sandbox.ts loads as text (wrangler.toml's [[rules]], type "Text") beside the
 * job's code files. It implements the run(input, ctx) contract (index.d.ts beside it):
 * it converts the input to Files, gives the job ctx.env, ctx.log (live, through the host) and
 * ctx.signal (aborted when the host reports a cancel), and converts the returned value into
 * output files. Its fetch wrapper writes the outbound guard's refusals to the log of the
 * run that made the request (AsyncLocalStorage: one warm isolate may serve several runs at
 * once); the refusal itself is the guard's.
 *
 * It runs inside the sandbox, never in the platform's Worker: it imports only the job's
 * code (./index.js), the constants sandbox.ts generates beside it (./__nvm_platform.js) and
 * the runtime's built-ins. The .d.ts files beside it type those two; `npm run lint` checks
 * this file through its JSDoc (the tsconfig.json beside it).
 */
import { WorkerEntrypoint } from 'cloudflare:workers';
import { AsyncLocalStorage } from 'node:async_hooks';
import { EGRESS_REFUSED_HEADER } from './__nvm_platform.js';
import job from './index.js';

/** @typedef {import('./index.js').JobContext} JobContext */
/** @typedef {{ name: string, type: string, data: ArrayBuffer }} RunFile A file as it crosses the RPC boundary. */
/** @typedef {{ ok: true, files: RunFile[] } | { ok: false, aborted: boolean, message: string }} SandboxResult */
/**
 * What the platform hands run() to call back (src/jobs/sandbox.ts SandboxHost, over RPC).
 * @typedef {{ log(message: string, severity: string): Promise<void>, canceled(): Promise<boolean> }} Host
 */

const enc = new TextEncoder();
/** @type {AsyncLocalStorage<JobContext['log']>} */
const runLog = new AsyncLocalStorage();
const nativeFetch = globalThis.fetch;
/**
 * @param {RequestInfo | URL} input
 * @param {RequestInit} [init]
 * @returns {Promise<Response>}
 */
globalThis.fetch = async function fetch(input, init) {
  const res = await nativeFetch(input, init);
  const log = runLog.getStore();
  if (log && res.status === 403 && res.headers.get(EGRESS_REFUSED_HEADER) === 'refused') {
    const body = await res
      .clone()
      .json()
      .catch(() => null);
    log(body && typeof body.message === 'string' ? body.message : 'outbound request refused', 'warning');
  }
  return res;
};
/** @param {File} f @returns {Promise<RunFile>} */
const asFile = async (f) => ({
  name: f.name || 'output',
  type: f.type || 'application/octet-stream',
  data: await f.arrayBuffer(),
});
/** @param {unknown} v @returns {Promise<RunFile[]>} */
async function toFiles(v) {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string')
    return [
      {
        name: 'output.txt',
        type: 'text/plain; charset=utf-8',
        data: /** @type {ArrayBuffer} */ (enc.encode(v).buffer),
      },
    ];
  if (v instanceof File) return [await asFile(v)];
  if (Array.isArray(v) && v.length === 0) return [];
  if (Array.isArray(v) && v.every((x) => x instanceof File)) return Promise.all(v.map(asFile));
  const json = JSON.stringify(v);
  if (json === undefined)
    throw new Error('run() returned a value that is not JSON, a string, a File or an array of Files');
  return [
    { name: 'output.json', type: 'application/json', data: /** @type {ArrayBuffer} */ (enc.encode(json).buffer) },
  ];
}
export default class Runtime extends WorkerEntrypoint {
  /**
   * @param {RunFile[]} input
   * @param {Record<string, string>} env
   * @param {Host} host
   * @returns {Promise<SandboxResult>}
   */
  async run(input, env, host) {
    const ac = new AbortController();
    host.canceled().then(
      (canceled) => {
        if (canceled) ac.abort(new DOMException('the run was canceled', 'AbortError'));
      },
      () => {},
    );
    /** @type {Promise<void>[]} */
    const pending = [];
    /** @type {JobContext} */
    const ctx = {
      env: Object.freeze({ ...env }),
      signal: ac.signal,
      log: (message, severity = 'info') => {
        pending.push(host.log(String(message), String(severity)).catch(() => {}));
      },
    };
    try {
      if (!job || typeof job.run !== 'function')
        throw new Error('code/index.js must have a default export with async run(input, ctx)');
      const run = job.run;
      const files = input.map((f) => new File([f.data], f.name, { type: f.type }));
      const out = await toFiles(await runLog.run(ctx.log, () => run(files, ctx)));
      await Promise.all(pending);
      return { ok: true, files: out };
    } catch (err) {
      await Promise.all(pending);
      const aborted =
        ac.signal.aborted &&
        (err === ac.signal.reason || (!!err && /** @type {{ name?: unknown }} */ (err).name === 'AbortError'));
      return { ok: false, aborted, message: err instanceof Error ? err.message : String(err) };
    }
  }
}
