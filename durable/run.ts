/**
 * RunObject: one per run (named by the run id), the single owner of the run's state
 * machine and log:
 *
 *   (none) → processing → success | failed
 *   processing → canceling (cancel: 202) → canceled (anything but a success: see afterCancel)
 *                                        → success (the run finished first)
 *   processing → failed (decided before any cancel; a later cancel answers 409)
 *   canceling → failed (only a child's failure decided before the cancel, still on its way: see afterCancel)
 *   canceling + cancel → canceling (200);  success | failed | canceled + cancel → 409
 *
 * The object executes the run itself (the job's code in a sandbox, or its chain, whose
 * job steps are child runs in their own RunObjects) so that a cancel, arriving while the
 * run awaits a step, is serialised with the run's own end by the object's single thread.
 * The log lives in the object's SQLite storage; live tails are SSE streams fed from here.
 */
import { DurableObject } from 'cloudflare:workers';
import { and, eq, gt, sql } from 'drizzle-orm';
import { nowIso, now } from '../src/core/clock';
import { dbFor, type Db } from '../src/core/context';
import { blobPrefix, writeEntry } from '../src/core/entries';
import type { LogEntry, Severity } from '../src/core/log';
import { resources, users, type User } from '../src/db/schema';
import { accessTo } from '../src/core/perms';
import type { ChainStep } from '../src/jobs/chains';
import { jobConfig, type JobConfig } from '../src/jobs/config';
import { bundle, filesFromResponse, formOf, type Bundle, type RunFile } from '../src/jobs/files';
import { durationOf, RETENTION_MS, requestId, runName, runShortname } from '../src/jobs/runs';
import { runSandbox, SandboxHost, stepLimits } from '../src/jobs/sandbox';
import { jobMeta, jobRuns, jobSchedules, type RunStatus, type Trigger } from '../src/jobs/schema';

/** How long a canceled run's current step may take to stop before it is abandoned. */
export const TEARDOWN_GRACE_MS = 1_000;
/** The grace; JOBS_TEST_GRACE_MS (set by vitest.config.mts, never in wrangler.toml) lengthens it for loaded test machines. */
export function teardownGrace(env: Env): number {
  const ms = Number((env as unknown as { JOBS_TEST_GRACE_MS?: unknown }).JOBS_TEST_GRACE_MS);
  return Number.isInteger(ms) && ms > 0 ? ms : TEARDOWN_GRACE_MS;
}
export const HTTPS_STEP_MS = 60_000;
/** Composed jobs may nest this deep (a job that calls itself stops here). */
export const MAX_DEPTH = 8;
/** Consecutive failed runs after which a job is paused. */
export const AUTO_PAUSE_AFTER = 5;
/**
 * While a run executes, its alarm is a watchdog that fires this often: a live execution
 * re-arms it; a run found unfinished without one (the object was reset mid-run, or the
 * whole server was killed: local alarms outlive a restart) fails. Short, so a cut-off run
 * ends failed within seconds even when nothing else touches its object; the step's own
 * wall limit (STEP_WALL_MS) is enforced by the live execution, not by this alarm.
 */
export const WATCHDOG_MS = 15_000;
export const INTERRUPTED = 'the run was interrupted (its Durable Object was reset) before it finished';

export interface RunSpec {
  name: string;
  jobId: number;
  ownerId: number;
  rootJobId: number;
  parentId: number | null;
  parentStep: string | null;
  trigger: Trigger;
  source: string;
  createdBy: string;
  /** The user who triggered the top-level run: `@user/job` steps need their execute access. */
  callerId: number;
  input: RunFile[];
  depth: number;
}

/** What finishing a run needs; kept in storage so a reset object can still finish it. */
interface RunHead {
  name: string;
  jobId: number;
  top: boolean;
  started: string;
}

export interface RunOutcome {
  name: string;
  status: 'success' | 'failed' | 'canceled';
  /** Files of the output (children hand them to the next step). */
  files: RunFile[];
  /** What the caller downloads. */
  bundle: Bundle | null;
  message: string;
  /** A failed run: when (Date.now()) its failure was decided, for its parent's cancel rule (see afterCancel). */
  decidedAt?: number;
}

