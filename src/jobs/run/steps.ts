/**
 * Executing a run: the job's code in a sandbox, or its chain, whose job steps are child
 * runs in their own objects and whose url steps are https calls. The run's object owns one
 * RunSteps, so a cancel (cancel()) reaches the step the run awaits, its sandbox and children.
 */
import { now } from '../../core/clock';
import type { Db } from '../../core/context';
import type { Severity } from '../../core/log';
import { fanOutRefusal } from '../caps';
import { refusal, stepVerdicts, usernames, withAuthority, type JobRef } from '../chain-access';
import { listCode } from '../code-files';
import type { ChainStep } from '../chains';
import type { JobConfig } from '../config';
import type { RunFile } from '../files';
import { httpsStep } from '../https-step';
import type { RunSpec, StepResult } from './machine';
import { requestId, runName } from './name';
import { runSandbox, SandboxHost, stepLimits } from '../sandbox';
import { runStub } from './stub';

/** How long a canceled run's current step may take to stop before it is abandoned. */
const TEARDOWN_GRACE_MS = 1_000;
/**
 * The grace; JOBS_TEST_GRACE_MS (set by vitest.config.mts, never in wrangler.toml) lengthens it for loaded test
 * machines.
 */
export function teardownGrace(env: Env): number {
  const ms = Number(env.JOBS_TEST_GRACE_MS);
  return Number.isInteger(ms) && ms > 0 ? ms : TEARDOWN_GRACE_MS;
}
/** Composed jobs may nest this deep (a job that calls itself stops here). */
const MAX_DEPTH = 8;

/** What the steps need of their run. */
export interface StepHost {
  env: Env;
  db: Db;
  log(message: string, severity?: Severity | string): void;
  isCanceling(): boolean;
  /** The run's row id (children name it as their parent). */
  runId(): number;
  /** Counts `n` more child runs against the tree's cap (at the top-level run's object): why not, or nothing. */
  claimChildren(spec: RunSpec, n: number): Promise<string | void>;
}

