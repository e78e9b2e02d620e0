/**
 * What one run may cost, whoever triggered it: how wide a step fans out, how many child
 * runs its whole tree starts, how much log it keeps. A run that reaches a cap fails with
 * a log line naming it (the log cap truncates instead: see MAX_LOG_ENTRIES).
 */

/** Files one fan-out step runs over (one child run or https call each). */
export const MAX_FAN_OUT = 64;
/**
 * Child runs of one top-level run, counted over its whole tree (nested chains included) by the top-level run's object.
 */
export const MAX_CHILD_RUNS = 256;
/** Log entries one run keeps; the last one stored says the log was truncated, nothing after it is. */
export const MAX_LOG_ENTRIES = 10_000;
/** Bytes (UTF-8) of log messages one run keeps, under the same truncation rule. */
export const MAX_LOG_BYTES = 4 * 1024 * 1024;
/** Log entries a reader gets per page from the run's object: a log is streamed page by page, never loaded whole. */
export const LOG_PAGE = 500;

/** The line stored in place of the entry that reached the log cap. */
export const LOG_TRUNCATED = `log truncated: a run keeps at most ${MAX_LOG_ENTRIES} entries and ${MAX_LOG_BYTES / 1024 / 1024} MiB of messages; later entries (the final status line too) are not stored, read the run's status`;

/**
 * A log entry as stored: always one line (a log is read line by line), its line breaks shown
 * as ` ⏎ ` (a stack trace, a syntax error's excerpt, a message with newlines).
 */
export const oneLine = (message: string): string =>
  message.includes('\n') || message.includes('\r') ? message.replace(/\r\n|\r|\n/g, ' ⏎ ') : message;

/** The log's next entry is the truncation line (count and bytes are those stored so far). */
export function logFull(count: number, bytes: number, next: number): boolean {
  return count + 1 >= MAX_LOG_ENTRIES || bytes + next > MAX_LOG_BYTES;
}

/** Why a step cannot start `more` child runs when `used` have started in its tree; nothing when it can. */
export function childRunsRefusal(used: number, more: number): string | void {
  if (used + more > MAX_CHILD_RUNS)
    return `the run would start ${used + more} child runs, more than the cap of ${MAX_CHILD_RUNS} per top-level run (counted over every nested chain)`;
}

/** Why a fan-out over `files` files cannot start; nothing when it can. */
export function fanOutRefusal(files: number): string | void {
  if (files > MAX_FAN_OUT) return `the step fans out over ${files} files, more than the cap of ${MAX_FAN_OUT}`;
}