export type CancelAnswer = { code: 202 | 200; status: 'canceling' } | { code: 409; status: string } | { code: 404 };

/** decidedAt: a child run's failure, decided in that run at that time (see afterCancel). */
type StepResult = { kind: 'ok'; files: RunFile[] } | { kind: 'failed'; message: string; decidedAt?: number } | { kind: 'aborted'; message: string };

class StepFailure extends Error {}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const FINAL = new Set(['rejected', 'success', 'failed', 'canceled']);

/** Outputs up to this size stay in the run object's storage; larger ones go to R2. */
export const INLINE_OUTPUT = 128 * 1024;

export const outputKey = (jobId: number, run: string) => `${blobPrefix(jobId)}runs/${run}/output`;

export class RunObject extends DurableObject<Env> {
  private status: RunStatus | null = null;
  private readonly tails = new Set<WritableStreamDefaultWriter<Uint8Array>>();
  private readonly children = new Set<DurableObjectStub<RunObject>>();
  private resolveCancel!: () => void;
  /** Resolves when a cancel is requested. */
  private readonly cancelRequested = new Promise<void>((r) => (this.resolveCancel = r));
  private readonly abort = new AbortController();
  private runId = 0;
  /** True while this instance runs execute(); a reset object has no live execution. */
  private executing = false;
  /** A teardown that arrived before execute(): the run ends canceled without running. */
  private pendingCancel = false;
  /** When (Date.now()) this instance accepted the cancel or its teardown. */
  private canceledAt = 0;
  /** A fan-out branch failed: the step is over, its other branches start no child. */
  private branchesStopped = false;
  private db: Db;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = dbFor(env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY AUTOINCREMENT, log_time TEXT NOT NULL, severity TEXT NOT NULL, message TEXT NOT NULL)');
    this.status = (ctx.storage.kv.get<RunStatus>('status') as RunStatus | undefined) ?? null;
    this.runId = (ctx.storage.kv.get<number>('run_id') as number | undefined) ?? 0;
    this.pendingCancel = ctx.storage.kv.get<boolean>('pending_cancel') === true;
    // A new instance never has a live execution: an unfinished run was cut off by a reset.
    if (this.status === 'processing' || this.status === 'canceling') void ctx.blockConcurrencyWhile(() => this.interrupt());
  }

  private remember(spec: Pick<RunSpec, 'jobId' | 'name'>, top: boolean, started: string): void {
    this.ctx.storage.kv.put('job_id', spec.jobId);
    this.ctx.storage.kv.put('name', spec.name);
    this.ctx.storage.kv.put('top', top);
    this.ctx.storage.kv.put('started', started);
  }

  private head(): RunHead {
    const kv = this.ctx.storage.kv;
    return {
      name: kv.get<string>('name') ?? '',
      jobId: kv.get<number>('job_id') ?? 0,
      top: kv.get<boolean>('top') !== false,
      started: kv.get<string>('started') ?? nowIso(),
    };
  }

  private setStatus(status: RunStatus): void {
    this.status = status;
    this.ctx.storage.kv.put('status', status);
  }

  // ---- log ----

  log(message: string, severity: Severity | string = 'info'): void {
    const entry: LogEntry = { log_time: nowIso(), severity, message };
    this.ctx.storage.sql.exec('INSERT INTO log (log_time, severity, message) VALUES (?, ?, ?)', entry.log_time, entry.severity, entry.message);
    this.broadcast('log', entry);
  }

  readLog(): LogEntry[] {
    return this.ctx.storage.sql.exec<{ log_time: string; severity: string; message: string }>('SELECT log_time, severity, message FROM log ORDER BY id').toArray();
  }

  /** Read through a method: TypeScript would narrow the field across awaits. */
  private isCanceling(): boolean {
    return this.status === 'canceling';
  }

  /** The stored output when it is small enough to live here (see INLINE_OUTPUT). */
  output(): ArrayBuffer | null {
    return (this.ctx.storage.kv.get<ArrayBuffer>('output') as ArrayBuffer | undefined) ?? null;
  }

  getStatus(): RunStatus | null {
    return this.status;
  }

  /**
   * Called by a trigger whose execute() call broke: reaching the object constructs a new
   * instance if it was reset, which finishes the cut-off run (see the constructor).
   */
  async recover(): Promise<RunStatus | null> {
    if (!this.executing) await this.interrupt();
    return this.status;
  }

  private broadcast(event: string, data: unknown): void {
    const chunk = new TextEncoder().encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    for (const w of this.tails) w.write(chunk).catch(() => this.tails.delete(w));
  }

  /** A live tail: every log entry so far, then new ones as they come, then `end` with the final status. */
  liveLog(): ReadableStream<Uint8Array> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const enc = new TextEncoder();
    for (const e of this.readLog()) void writer.write(enc.encode(`event: log\ndata: ${JSON.stringify(e)}\n\n`)).catch(() => undefined);
    if (this.status === null || FINAL.has(this.status)) {
      void writer.write(enc.encode(`event: end\ndata: ${JSON.stringify({ status: this.status })}\n\n`)).catch(() => undefined);
      void writer.close().catch(() => undefined);
    } else {
      this.tails.add(writer);
    }
    return readable;
  }

  private endTails(): void {
    this.broadcast('end', { status: this.status });
    for (const w of this.tails) void w.close().catch(() => undefined);
    this.tails.clear();
  }

  // ---- rejected runs ----

  /** Records a run that never starts (permission check blocked it). */
  async reject(spec: Omit<RunSpec, 'input' | 'depth' | 'callerId'>, reason: string): Promise<void> {
    if (this.status !== null) return;
    this.setStatus('rejected');
    const at = nowIso();
    this.remember(spec, true, at);
    await this.db.insert(jobRuns).values({
      name: spec.name,
      shortname: runShortname(),
      job_id: spec.jobId,
      top: 1,
      parent_id: null,
      root_job_id: spec.rootJobId,
      parent_step: null,
      status: 'rejected',
      trigger: spec.trigger,
      source: spec.source,
      created_by: spec.createdBy,
      started_on: at,
      completed_on: at,
      duration: 0,
    });
    this.log(`run rejected: ${reason}`, 'error');
    await this.retain();
  }

  // ---- cancel ----

  /** A cancel from the API (the route has already refused child runs). */
  async cancel(by: string): Promise<CancelAnswer> {
    if (this.status === null) return { code: 404 };
    if (FINAL.has(this.status)) return { code: 409, status: this.status };
    if (this.status === 'canceling') return { code: 200, status: 'canceling' };
    this.setStatus('canceling');
    this.canceledAt = Date.now();
    this.log(`cancel requested by ${by}`, 'warning');
    this.tearDown();
    await this.recordCanceling();
    return { code: 202, status: 'canceling' };
  }

  /** Cancel from the parent run (the top-level run is being canceled). */
  async teardown(): Promise<void> {
    if (this.status === null) {
      // execute() has not arrived yet: it will end the run canceled without running it.
      this.pendingCancel = true;
      this.ctx.storage.kv.put('pending_cancel', true);
      return;
    }
    if (this.status !== 'processing') return;
    this.setStatus('canceling');
    this.canceledAt = Date.now();
    this.log('canceled with its top-level run', 'warning');
    this.tearDown();
    await this.recordCanceling();
  }

  /**
   * The D1 row says canceling; before the row exists, execute() writes it once it does.
   * A D1 error is logged, not thrown: the cancel has taken effect and finish rewrites the row.
   */
  private async recordCanceling(): Promise<void> {
    try {
      if (this.runId) await this.db.update(jobRuns).set({ status: 'canceling' }).where(and(eq(jobRuns.id, this.runId), eq(jobRuns.status, 'processing')));
    } catch (err) {
      this.log(`the run record could not be marked canceling: ${(err as Error).message}`, 'warning');
    }
  }

  private tearDown(): void {
    this.resolveCancel();
    this.abort.abort(new DOMException('the run was canceled', 'AbortError'));
    for (const child of this.children) child.teardown().catch(() => undefined);
  }

  // ---- execution ----

  /** Starts and runs the whole run; answers when it ends. */
  async execute(spec: RunSpec): Promise<RunOutcome> {
    if (this.status !== null) throw new Error(`run ${spec.name} already exists`);
    this.setStatus(this.pendingCancel ? 'canceling' : 'processing');
    const started = nowIso();
    const head: RunHead = { name: spec.name, jobId: spec.jobId, top: spec.parentId === null, started };
    this.remember(spec, head.top, started);
    this.executing = true;
    try {
      return await this.executeRun(spec, head);
    } finally {
      this.executing = false;
    }
  }

  private async executeRun(spec: RunSpec, head: RunHead): Promise<RunOutcome> {
    const started = head.started;
    void this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS);
    // The run row and the job's configuration are read in parallel (one round trip).
    const [row, cfg] = await Promise.all([
      this.db
        .insert(jobRuns)
        .values({
          name: spec.name,
          shortname: runShortname(),
          job_id: spec.jobId,
          top: spec.parentId === null ? 1 : 0,
          parent_id: spec.parentId,
          root_job_id: spec.rootJobId,
          parent_step: spec.parentStep,
          status: 'processing',
          trigger: spec.trigger,
          source: spec.source,
          created_by: spec.createdBy,
          started_on: started,
        })
        .returning({ id: jobRuns.id })
        .get(),
      jobConfig(this.env, this.db, spec.jobId).catch((err: Error) => err),
    ]);
    this.runId = row.id;
    this.ctx.storage.kv.put('run_id', row.id);
    this.log(`run started (trigger ${spec.trigger}, source ${spec.source}, by ${spec.createdBy})`);
    if (this.isCanceling()) {
      // A cancel that arrived before the row existed could not mark it.
      await this.recordCanceling();
      this.log('cancel arrived before the first step');
    }

    let result: StepResult;
    try {
      if (this.pendingCancel) result = { kind: 'aborted', message: 'canceled with its top-level run before it started' };
      else if (cfg instanceof Error) throw new StepFailure(`the job configuration cannot be read: ${cfg.message}`);
      else result = await this.runJob(spec, cfg);
    } catch (err) {
      result = { kind: 'failed', message: err instanceof StepFailure ? err.message : `internal error: ${(err as Error).message}` };
    }
    return this.finish(head, result);
  }

  /** The job's own code or its chain. Throws StepFailure on a failed step. */
  private async runJob(spec: RunSpec, cfg: JobConfig): Promise<StepResult> {
    if (spec.depth > MAX_DEPTH) return { kind: 'failed', message: `composed jobs nest deeper than ${MAX_DEPTH} levels (does a chain call itself?)` };
    if (!cfg.chains.length) {
      this.log('running code/index.js');
      const host = new SandboxHost((m, s) => this.log(m, s), this.cancelRequested);
      try {
        return await this.guard(
          runSandbox(this.env, { id: spec.jobId, codeVersion: cfg.codeVersion, network: cfg.network }, spec.input, cfg.env, host).then((r): StepResult =>
            r.ok ? { kind: 'ok', files: r.files } : r.aborted ? { kind: 'aborted', message: r.message } : { kind: 'failed', message: r.message },
          ),
        );
      } finally {
        // Code that ignored the cancel (or the wall limit) may still be running: it no longer writes this log.
        host.close();
      }
    }
    let files = spec.input;
    for (const [i, step] of cfg.chains.entries()) {
      if (this.isCanceling()) return { kind: 'aborted', message: `canceled before step ${step.label}` };
      this.log(`step ${step.label}${step.fanOut ? ` (fan-out over ${files.length} files)` : ''}`);
      const inputs = step.fanOut ? files.map((f) => [f]) : [files];
      const results = await this.guard(this.branches(inputs.map((input) => this.runStep(spec, step, input))));
      if (results.kind !== 'ok') return { ...results, message: `step ${step.label}: ${results.message}` };
      files = results.files;
      if (this.isCanceling() && i < cfg.chains.length - 1) return { kind: 'aborted', message: `canceled after step ${step.label}` };
    }
    return { kind: 'ok', files };
  }

  /**
   * A step's branches (one, or one per file of a fan-out): all their files, or the first
   * failure at once. A failed branch ends the step (its siblings are torn down), so the run
   * finishes failed before a later cancel could be accepted (that cancel answers 409).
   */
  private async branches(runs: Promise<StepResult>[]): Promise<StepResult> {
    const settled = runs.map((r) => r.catch((err): StepResult => ({ kind: 'failed', message: (err as Error).message ?? String(err) })));
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
    const settled = step.catch((err): StepResult => ({ kind: 'failed', message: (err as Error).message ?? String(err) }));
    const { wallMs } = stepLimits(this.env);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<StepResult>((r) => {
      timer = setTimeout(() => r({ kind: 'failed', message: `the step ran longer than its wall-time limit of ${wallMs / 1000} s` }), wallMs);
    });
    const teardown = this.cancelRequested.then(() => sleep(teardownGrace(this.env))).then((): StepResult => ({ kind: 'aborted', message: 'torn down' }));
    try {
      return await Promise.race([settled, timeout, teardown]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async runStep(spec: RunSpec, step: ChainStep, input: RunFile[]): Promise<StepResult> {
    if (step.ref.kind === 'url') {
      const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(HTTPS_STEP_MS)]);
      try {
        const res = await fetch(step.ref.url, { method: 'POST', body: formOf(input), signal });
        if (!res.ok) return { kind: 'failed', message: `${step.ref.url} answered ${res.status}` };
        return { kind: 'ok', files: await filesFromResponse(res) };
      } catch (err) {
        if (this.abort.signal.aborted) return { kind: 'aborted', message: this.branchesStopped ? 'another branch failed' : 'canceled' };
        return { kind: 'failed', message: `${step.ref.url}: ${(err as Error).message}` };
      }
    }
    const target = await this.resolveJob(spec, step.ref.owner, step.ref.job);
    if (typeof target === 'string') return { kind: 'failed', message: target };
    // Canceled (or a sibling branch failed) while the step resolved: start no child.
    if (this.isCanceling() || this.branchesStopped) return { kind: 'aborted', message: 'canceled before the child run started' };
    const childName = runName(now(), requestId());
    const child = this.env.RUNS.get(this.env.RUNS.idFromName(childName)) as DurableObjectStub<RunObject>;
    this.children.add(child);
    this.log(`child run ${childName} of ${step.ref.owner ? `@${step.ref.owner}/` : ''}${step.ref.job}`);
    try {
      const out = (await child.execute({
        name: childName,
        jobId: target.id,
        ownerId: target.owner_id,
        rootJobId: spec.rootJobId,
        parentId: this.runId,
        parentStep: step.label,
        trigger: spec.trigger,
        source: spec.source,
        createdBy: spec.createdBy,
        callerId: spec.callerId,
        input,
        depth: spec.depth + 1,
      })) as unknown as RunOutcome;
      if (out.status === 'success') return { kind: 'ok', files: out.files };
      if (out.status === 'canceled') return { kind: 'aborted', message: `child run ${childName} was canceled` };
      return { kind: 'failed', message: `child run ${childName} failed`, decidedAt: out.decidedAt };
    } finally {
      this.children.delete(child);
    }
  }

  /**
   * A job ref of a chain: a bare name is a job of the chain's owner; `@user/job` is a job
   * shared with the caller (who triggered the top-level run) with execute access.
   */
  private async resolveJob(spec: RunSpec, ownerName: string | null, job: string): Promise<{ id: number; owner_id: number } | string> {
    const missing = `no such job: ${ownerName ? `@${ownerName}/` : ''}${job}`;
    let ownerId = spec.ownerId;
    if (ownerName) {
      const u = await this.db.select({ id: users.id }).from(users).where(eq(users.username, ownerName)).get();
      if (!u) return missing;
      ownerId = u.id;
    }
    const r = await this.db
      .select()
      .from(resources)
      .where(and(eq(resources.owner_id, ownerId), eq(resources.kind, 'job'), eq(resources.name, job)))
      .get();
    if (!r) return missing;
    if (ownerName && r.owner_id !== spec.callerId) {
      const access = await accessTo(this.db, { id: spec.callerId } as User, r);
      if (!access.r) return missing;
      if (!access.x) return `${spec.createdBy} has no execute access to @${ownerName}/${job}`;
    }
    return { id: r.id, owner_id: r.owner_id };
  }

  /**
   * Ends the run: output, status, the D1 row, auto-pause. It never throws (a D1 error, a
   * job deleted meanwhile), so tails always end and the retention alarm is always set.
   */
  private async finish(head: RunHead, given: StepResult): Promise<RunOutcome> {
    const result = this.afterCancel(given);
    let status: RunOutcome['status'] = result.kind === 'ok' ? 'success' : result.kind === 'aborted' ? 'canceled' : 'failed';
    let files = result.kind === 'ok' ? result.files : [];
    let out = status === 'success' ? bundle(files) : null;
    let message = result.kind === 'ok' ? 'ok' : result.message;
    const decidedAt = result.kind === 'failed' ? (result.decidedAt ?? Date.now()) : undefined;
    if (result.kind === 'failed') this.log(result.message, 'error');
    if (result.kind === 'aborted') this.log(`teardown completed: ${result.message}`, 'warning');
    try {
      // The output is stored before the row says there is one: small ones in this object's
      // own storage (no extra round trip), larger ones in R2 under the job's blob prefix.
      if (out && out.data.byteLength <= INLINE_OUTPUT) this.ctx.storage.kv.put('output', out.data);
      else if (out) {
        await this.env.BLOBS.put(outputKey(head.jobId, head.name), out.data, {
          httpMetadata: { contentType: out.type },
          customMetadata: { filename: out.filename },
        });
      }
    } catch (err) {
      message = `the output could not be stored: ${(err as Error).message}`;
      this.log(message, this.isCanceling() ? 'warning' : 'error');
      // Once a cancel was accepted, only a success overrides it (see afterCancel).
      [status, files, out] = [this.isCanceling() ? 'canceled' : 'failed', [], null];
    }
    this.setStatus(status);
    const completed = nowIso();
    try {
      const row = this.db
        .update(jobRuns)
        .set({
          status,
          completed_on: completed,
          duration: durationOf(head.started, completed),
          output_name: out?.filename ?? null,
          output_type: out?.type ?? null,
          output_size: out?.data.byteLength ?? null,
        })
        .where(eq(jobRuns.name, head.name));
      // A successful top-level run ends any failure streak: in the same round trip as its row
      // (conditional, so the common case writes nothing more).
      if (!head.top) await row;
      else if (status === 'success') await this.db.batch([row, this.db.update(jobMeta).set({ failures: 0 }).where(and(eq(jobMeta.job_id, head.jobId), gt(jobMeta.failures, 0)))]);
      else await Promise.all([row, this.countFailures(head.jobId, status)]);
    } catch (err) {
      this.log(`the run record could not be updated: ${(err as Error).message}`, 'error');
    }
    this.log(`run ${status}${out ? ` (output ${out.filename}, ${out.data.byteLength} bytes)` : ''}`, status === 'success' ? 'info' : status === 'failed' ? 'error' : 'warning');
    this.endTails();
    this.ctx.waitUntil(this.retain());
    return { name: head.name, status, files, bundle: out, message, ...(status === 'failed' ? { decidedAt } : {}) };
  }

  /**
   * Once a cancel has been accepted (202, or the teardown of a child run), the run ends
   * canceled unless it succeeded: whatever the step did after the cancel (rejected with
   * its own error, threw, broke the sandbox, a child or https step failed) is the
   * teardown, not a failure. A failure decided before the cancel arrived has already
   * finished the run (finish runs without yielding first), so that cancel answered 409;
   * a child run's failure decided before the cancel but still on its way here (the child
   * was writing its row) stays a failure too, though that cancel answered 202.
   */
  private afterCancel(result: StepResult): StepResult {
    if (result.kind !== 'failed' || !this.isCanceling()) return result;
    if (result.decidedAt !== undefined && result.decidedAt < this.canceledAt) {
      this.log('the step had failed before the cancel was accepted: the run ends failed', 'info');
      return result;
    }
    this.log(`after the cancel: ${result.message}`, 'info');
    return { kind: 'aborted', message: 'the step stopped after the cancel' };
  }

  /**
   * Auto-pause: the fifth consecutive failed run sets config/enabled to false. A job
   * deleted during its run has no row left to count on: that is not an error of the run.
   */
  private async countFailures(jobId: number, status: 'failed' | 'canceled'): Promise<void> {
    if (status === 'canceled') return; // not a failure, and not a success either (success resets in finish)
    try {
      const row = await this.db
        .insert(jobMeta)
        .values({ job_id: jobId, failures: 1 })
        .onConflictDoUpdate({ target: jobMeta.job_id, set: { failures: sql`${jobMeta.failures} + 1` } })
        .returning({ failures: jobMeta.failures })
        .get();
      if (row.failures < AUTO_PAUSE_AFTER) return;
      const job = await this.db.select().from(resources).where(eq(resources.id, jobId)).get();
      if (!job) return;
      await writeEntry(this.env, this.db, job, 'config/enabled', 'false');
      await this.db.batch([this.db.delete(jobSchedules).where(eq(jobSchedules.job_id, jobId)), this.db.update(jobMeta).set({ failures: 0 }).where(eq(jobMeta.job_id, jobId))]);
      this.log(`job paused: ${AUTO_PAUSE_AFTER} consecutive failed runs; config/enabled is now false (scheduled runs stop; manual runs still work)`, 'warning');
    } catch (err) {
      const gone = !(await this.db.select({ id: resources.id }).from(resources).where(eq(resources.id, jobId)).get().catch(() => null));
      this.log(gone ? 'the job was deleted during the run: nothing to count toward auto-pause' : `auto-pause bookkeeping failed: ${(err as Error).message}`, 'warning');
    }
  }

  /** A run left unfinished by a reset: failed (or canceled, if a cancel was pending), with a log line. */
  private async interrupt(): Promise<void> {
    if (this.status !== 'processing' && this.status !== 'canceling') return;
    const canceling = this.status === 'canceling';
    await this.finish(this.head(), canceling ? { kind: 'aborted', message: `${INTERRUPTED} while canceling` } : { kind: 'failed', message: INTERRUPTED });
  }

  /** The retention alarm of a final run; remembers when it is due (see alarm). */
  private retain(): Promise<void> {
    const at = Date.now() + RETENTION_MS;
    this.ctx.storage.kv.put('retain_until', at);
    return this.ctx.storage.setAlarm(at);
  }

  /** While running: the watchdog (see WATCHDOG_MS). Once final: retention, the log and the output go after 30 days. */
  override async alarm(): Promise<void> {
    if (this.status === 'processing' || this.status === 'canceling') {
      if (this.executing) await this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS);
      else await this.interrupt();
      return;
    }
    // A watchdog alarm that fires once the run is final (a reset object finished the run in
    // its constructor, or the run ended as the alarm came due) is not the retention one.
    const due = this.ctx.storage.kv.get<number>('retain_until');
    if (due !== undefined && Date.now() < due) {
      await this.ctx.storage.setAlarm(due);
      return;
    }
    this.ctx.storage.sql.exec('DELETE FROM log');
    this.ctx.storage.kv.delete('output');
    const jobId = this.ctx.storage.kv.get<number>('job_id');
    const name = this.ctx.storage.kv.get<string>('name');
    if (jobId !== undefined && name !== undefined) await this.env.BLOBS.delete(outputKey(jobId, name));
  }
}
