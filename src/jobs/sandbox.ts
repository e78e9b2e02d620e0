/**
 * Running a job's own code: `code/index.js` in a Worker Loader sandbox (no platform
 * bindings, no network unless config/network is yes, and then only through the outbound
 * guard; bounded CPU), with a small runtime module (sandbox-runtime/runtime.js) that
 * implements the run(input, ctx) contract (sandbox-runtime/index.d.ts).
 */
import { exports, RpcTarget, type WorkerEntrypoint } from 'cloudflare:workers';
import { EGRESS_REFUSED_HEADER } from './egress-guard';
import type { CodeListing } from './code-files';
import { cleanName, type RunFile } from './files';
import RUNTIME_SOURCE from './sandbox-runtime/runtime.js';

const SANDBOX_CPU_MS = 30_000;
/** Wall-time bound of one sandbox or https step (a job step is bounded by its own run). */
const STEP_WALL_MS = 15 * 60_000;

export interface StepLimits {
  cpuMs: number;
  wallMs: number;
}

/**
 * The limits of a step: SANDBOX_CPU_MS and STEP_WALL_MS, unless the test-only var
 * JOBS_TEST_LIMITS ("<cpuMs>,<wallMs>", set by vitest.config.mts, never in wrangler.toml)
 * shortens them so the tests can hit them.
 */
export function stepLimits(env: Env): StepLimits {
  const [cpu, wall] = env.JOBS_TEST_LIMITS?.split(',').map(Number) ?? [];
  const ok = (n: number | undefined): n is number => n !== undefined && Number.isInteger(n) && n > 0;
  return { cpuMs: ok(cpu) ? cpu : SANDBOX_CPU_MS, wallMs: ok(wall) ? wall : STEP_WALL_MS };
}
const SANDBOX_COMPAT_DATE = '2026-04-20';
/** The sandbox's main module: the runtime (sandbox-runtime/runtime.js, text by wrangler.toml's [[rules]]). */
const RUNTIME = '__nvm_runtime.js';
/** The platform's constants the runtime imports (typed by sandbox-runtime/__nvm_platform.d.ts). */
const PLATFORM = '__nvm_platform.js';

export type SandboxResult = { ok: true; files: RunFile[] } | { ok: false; aborted: boolean; message: string };

/** The runtime module's entrypoint, as the Worker calls it over RPC. */
interface SandboxRuntime extends WorkerEntrypoint {
  run(input: RunFile[], env: Record<string, string>, host: SandboxHost): Promise<SandboxResult>;
}

/** What the sandbox may call back: the run log, and the cancel signal. */
export class SandboxHost extends RpcTarget {
  private closed = false;
  private settle!: () => void;
  /** Settles when the step is over: the sandbox's pending canceled() call then answers false. */
  private readonly over = new Promise<void>((resolve) => (this.settle = resolve));
  constructor(
    private readonly onLog: (message: string, severity: string) => void,
    private readonly cancel: Promise<void>,
  ) {
    super();
  }
  /** The step is over (or abandoned): code still running in the sandbox writes nothing more. */
  close(): void {
    this.closed = true;
    this.settle();
  }
  log(message: string, severity: string): void {
    if (this.closed) return;
    this.onLog(
      message.slice(0, 64 * 1024),
      ['debug', 'info', 'warning', 'error'].includes(severity) ? severity : 'info',
    );
  }
  /**
   * True once a cancel is requested; false when the step ends without one. It must settle
   * either way: a call left pending held the run's object and the sandbox's request in
   * memory for good (local workerd: ~0.4 MiB a run, so a long soak's memory grew without bound).
   */
  canceled(): Promise<boolean> {
    return Promise.race([this.cancel.then(() => true), this.over.then(() => false)]);
  }
}

function moduleFor(name: string, data: ArrayBuffer): WorkerLoaderModule | string {
  if (/\.m?js$/.test(name)) return { js: new TextDecoder().decode(data) };
  if (name.endsWith('.json')) {
    try {
      return { json: JSON.parse(new TextDecoder().decode(data)) };
    } catch {
      return { text: new TextDecoder().decode(data) };
    }
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(data) };
  } catch {
    return { data };
  }
}

const MISSING_CODE = 'the job has no code/index.js (and no config/chains)';

/**
 * Loads the job's code files from R2 as sandbox modules: exactly the versions `code` listed
 * (the ones the run's trust decision saw), or it fails when one changed since.
 */
async function loadCode(env: Env, code: CodeListing): Promise<Record<string, WorkerLoaderModule | string>> {
  const modules: Record<string, WorkerLoaderModule | string> = {};
  await Promise.all(
    code.files.map(async (f) => {
      const obj = await env.BLOBS.get(f.key, { onlyIf: { etagMatches: f.etag } });
      if (!obj) return; // deleted since: as if it had not been listed
      if (!('arrayBuffer' in obj)) throw new Error(`code file ${f.name} changed while the run started: trigger again`);
      modules[f.name] = moduleFor(f.name, await obj.arrayBuffer());
    }),
  );
  // Without index.js the run fails with a message that says so.
  modules['index.js'] ??= { js: `export default { run() { throw new Error(${JSON.stringify(MISSING_CODE)}); } };` };
  modules[PLATFORM] = { js: `export const EGRESS_REFUSED_HEADER = ${JSON.stringify(EGRESS_REFUSED_HEADER)};` };
  modules[RUNTIME] = { js: RUNTIME_SOURCE };
  return modules;
}

/**
 * Runs code/index.js of a job in its sandbox (cached per code version): the version `code`
 * lists, with the network only when `network` (the caller has decided whether the code may
 * have the owner's env values and network: code-files.ts).
 */
export async function runSandbox(
  env: Env,
  job: { id: number; code: CodeListing; network: boolean },
  input: RunFile[],
  jobEnv: Record<string, string>,
  host: SandboxHost,
): Promise<SandboxResult> {
  // The callback runs only when no isolate for this code version is warm.
  const worker = env.LOADER.get(`job-${job.id}-${job.code.version}-${job.network ? 'net' : 'nonet'}`, async () => ({
    compatibilityDate: SANDBOX_COMPAT_DATE,
    mainModule: RUNTIME,
    modules: await loadCode(env, job.code),
    compatibilityFlags: ['nodejs_als'],
    limits: { cpuMs: stepLimits(env).cpuMs },
    // Network on: every request goes through the platform's outbound guard (egress-guard.ts).
    globalOutbound: job.network ? exports.EgressGuard : null,
  }));
  const entry = worker.getEntrypoint<SandboxRuntime>();
  try {
    const out = await entry.run(input, jobEnv, host);
    // Output names come from the job's code: clean them before they name a download or a mail attachment.
    return out.ok
      ? { ok: true, files: out.files.map((f) => ({ ...f, name: cleanName(String(f.name), 'output') })) }
      : out;
  } catch (err) {
    return { ok: false, aborted: false, message: `the code could not run: ${(err as Error).message}` };
  }
}
