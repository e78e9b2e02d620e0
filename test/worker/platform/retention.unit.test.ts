/** Retention's pure plan: settings from a deployment's vars, the tick's cutoffs and its row budget. */
import { describe, expect, it } from 'vitest';
import {
  mayContinue,
  nextBatch,
  planSweep,
  RETENTION_DEFAULTS,
  retentionSettings,
} from '../../../src/accounts/retention-plan';

describe('retention plan', () => {
  it('defaults: outbox 30 days, runs 90 days keeping 100, logs 90 days keeping 1,000', () => {
    expect(retentionSettings({})).toEqual(RETENTION_DEFAULTS);
    expect(RETENTION_DEFAULTS).toMatchObject({
      outbox_days: 30,
      runs_days: 90,
      runs_keep: 100,
      log_days: 90,
      log_keep: 1000,
    });
  });

  it('vars replace the defaults; a value that is not a whole number ≥ 1 keeps the default', () => {
    const s = retentionSettings({ RETENTION_OUTBOX_DAYS: '7', RETENTION_RUNS_KEEP: ' 20 ', RETENTION_LOG_DAYS: '0' });
    expect(s).toMatchObject({ outbox_days: 7, runs_keep: 20, log_days: 90 });
    expect(retentionSettings({ RETENTION_RUNS_DAYS: '-5', RETENTION_LOG_KEEP: '1e3' })).toMatchObject({
      runs_days: 90,
      log_keep: 1000,
    });
  });

  it('RETENTION=off plans nothing', () => {
    expect(planSweep(retentionSettings({ RETENTION: 'off' }), Date.now())).toEqual([]);
  });

  it('cutoffs are days before now; a batch is never larger than the budget left', () => {
    const at = Date.parse('2026-06-01T00:00:00.000Z');
    const plan = planSweep(RETENTION_DEFAULTS, at);
    expect(plan.map((p) => p.table)).toEqual([
      'outbox',
      'resource_log',
      'mail_runs',
      'job_runs',
      'webhook_deliveries',
      'idempotency_keys',
      'edge_cache',
    ]);
    expect(plan[4]).toEqual({ table: 'webhook_deliveries', cutoff: '2026-05-02T00:00:00.000Z', keep: 0 });
    // Idempotency-Key answers: 24 hours, whatever the vars say.
    expect(plan[5]).toEqual({ table: 'idempotency_keys', cutoff: '2026-05-31T00:00:00.000Z', keep: 0 });
    // What the edge keeps: its s-maxage (a minute).
    expect(plan[6]).toEqual({ table: 'edge_cache', cutoff: '2026-05-31T23:59:00.000Z', keep: 0 });
    expect(plan[0]).toEqual({ table: 'outbox', cutoff: '2026-05-02T00:00:00.000Z', keep: 0 });
    expect(plan[3]).toEqual({ table: 'job_runs', cutoff: '2026-03-03T00:00:00.000Z', keep: 100 });
    const s = { ...RETENTION_DEFAULTS, batch: 500, tick_rows: 1200 };
    expect(nextBatch(s, 0)).toBe(500);
    expect(nextBatch(s, 1000)).toBe(200);
    expect(nextBatch(s, 1200)).toBe(0);
    expect(mayContinue(s, 1000, 10)).toBe(true);
    expect(mayContinue(s, 1200, 10)).toBe(false);
    expect(mayContinue(s, 0, s.tick_ms)).toBe(false);
    // A batch larger than the tick's budget is cut to it.
    expect(retentionSettings({ RETENTION_BATCH: '900', RETENTION_TICK_ROWS: '300' }).batch).toBe(300);
  });
});
