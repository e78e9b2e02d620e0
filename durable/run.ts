/**
 * RunObject: one per run (named by the run id), the single owner of the run's state and
 * log. Its state machine, steps, records and log store live in src/jobs/run/ (machine.ts,
 * steps.ts, writes.ts, output.ts, log-store.ts); this class holds the state (its stored
 * record: run-state.ts), the alarm and the RPC methods. It executes the run itself (the
 * job's code in a sandbox, or its chain, whose job steps are child runs in their own
 * RunObjects) so that a cancel, arriving while the run awaits a step, is serialised with
 * the run's own end by the object's single thread.
 */
import { DurableObject } from 'cloudflare:workers';
import { nowIso } from '../src/core/clock';
import { dbFor, type Db } from '../src/core/context';
import type { Severity } from '../src/core/log';
import { jobConfig } from '../src/jobs/config';
import { bundle } from '../src/jobs/files';
import {
  afterCancel,
  cancelRefusal,
  INTERRUPTED,
  isFinal,
  statusOf,
  WATCHDOG_MS,
  type CancelAnswer,
  type RunHead,
  type RunOutcome,
  type RunRecordSpec,
  type RunSpec,
  type StepResult,
} from '../src/jobs/run/machine';
import { INLINE_OUTPUT, outputKey, putLargeOutput } from '../src/jobs/run/output';
import { childRunsRefusal, LOG_PAGE } from '../src/jobs/caps';
import { RunLogStore } from '../src/jobs/run/log-store';
import type { LogPage } from '../src/jobs/run/log';
import { RunSteps } from '../src/jobs/run/steps';
import { insertRejected, insertStarted, markCanceling, recordEnd } from '../src/jobs/run/writes';
import { RETENTION_MS } from '../src/jobs/run/reads';
import { IdleRelease, RELEASED } from '../src/jobs/run/release';
import { runStub } from '../src/jobs/run/stub';
import type { RunStatus } from '../src/jobs/schema';
import { loadRunState, saveRunState, type RunState } from './run-state';

class StepFailure extends Error {}

/** Where a small output is stored (see INLINE_OUTPUT). */
const OUTPUT_KEY = 'output';

