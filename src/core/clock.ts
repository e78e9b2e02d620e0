/**
 * The platform clock. Everything time-dependent (run retention, rate windows, schedules)
 * reads `now()`, so tests can move time by `setClockOffset` in-process, or over HTTP
 * through the ops clock route when the deployment allows it (ALLOW_CLOCK_OVERRIDE).
 */
let offsetMs = 0;

export function now(): number {
  return Date.now() + offsetMs;
}

export function nowIso(): string {
  return new Date(now()).toISOString();
}

export function setClockOffset(ms: number): void {
  offsetMs = ms;
}

export function clockOffset(): number {
  return offsetMs;
}
