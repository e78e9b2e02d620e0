/**
 * Retention, the pure part: the settings a deployment's vars give (defaults where a var is unset or not a whole
 * number), and the plan of one sweep tick: which table, under which cutoff, in batches of how many rows, within the
 * tick's row budget. The I/O (D1 deletes, R2 blobs, the sweep record) is retention.ts.
 */
import { EDGE_MAX_AGE_MS } from '../core/edge-cache';
import { IDEMPOTENCY_WINDOW_MS } from '../core/idempotency';

export interface RetentionSettings {
  enabled: boolean;
  /** outbox rows older than this go. */
  outbox_days: number;
  /** job_runs and mail_runs: rows older than runs_days go, but the newest runs_keep of each job / e-mail stay. */
  runs_days: number;
  runs_keep: number;
  /** resource_log: the newest log_keep lines of a resource stay, and every line younger than log_days. */
  log_days: number;
  log_keep: number;
  /** webhook_deliveries and webhook_events: rows older than this go (a delivery still to be retried stays). */
  webhooks_days: number;
  /** Rows per DELETE statement; rows and wall milliseconds per tick. */
  batch: number;
  tick_rows: number;
  tick_ms: number;
}

export const RETENTION_DEFAULTS: RetentionSettings = {
  enabled: true,
  outbox_days: 30,
  runs_days: 90,
  runs_keep: 100,
  log_days: 90,
  log_keep: 1000,
  webhooks_days: 30,
  batch: 500,
  tick_rows: 5000,
  tick_ms: 1000,
};

type Vars = Partial<Record<string, unknown>>;

const VARS: Record<Exclude<keyof RetentionSettings, 'enabled'>, string> = {
  outbox_days: 'RETENTION_OUTBOX_DAYS',
  runs_days: 'RETENTION_RUNS_DAYS',
  runs_keep: 'RETENTION_RUNS_KEEP',
  log_days: 'RETENTION_LOG_DAYS',
  log_keep: 'RETENTION_LOG_KEEP',
  webhooks_days: 'RETENTION_WEBHOOKS_DAYS',
  batch: 'RETENTION_BATCH',
  tick_rows: 'RETENTION_TICK_ROWS',
  tick_ms: 'RETENTION_TICK_MS',
};

/** A var as a whole number ≥ min, else the default: a typo in a deployment's vars never deletes more. */
function whole(v: unknown, fallback: number, min: number): number {
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isSafeInteger(n) && n >= min ? n : fallback;
}

export function retentionSettings(env: Vars): RetentionSettings {
  const out = { ...RETENTION_DEFAULTS, enabled: env.RETENTION !== 'off' };
  for (const [key, name] of Object.entries(VARS) as [keyof typeof VARS, string][]) {
    // Days and kept rows below 1 would empty a table; batch and budgets below 1 would never progress.
    out[key] = whole(env[name], RETENTION_DEFAULTS[key], 1);
  }
  out.batch = Math.min(out.batch, out.tick_rows);
  return out;
}

export type RetentionTable =
  'outbox' | 'resource_log' | 'mail_runs' | 'job_runs' | 'webhook_deliveries' | 'idempotency_keys' | 'edge_cache';

/** What one tick sweeps: each table's cutoff (ISO; older rows may go) and how many of its newest rows always stay. */
export interface SweepStep {
  table: RetentionTable;
  cutoff: string;
  keep: number;
}

const DAY_MS = 24 * 3600 * 1000;

/** The tables in sweep order: the fastest growers first, so a tight budget goes where the bytes are. */
export function planSweep(s: RetentionSettings, nowMs: number): SweepStep[] {
  if (!s.enabled) return [];
  const cutoff = (days: number) => new Date(nowMs - days * DAY_MS).toISOString();
  return [
    { table: 'outbox', cutoff: cutoff(s.outbox_days), keep: 0 },
    { table: 'resource_log', cutoff: cutoff(s.log_days), keep: s.log_keep },
    { table: 'mail_runs', cutoff: cutoff(s.runs_days), keep: s.runs_keep },
    { table: 'job_runs', cutoff: cutoff(s.runs_days), keep: s.runs_keep },
    { table: 'webhook_deliveries', cutoff: cutoff(s.webhooks_days), keep: 0 },
    // Idempotency-Key answers: their 24 hours are what the API promises, no var changes them.
    { table: 'idempotency_keys', cutoff: new Date(nowMs - IDEMPOTENCY_WINDOW_MS).toISOString(), keep: 0 },
    // What the edge keeps, past its s-maxage (and purges older than a read can be): no var either.
    { table: 'edge_cache', cutoff: new Date(nowMs - EDGE_MAX_AGE_MS).toISOString(), keep: 0 },
  ];
}

/** Rows the next batch may take: the batch size, never more than what is left of the tick's row budget. */
export function nextBatch(s: RetentionSettings, removedThisTick: number): number {
  return Math.max(0, Math.min(s.batch, s.tick_rows - removedThisTick));
}

/** Whether the tick may start another batch: rows left in the budget and time left. */
export function mayContinue(s: RetentionSettings, removedThisTick: number, elapsedMs: number): boolean {
  return nextBatch(s, removedThisTick) > 0 && elapsedMs < s.tick_ms;
}