export class RunObject extends DurableObject<Env> {
  /** The stored state, as loaded by the constructor and kept in step by save(). */
  private readonly state: RunState;
  /** The log and its live tails (src/jobs/run/log-store.ts). */
  private readonly logStore: RunLogStore;
  /** True while this instance runs execute(); a reset object has no live execution. */
  private executing = false;
  /** Its job went (forget): the storage is deleted, and deleted again when a live run ends. */
  private forgotten = false;
  /** Called once the run's row exists (start: the caller answers then). */
  private recorded: (() => void) | null = null;
  /** When (Date.now()) this instance accepted the cancel or its teardown. */
  private canceledAt = 0;
  private db: Db;
  private readonly steps: RunSteps;
  /** When this instance leaves memory once its run is final (src/jobs/run/release.ts). */
  private readonly release = new IdleRelease(
    () => this.idleAndFinal(),
    () => this.ctx.abort(RELEASED),
  );

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = dbFor(env);
    this.steps = new RunSteps({
      env,
      db: this.db,
      log: (m, s) => this.log(m, s),
      isCanceling: () => this.isCanceling(),
      runId: () => this.state.runId,
      // The top-level run counts its tree's children itself; a nested run asks it.
      claimChildren: async (spec, n) =>
        spec.parentId === null ? this.claimChildren(n) : runStub(env, spec.rootName).claimChildren(n),
    });
    this.logStore = new RunLogStore(ctx.storage.sql);
    this.state = loadRunState(ctx.storage.kv);
    // A new instance never has a live execution: an unfinished run was cut off by a reset.
    if (this.state.status === 'processing' || this.state.status === 'canceling')
      void ctx.blockConcurrencyWhile(() => this.interrupt());
  }

  /** Changes the state, in memory and in storage. */
  private save(changes: Partial<RunState>): void {
    Object.assign(this.state, changes);
    saveRunState(this.ctx.storage.kv, changes);
  }

  private remember(spec: Pick<RunSpec, 'jobId' | 'name'>, top: boolean, started: string): void {
    this.save({ jobId: spec.jobId, name: spec.name, top, started });
  }

  private head(): RunHead {
    const { name, jobId, top, started } = this.state;
    return { name: name ?? '', jobId: jobId ?? 0, top, started: started ?? nowIso() };
  }

  private setStatus(status: RunStatus): void {
    this.save({ status });
  }

  /** Appends to the log, up to its caps (RunLogStore): nothing follows the entry that reaches one. */
  log(text: string, severity: Severity | string = 'info'): void {
    if (this.state.logTruncated) return;
    if (this.logStore.append(text, severity)) this.save({ logTruncated: true });
  }

  /** One page of the log (RunLogStore.page). */
  readLog(after = 0, limit = LOG_PAGE): LogPage {
    this.touch();
    return this.logStore.page(after, limit);
  }

  /**
   * Counts `n` more child runs of this top-level run's tree against MAX_CHILD_RUNS (every
   * nested run asks here before it starts children): why not, or nothing. A run that has
   * ended starts no more.
   */
  claimChildren(n: number): string | undefined {
    this.touch();
    if (this.state.status !== 'processing' && this.state.status !== 'canceling') return 'the top-level run has ended';
    const used = this.state.childRuns;
    const refused = childRunsRefusal(used, n);
    if (refused) return refused;
    this.save({ childRuns: used + n });
    return undefined;
  }

  /** Read through a method: TypeScript would narrow the field across awaits. */
  private isCanceling(): boolean {
    return this.state.status === 'canceling';
  }

  /**
   * The stored output when it is small enough to live here (see INLINE_OUTPUT). Not part of
   * the state record: it is read only when asked for.
   */
  output(): ArrayBuffer | null {
    this.touch();
    return this.ctx.storage.kv.get<ArrayBuffer>(OUTPUT_KEY) ?? null;
  }

  getStatus(): RunStatus | null {
    this.touch();
    return this.state.status;
  }

  /**
   * Called by a trigger whose execute() call broke: reaching the object constructs a new
   * instance if it was reset, which finishes the cut-off run (see the constructor).
   */
  recover(): Promise<RunStatus | null> {
    return this.release.during(async () => {
      if (!this.executing) await this.interrupt();
      return this.state.status;
    });
  }

  /** A live tail: every log entry so far, then new ones as they come, then `end` with the final status. */
  liveLog(): ReadableStream<Uint8Array> {
    this.touch();
    return this.logStore.follow(
      () => this.state.status,
      () => this.touch(),
    );
  }

  /** Records a run that never starts (permission check blocked it). */
  reject(spec: RunRecordSpec, reason: string): Promise<void> {
    return this.release.during(async () => {
      if (this.state.status !== null) return;
      this.setStatus('rejected');
      const at = nowIso();
      this.remember(spec, true, at);
      await insertRejected(this.db, spec, at);
      this.log(`run rejected: ${reason}`, 'error');
      await this.retain();
    });
  }

  /**
   * Forgets the run (its job is being deleted): a run still processing has its steps torn
   * down, then the stored state, log and alarm go.
   */
  forget(): Promise<void> {
    return this.release.during(async () => {
      this.forgotten = true;
      if (this.state.status === 'processing') this.steps.cancel();
      this.logStore.forget();
      await this.wipe();
    });
  }

  private async wipe(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  /** A cancel from the API (the route has already refused child runs). */
  cancel(by: string): Promise<CancelAnswer> {
    return this.release.during(async () => {
      const refusal = cancelRefusal(this.state.status);
      if (refusal) return refusal;
      this.accept(`cancel requested by ${by}`);
      await this.recordCanceling();
      return { code: 202, status: 'canceling' } as const;
    });
  }

  /** Cancel from the parent run (the top-level run is being canceled). */
  teardown(): Promise<void> {
    return this.release.during(async () => {
      if (this.state.status === null) {
        // execute() has not arrived yet: it will end the run canceled without running it.
        this.save({ pendingCancel: true });
        return;
      }
      if (this.state.status !== 'processing') return;
      this.accept('canceled with its top-level run');
      await this.recordCanceling();
    });
  }

  /** processing → canceling: the steps are torn down. */
  private accept(message: string): void {
    this.setStatus('canceling');
    this.canceledAt = Date.now();
    this.log(message, 'warning');
    this.steps.cancel();
  }

  private recordCanceling(): Promise<void> {
    return markCanceling(this.db, this.state.runId, (m, s) => this.log(m, s));
  }

  /**
   * Starts the run and answers once its row exists, its status readable; the run goes on in
   * this object (`Prefer: respond-async` on a trigger). A run that ends before its row exists
   * (it could not be recorded) answers then, with how it ended.
   */
  async start(spec: RunSpec): Promise<RunOutcome | null> {
    const recorded = new Promise<null>((resolve) => (this.recorded = () => resolve(null)));
    const done = this.execute(spec);
    this.ctx.waitUntil(done.catch(() => undefined));
    return Promise.race([recorded, done]);
  }

  /** Starts and runs the whole run; answers when it ends. */
  async execute(spec: RunSpec): Promise<RunOutcome> {
    if (this.state.status !== null) throw new Error(`run ${spec.name} already exists`);
    this.setStatus(this.state.pendingCancel ? 'canceling' : 'processing');
    const started = nowIso();
    const head: RunHead = {
      name: spec.name,
      jobId: spec.jobId,
      top: spec.parentId === null,
      started,
      trigger: spec.trigger,
    };
    this.remember(spec, head.top, started);
    this.executing = true;
    try {
      return await this.executeRun(spec, head);
    } finally {
      this.executing = false;
      // A run forgotten as it executed stored its end (state, output, alarm) after the wipe.
      if (this.forgotten) await this.wipe();
      // finish() touched while the run was still executing, which arms no release: arm it
      // now, or an object nobody calls again stays in memory until its retention alarm.
      this.touch();
    }
  }

  private async executeRun(spec: RunSpec, head: RunHead): Promise<RunOutcome> {
    void this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS);
    // The run row and the job's configuration are read in parallel (one round trip).
    const [runId, cfg] = await Promise.all([
      insertStarted(this.db, spec, head.started),
      jobConfig(this.env, this.db, spec.jobId).catch((err: Error) => err),
    ]);
    this.save({ runId });
    this.recorded?.();
    this.log(`run started (trigger ${spec.trigger}, source ${spec.source}, by ${spec.createdBy})`);
    if (this.isCanceling()) {
      // A cancel that arrived before the row existed could not mark it.
      await this.recordCanceling();
      this.log('cancel arrived before the first step');
    }

    let result: StepResult;
    try {
      if (this.state.pendingCancel)
        result = { kind: 'aborted', message: 'canceled with its top-level run before it started' };
      else if (cfg instanceof Error) throw new StepFailure(`the job configuration cannot be read: ${cfg.message}`);
      else result = await this.steps.run(spec, cfg);
    } catch (err) {
      result = {
        kind: 'failed',
        message: err instanceof StepFailure ? err.message : `internal error: ${(err as Error).message}`,
      };
    }
    return this.finish(head, result);
  }

  /**
   * Ends the run: output, status, the D1 row, auto-pause. It never throws (a D1 error, a
   * job deleted meanwhile), so tails always end and the retention alarm is always set.
   */
  private async finish(head: RunHead, given: StepResult): Promise<RunOutcome> {
    const result = afterCancel(given, this.isCanceling(), this.canceledAt, (m, s) => this.log(m, s));
    let status = statusOf(result);
    let files = result.kind === 'ok' ? result.files : [];
    let out = status === 'success' ? await bundle(this.env, files) : null;
    let message = result.kind === 'ok' ? 'ok' : result.message;
    const decidedAt = result.kind === 'failed' ? (result.decidedAt ?? Date.now()) : undefined;
    if (result.kind === 'failed') this.log(result.message, 'error');
    if (result.kind === 'aborted') this.log(`teardown completed: ${result.message}`, 'warning');
    try {
      // The output is stored before the row says there is one: small ones in this object's
      // own storage (no extra round trip), larger ones in R2 under the job's blob prefix.
      if (out && out.data.byteLength <= INLINE_OUTPUT) this.ctx.storage.kv.put(OUTPUT_KEY, out.data);
      else if (out) await putLargeOutput(this.env, head.jobId, head.name, out);
    } catch (err) {
      message = `the output could not be stored: ${(err as Error).message}`;
      this.log(message, this.isCanceling() ? 'warning' : 'error');
      // Once a cancel was accepted, only a success overrides it (see afterCancel).
      [status, files, out] = [this.isCanceling() ? 'canceled' : 'failed', [], null];
    }
    this.setStatus(status);
    const finished = nowIso();
    // A top-level run's event is recorded with its row; its delivery is this object's background.
    await recordEnd(this.env, this.db, this.ctx, head, status, out, finished, (m, s) => this.log(m, s));
    this.log(
      `run ${status}${out ? ` (output ${out.filename}, ${out.data.byteLength} bytes)` : ''}`,
      status === 'success' ? 'info' : status === 'failed' ? 'error' : 'warning',
    );
    this.logStore.end(this.state.status);
    this.ctx.waitUntil(this.retain());
    this.touch();
    return { name: head.name, status, files, bundle: out, message, ...(status === 'failed' ? { decidedAt } : {}) };
  }

  /** A run left unfinished by a reset: failed (or canceled, if a cancel was pending), with a log line. */
  private async interrupt(): Promise<void> {
    if (this.state.status !== 'processing' && this.state.status !== 'canceling') return;
    const canceling = this.state.status === 'canceling';
    await this.finish(
      this.head(),
      canceling
        ? { kind: 'aborted', message: `${INTERRUPTED} while canceling` }
        : { kind: 'failed', message: INTERRUPTED },
    );
  }

  /** Starts the release's idle period again (see IdleRelease). */
  private touch(): void {
    this.release.touch();
  }

  private idleAndFinal(): boolean {
    return this.state.status !== null && isFinal(this.state.status) && !this.executing && !this.logStore.followed();
  }

  /** The retention alarm of a final run; remembers when it is due (see alarm). */
  private retain(): Promise<void> {
    const at = Date.now() + RETENTION_MS;
    this.save({ retainUntil: at });
    return this.ctx.storage.setAlarm(at);
  }

  /** While running: the watchdog (see WATCHDOG_MS). Once final: retention, the log and the output go after 30 days. */
  override alarm(): Promise<void> {
    return this.release.during(() => this.onAlarm());
  }

  private async onAlarm(): Promise<void> {
    if (this.state.status === 'processing' || this.state.status === 'canceling') {
      if (this.executing) await this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS);
      else await this.interrupt();
      return;
    }
    // A watchdog alarm that fires once the run is final (a reset object finished the run in
    // its constructor, or the run ended as the alarm came due) is not the retention one.
    const due = this.state.retainUntil;
    if (due !== null && Date.now() < due) {
      await this.ctx.storage.setAlarm(due);
      return;
    }
    this.ctx.storage.sql.exec('DELETE FROM log');
    this.ctx.storage.kv.delete(OUTPUT_KEY);
    const { jobId, name } = this.state;
    if (jobId !== null && name !== null) await this.env.BLOBS.delete(outputKey(jobId, name));
  }
}
