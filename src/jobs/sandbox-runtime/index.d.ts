/**
 * The job's code/index.js as the runtime (runtime.js) imports it: the sandbox holds the
 * job's files beside the runtime. Nothing about it is guaranteed: the runtime checks for a
 * run function before it calls one. The contract a job's code is written against.
 */

/** What run() receives beside its input files. */
export interface JobContext {
  /** The job's config/env entries, frozen. */
  env: Readonly<Record<string, string>>;
  /** Aborted when the run is canceled. */
  signal: AbortSignal;
  /** Appends a line to the run's log (live); severity debug, info (the default), warning or error. */
  log(message: unknown, severity?: unknown): void;
}

export interface Job {
  /** The run's input files; answers a string, a File, an array of Files, or any JSON value (the run's output). */
  run(input: File[], ctx: JobContext): unknown;
}

declare const job: Partial<Job> | null | undefined;
export default job;