type ChildRun = ReturnType<typeof runStub>;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class RunSteps {
  private readonly children = new Set<ChildRun>();
  private resolveCancel!: () => void;
  /** Resolves when a cancel is requested. */
  private readonly cancelRequested = new Promise<void>((r) => (this.resolveCancel = r));
  private readonly abort = new AbortController();
  /** A fan-out branch failed: the step is over, its other branches start no child. */
  private branchesStopped = false;

  constructor(private readonly host: StepHost) {}

  /** A cancel: the awaited step stops (sandbox, https call) and child runs are torn down. */
  cancel(): void {
    this.resolveCancel();
    this.abort.abort(new DOMException('the run was canceled', 'AbortError'));
    for (const child of this.children) child.teardown().catch(() => undefined);
  }

  /** The job's own code or its chain. */
  async run(spec: RunSpec, cfg: JobConfig): Promise<StepResult> {
    const env = this.host.env;
    if (spec.depth > MAX_DEPTH)
      return {
        kind: 'failed',
        message: `composed jobs nest deeper than ${MAX_DEPTH} levels (does a chain call itself?)`,
      };
    if (!cfg.chains.length) {
      // The code's writers decide whether it gets the owner's env values and network (job.code).
      const code = await listCode(env, spec.jobId, spec.ownerId);
      if (!code.trusted) {
        const names = await usernames(this.host.db, code.foreign);
        const who = code.foreign.map((id) => names.get(id) ?? `user ${id}`).join(', ');
        this.host.log(
          `code version ${code.version} was last written by ${who}, not the job's owner: it runs without the job's env values and network until the owner approves that version (POST code/approve)`,
          'warning',
        );
      }
      this.host.log('running code/index.js');
      const host = new SandboxHost((m, s) => this.host.log(m, s), this.cancelRequested);
      try {
        return await this.guard(
          runSandbox(
            env,
            { id: spec.jobId, code, network: cfg.network && code.trusted },
            spec.input,
            code.trusted ? cfg.env : {},
            host,
          ).then((r): StepResult =>
            r.ok
              ? { kind: 'ok', files: r.files }
              : r.aborted
                ? { kind: 'aborted', message: r.message }
                : { kind: 'failed', message: r.message },
          ),
        );
      } finally {
        // Code that ignored the cancel (or the wall limit) may still be running: it no longer writes this log.
        host.close();
      }
    }
    // The steps run with the rights of whoever wrote the chain too (job.chain), and so do their children.
    if (cfg.chainWriter !== null) spec = { ...spec, authority: withAuthority(spec.authority, cfg.chainWriter) };
    let files = spec.input;
    for (const [i, step] of cfg.chains.entries()) {
      if (this.host.isCanceling()) return { kind: 'aborted', message: `canceled before step ${step.label}` };
      this.host.log(`step ${step.label}${step.fanOut ? ` (fan-out over ${files.length} files)` : ''}`);
      const inputs = step.fanOut ? files.map((f) => [f]) : [files];
      const capped =
        (step.fanOut ? fanOutRefusal(files.length) : undefined) ??
        (step.ref.kind === 'job' ? await this.host.claimChildren(spec, inputs.length) : undefined);
      if (capped) return { kind: 'failed', message: `step ${step.label}: ${capped}` };
      const results = await this.guard(this.branches(inputs.map((input) => this.runStep(spec, step, input))));
      if (results.kind !== 'ok') return { ...results, message: `step ${step.label}: ${results.message}` };
      files = results.files;
      if (this.host.isCanceling() && i < cfg.chains.length - 1)
        return { kind: 'aborted', message: `canceled after step ${step.label}` };
    }
    return { kind: 'ok', files };
  }

  /**
   * A step's branches (one, or one per file of a fan-out): all their files, or the first
   * failure at once. A failed branch ends the step (its siblings are torn down), so the run
   * finishes failed before a later cancel could be accepted (that cancel answers 409).
   */
  private async branches(runs: Promise<StepResult>[]): Promise<StepResult> {
    const settled = runs.map((r) =>
      r.catch((err): StepResult => ({ kind: 'failed', message: (err as Error).message ?? String(err) })),
    );
    const firstFailure = new Promise<StepResult>((resolve) => {
      for (const r of settled) void r.then((o) => o.kind === 'failed' && resolve(o));
    });
    const all = Promise.all(settled).then((outs): StepResult => {
      const aborted = outs.find((o) => o.kind === 'aborted');
      if (aborted) return aborted;
      return { kind: 'ok', files: outs.flatMap((o) => (o.kind === 'ok' ? o.files : [])) };
    });
    const out = await Promise.race([firstFailure, all]);
    if (out.kind === 'failed' && runs.length > 1) {
      this.branchesStopped = true;
      this.abort.abort(new DOMException('another branch of the step failed', 'AbortError'));
      for (const child of this.children) child.teardown().catch(() => undefined);
    }
    return out;
  }

  /**
   * Waits for a step, but after a cancel no longer than the teardown grace. The wall-limit
   * timer is cleared when the step ends: a pending 15-minute timer kept every finished run
   * object resident (never idle, so never evicted), which grew the local server's memory.
   */
  private async guard(step: Promise<StepResult>): Promise<StepResult> {
    const settled = step.catch((err): StepResult => ({
      kind: 'failed',
      message: (err as Error).message ?? String(err),
    }));
    const { wallMs } = stepLimits(this.host.env);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<StepResult>((r) => {
      timer = setTimeout(
        () => r({ kind: 'failed', message: `the step ran longer than its wall-time limit of ${wallMs / 1000} s` }),
        wallMs,
      );
    });
    const teardown = this.cancelRequested
      .then(() => sleep(teardownGrace(this.host.env)))
      .then((): StepResult => ({ kind: 'aborted', message: 'torn down' }));
    try {
      return await Promise.race([settled, timeout, teardown]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async runStep(spec: RunSpec, step: ChainStep, input: RunFile[]): Promise<StepResult> {
    if (step.ref.kind === 'url') {
      const out = await httpsStep(this.host.env, step.ref.url, input, this.abort.signal);
      return out.kind === 'aborted' && this.branchesStopped
        ? { kind: 'aborted', message: 'another branch failed' }
        : out;
    }
    const target = await this.resolveJob(spec, step.ref);
    if (typeof target === 'string') return { kind: 'failed', message: target };
    // Canceled (or a sibling branch failed) while the step resolved: start no child.
    if (this.host.isCanceling() || this.branchesStopped)
      return { kind: 'aborted', message: 'canceled before the child run started' };
    const childName = runName(now(), requestId());
    const child = runStub(this.host.env, childName);
    this.children.add(child);
    this.host.log(`child run ${childName} of ${step.ref.owner ? `@${step.ref.owner}/` : ''}${step.ref.job}`);
    try {
      const out = await child.execute({
        name: childName,
        jobId: target.id,
        ownerId: target.owner_id,
        rootJobId: spec.rootJobId,
        parentId: this.host.runId(),
        parentStep: step.label,
        trigger: spec.trigger,
        source: spec.source,
        createdBy: spec.createdBy,
        // The child acts for everyone this run acts for, and for its own job's owner.
        authority: withAuthority(spec.authority, target.owner_id),
        rootName: spec.rootName,
        input,
        depth: spec.depth + 1,
      });
      if (out.status === 'success') return { kind: 'ok', files: out.files };
      if (out.status === 'canceled') return { kind: 'aborted', message: `child run ${childName} was canceled` };
      return { kind: 'failed', message: `child run ${childName} failed`, decidedAt: out.decidedAt };
    } finally {
      this.children.delete(child);
    }
  }

  /**
   * The job a step names, if every user the run acts for may execute it (chain-access.ts):
   * a bare name is a job of this run's job's owner, `@user/job` a job of that user. One
   * round trip; a second only to name who lacks execute access.
   */
  private async resolveJob(spec: RunSpec, ref: JobRef): Promise<{ id: number; owner_id: number } | string> {
    const [verdict] = await stepVerdicts(this.host.db, spec.ownerId, [ref], spec.authority);
    if (verdict!.ok) return { id: verdict!.id!, owner_id: verdict!.ownerId! };
    return refusal(this.host.db, verdict!, ref);
  }
}
