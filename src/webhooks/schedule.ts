/**
 * When a delivery is attempted (pure): the short wait that gathers a burst of new
 * deliveries into one pass, the retry schedule, Retry-After, and the failure streak after
 * which an endpoint is switched off.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * A wake arms the endpoint's alarm this much later: what is recorded meanwhile (a burst of
 * events) is delivered in the same pass, for one D1 read and one write of results.
 */
export const GATHER_MS = 20;

/**
 * The alarm to set so that it rings by `at`: `at`, or null when the one armed (null: none)
 * rings by then already.
 */
export function alarmBy(armed: number | null, at: number): number | null {
  return armed !== null && armed <= at ? null : at;
}

/** The waits before retries 1 to 7; after the last one fails the delivery is exhausted. */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

/** A Retry-After longer than this is cut to it (a receiver cannot park a delivery forever). */
export const MAX_RETRY_AFTER_MS = 10 * HOUR;

/** An endpoint whose every attempt failed for this long is disabled (and its owner told). */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR;

/** A receiver has this long to answer. */
export const DELIVERY_TIMEOUT_MS = 15 * SECOND;

/** Seconds of a Retry-After header (delta-seconds or an HTTP date), in ms; null when absent or unreadable. */
export function retryAfterMs(header: string | null, at: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - at);
}

/**
 * The wait before the next attempt after `attempts` failed ones (1 = the first attempt
 * failed), or null when the schedule is used up. A Retry-After longer than the scheduled
 * wait is honoured (up to MAX_RETRY_AFTER_MS); a shorter one never hurries a retry.
 */
export function nextRetryDelay(attempts: number, retryAfter: number | null = null): number | null {
  const scheduled = RETRY_DELAYS_MS[attempts - 1];
  if (scheduled === undefined) return null;
  return retryAfter === null ? scheduled : Math.max(scheduled, Math.min(retryAfter, MAX_RETRY_AFTER_MS));
}

/** Whether a failure streak that began at `failingSince` has lasted long enough to disable the endpoint. */
export function failedTooLong(failingSince: string | null, at: number): boolean {
  return failingSince !== null && at - Date.parse(failingSince) >= DISABLE_AFTER_MS;
}
