/**
 * config/schedule: a five-field cron expression, optionally prefixed by `TZ=<IANA zone>`
 * and followed by a `#` comment (pure; croner computes fire times).
 */
import { Cron } from 'croner';
import { isTimeZone } from '../core/names';

export interface Schedule {
  expr: string;
  timezone: string;
}

class ScheduleError extends Error {}

/** Parses a schedule; empty (or comment-only) means no schedule (null). */
export function parseSchedule(text: string): Schedule | null {
  let body = text.split('#')[0]!.trim();
  if (!body) return null;
  let timezone = 'UTC';
  const tz = /^TZ=(\S+)\s+/.exec(body);
  if (tz) {
    timezone = tz[1]!;
    body = body.slice(tz[0].length).trim();
  } else if (body.startsWith('TZ=')) throw new ScheduleError('TZ=<zone> must be followed by a cron expression');
  const fields = body.split(/\s+/);
  if (fields.length !== 5)
    throw new ScheduleError(`a cron expression has five fields (minute hour day month weekday), got ${fields.length}`);
  if (!isTimeZone(timezone))
    throw new ScheduleError(`unknown time zone '${timezone}': use an IANA name such as Europe/Paris`);
  const expr = fields.join(' ');
  try {
    // oxlint-disable-next-line no-new -- constructing a paused Cron is how croner checks an expression
    new Cron(expr, { timezone, paused: true });
  } catch (err) {
    throw new ScheduleError(`invalid cron expression '${expr}': ${(err as Error).message}`);
  }
  return { expr, timezone };
}

/** The first fire time strictly after `afterMs` (ms since epoch), or null when it never fires. */
export function nextFire(s: Schedule, afterMs: number): number | null {
  const next = new Cron(s.expr, { timezone: s.timezone, paused: true }).nextRun(new Date(afterMs));
  return next ? next.getTime() : null;
}

export function scheduleProblem(text: string): string | void {
  try {
    const s = parseSchedule(text);
    if (s && nextFire(s, Date.now()) === null) return 'the schedule never fires';
  } catch (err) {
    if (err instanceof ScheduleError) return err.message;
    throw err;
  }
}
