/**
 * Retention, the I/O part: one sweep tick (run from scheduled() every minute) removes rows past retention table by
 * table (the plan: retention-plan.ts), each in batches of `DELETE … WHERE rowid IN (SELECT … LIMIT n)` so that no
 * statement holds the database's single writer for long, and stops when the tick's row or time budget is spent (the
 * next tick goes on). Runs are removed with their child runs (children first, in the same batch) and their R2 outputs;
 * removed runs and sends are first counted into per-day rollups (job_run_days, mail_run_days). The tick records what it
 * removed (GET /v1/ops/retention) and logs it.
 */
import { nowIso } from '../core/clock';
import { dbFor } from '../core/context';
import { sweepExpiredTokens } from '../core/tokens';
import { archiveTrees, dayOf, type ArchivedRun } from '../jobs/run/archive';
import { INLINE_OUTPUT, outputKey } from '../jobs/run/output';
import {
  mayContinue,
  nextBatch,
  planSweep,
  retentionSettings,
  type RetentionSettings,
  type RetentionTable,
  type SweepStep,
} from './retention-plan';

/** Rows removed per table, `blobs`: orphan R2 objects the walk removed, and `tokens`: expired tokens. */
type Removed = Record<RetentionTable | 'blobs' | 'tokens', number>;

/** R2 keys the orphan walk looks at per tick (one list call). */
const ORPHAN_PAGE = 500;
/** An object younger than this is never an orphan: its row may be on its way (or its owner mid-deletion). */
const ORPHAN_MIN_AGE_MS = 3600 * 1000;

const RESOURCE_KEY = /^r\/(\d+)\//;
const RUN_OUTPUT_KEY = /^r\/\d+\/runs\/([^/]+)\/output$/;

/**
 * One page of the walk over the resources' R2 objects (`r/<resource id>/…`): an object whose resource is gone, or a
 * run output whose run row is gone, is deleted. Answers the objects deleted and the cursor of the next page (null:
 * the walk is done; the next one starts over).
 */
export async function orphanBlobs(env: Env, cursor: string | null, at: number) {
  const page = await env.BLOBS.list({ prefix: 'r/', limit: ORPHAN_PAGE, ...(cursor ? { cursor } : {}) });
  const old = page.objects.filter((o) => at - o.uploaded.getTime() > ORPHAN_MIN_AGE_MS).map((o) => o.key);
  const ids = [...new Set(old.map((k) => Number(RESOURCE_KEY.exec(k)?.[1])).filter((n) => n > 0))];
  const runs = [...new Set(old.map((k) => RUN_OUTPUT_KEY.exec(k)?.[1]).filter((n): n is string => !!n))];
  const [goneIds, goneRuns] = await env.DB.batch<{ value: number | string }>([
    env.DB.prepare(`SELECT value FROM json_each(?1) WHERE value NOT IN (SELECT id FROM resources)`).bind(
      JSON.stringify(ids),
    ),
    env.DB.prepare(`SELECT value FROM json_each(?1) WHERE value NOT IN (SELECT name FROM job_runs)`).bind(
      JSON.stringify(runs),
    ),
  ]);
  const noResource = new Set(goneIds!.results.map((r) => Number(r.value)));
  const noRun = new Set(goneRuns!.results.map((r) => String(r.value)));
  const orphans = old.filter((k) => {
    const run = RUN_OUTPUT_KEY.exec(k)?.[1];
    return noResource.has(Number(RESOURCE_KEY.exec(k)?.[1])) || (run !== undefined && noRun.has(run));
  });
  if (orphans.length) await env.BLOBS.delete(orphans);
  return { deleted: orphans.length, cursor: page.truncated ? page.cursor : null };
}

const FINAL_RUN = `('rejected', 'success', 'failed', 'canceled')`;

/** One batch of a table: answers the rows it removed (0: nothing left past retention). */
type Batch = (env: Env, step: SweepStep, limit: number) => Promise<number>;

const changes = (r: D1Result) => r.meta.changes ?? 0;

const outboxBatch: Batch = async (env, step, limit) =>
  changes(
    await env.DB.prepare(
      `DELETE FROM outbox WHERE rowid IN (SELECT rowid FROM outbox WHERE created_on < ?1 ORDER BY created_on LIMIT ?2)`,
    )
      .bind(step.cutoff, limit)
      .run(),
  );

// A line goes when it is older than the cutoff and not among the resource's `keep` newest (whichever keeps more).
const logBatch: Batch = async (env, step, limit) =>
  changes(
    await env.DB.prepare(
      `DELETE FROM resource_log WHERE rowid IN (
         SELECT r.rowid FROM resource_log r WHERE r.log_time < ?1 AND r.id < (
           SELECT k.id FROM resource_log k WHERE k.resource_id = r.resource_id ORDER BY k.id DESC LIMIT 1 OFFSET ?3)
         ORDER BY r.log_time LIMIT ?2)`,
    )
      .bind(step.cutoff, limit, step.keep - 1)
      .run(),
  );

const mailBatch: Batch = async (env, step, limit) => {
  const ids = (
    await env.DB.prepare(
      `SELECT r.id FROM mail_runs r WHERE r.started_on < ?1 AND r.id < (
         SELECT k.id FROM mail_runs k WHERE k.resource_id = r.resource_id ORDER BY k.id DESC LIMIT 1 OFFSET ?3)
       ORDER BY r.started_on LIMIT ?2`,
    )
      .bind(step.cutoff, limit, step.keep - 1)
      .all<{ id: number }>()
  ).results.map((r) => r.id);
  if (!ids.length) return 0;
  const set = JSON.stringify(ids);
  // Counted and removed in one transaction: a send is in the rollup or in mail_runs, never both, never neither.
  const [, del] = await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO mail_run_days (resource_id, day, status, runs, recipients, delivered, suppressed, skipped, failed)
       SELECT resource_id, substr(started_on, 1, 10), status, count(*), sum(recipients), sum(delivered),
              sum(suppressed), sum(skipped), sum(failed)
       FROM mail_runs WHERE id IN (SELECT value FROM json_each(?1)) GROUP BY 1, 2, 3
       ON CONFLICT (resource_id, day, status) DO UPDATE SET runs = runs + excluded.runs,
         recipients = recipients + excluded.recipients, delivered = delivered + excluded.delivered,
         suppressed = suppressed + excluded.suppressed, skipped = skipped + excluded.skipped,
         failed = failed + excluded.failed`,
    ).bind(set),
    env.DB.prepare(`DELETE FROM mail_runs WHERE rowid IN (SELECT value FROM json_each(?1))`).bind(set),
  ]);
  return changes(del!);
};

/** A run of a tree past retention: its row as archived, and the id of its top-level run. */
interface TreeRow extends ArchivedRun {
  top_id: number;
}

/**
 * Archives whole trees by their top-level run's job and day (run/archive.ts), one segment per job and day; a run of
 * another job inside a tree is archived a second time, with its own subtree, under its own job and day, where that
 * job's run reads look for it.
 */
async function archiveRows(bucket: R2Bucket, rows: TreeRow[]): Promise<void> {
  const runs = new Map(rows.map(({ top_id: _, ...run }) => [run.id, run]));
  const topOf = new Map(rows.map((r) => [r.id, runs.get(r.top_id) ?? runs.get(r.id)!]));
  const children = new Map<number, ArchivedRun[]>();
  for (const r of runs.values())
    if (r.parent_id !== null) children.set(r.parent_id, [...(children.get(r.parent_id) ?? []), r]);
  const subtree = (r: ArchivedRun): ArchivedRun[] => [r, ...(children.get(r.id) ?? []).flatMap(subtree)];
  const groups = new Map<string, { jobId: number; day: string; runs: ArchivedRun[] }>();
  const add = (jobId: number, day: string, more: ArchivedRun[]) => {
    const key = `${jobId} ${day}`;
    const group = groups.get(key) ?? { jobId, day, runs: [] };
    group.runs.push(...more);
    groups.set(key, group);
  };
  for (const run of runs.values()) {
    const top = topOf.get(run.id)!;
    add(top.job_id, dayOf(top.name), [run]);
    const parent = run.parent_id === null ? undefined : runs.get(run.parent_id);
    if (run.job_id !== top.job_id && parent?.job_id !== run.job_id) add(run.job_id, dayOf(run.name), subtree(run));
  }
  for (const g of groups.values()) await archiveTrees(bucket, g.jobId, g.day, g.runs);
}

/**
 * Top-level runs past retention (final, older than the cutoff, not among their job's `keep` newest by the listing's
 * order), then their whole trees; the batch is trimmed so that trees fit what is left of the budget.
 */
const runsBatch: Batch = async (env, step, limit) => {
  const tops = (
    await env.DB.prepare(
      `SELECT r.id FROM job_runs r
       WHERE r.top = 1 AND r.started_on < ?1 AND r.status IN ${FINAL_RUN} AND (r.started_on, r.id) < (
         SELECT k.started_on, k.id FROM job_runs k WHERE k.job_id = r.job_id AND k.top = 1
         ORDER BY k.started_on DESC, k.id DESC LIMIT 1 OFFSET ?3)
       ORDER BY r.started_on LIMIT ?2`,
    )
      .bind(step.cutoff, limit, step.keep - 1)
      .all<{ id: number }>()
  ).results.map((r) => r.id);
  if (!tops.length) return 0;
  const tree = (
    await env.DB.prepare(
      `WITH RECURSIVE tree(id, top_id) AS (
         SELECT value, value FROM json_each(?1)
         UNION ALL SELECT c.id, tree.top_id FROM job_runs c JOIN tree ON c.parent_id = tree.id)
       SELECT j.*, tree.top_id, r.name AS job, r.shortname AS job_shortname
       FROM tree JOIN job_runs j ON j.id = tree.id JOIN resources r ON r.id = j.job_id`,
    )
      .bind(JSON.stringify(tops))
      .all<TreeRow>()
  ).results;
  // Whole trees only, in the order chosen, while they fit the batch (the first one always: a tree larger than a batch
  // would otherwise never go).
  const sizes = new Map<number, number>();
  for (const r of tree) sizes.set(r.top_id, (sizes.get(r.top_id) ?? 0) + 1);
  const taken = new Set<number>();
  let total = 0;
  for (const t of tops) {
    const n = sizes.get(t) ?? 1;
    if (taken.size && total + n > limit) break;
    taken.add(t);
    total += n;
  }
  const rows = tree.filter((r) => taken.has(r.top_id));
  // Their summaries to the archive before anything goes: status, stats and the listing stay readable.
  await archiveRows(env.BLOBS, rows);
  // Outputs first: a crash after this leaves rows whose output is already past its 30-day retention (410 either way).
  const keys = rows.filter((r) => (r.output_size ?? 0) > INLINE_OUTPUT).map((r) => outputKey(r.job_id, r.name));
  if (keys.length) await env.BLOBS.delete(keys);
  const topSet = JSON.stringify([...taken]);
  const children = JSON.stringify(rows.filter((r) => !r.top || !taken.has(r.id)).map((r) => r.id));
  const [, delChildren, delTops] = await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO job_run_days (job_id, day, status, runs)
       SELECT job_id, substr(started_on, 1, 10), status, count(*)
       FROM job_runs WHERE id IN (SELECT value FROM json_each(?1)) GROUP BY 1, 2, 3
       ON CONFLICT (job_id, day, status) DO UPDATE SET runs = runs + excluded.runs`,
    ).bind(topSet),
    env.DB.prepare(`DELETE FROM job_runs WHERE rowid IN (SELECT value FROM json_each(?1))`).bind(children),
    env.DB.prepare(`DELETE FROM job_runs WHERE rowid IN (SELECT value FROM json_each(?1))`).bind(topSet),
  ]);
  return changes(delChildren!) + changes(delTops!);
};

// Delivery records past retention (one still to be retried stays until it ends), then recorded events.
const webhooksBatch: Batch = async (env, step, limit) => {
  const [deliveries, events] = await env.DB.batch([
    env.DB.prepare(
      `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries
       WHERE created_on < ?1 AND next_attempt_on IS NULL ORDER BY created_on LIMIT ?2)`,
    ).bind(step.cutoff, limit),
    env.DB.prepare(
      `DELETE FROM webhook_events WHERE id IN (SELECT id FROM webhook_events
       WHERE created_on < ?1 ORDER BY created_on LIMIT ?2)`,
    ).bind(step.cutoff, limit),
  ]);
  return changes(deliveries!) + changes(events!);
};

// Idempotency-Key answers past their 24 hours (core/idempotency.ts), a claim still pending too.
const idempotencyBatch: Batch = async (env, step, limit) =>
  changes(
    await env.DB.prepare(
      `DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys
       WHERE created_on < ?1 ORDER BY created_on LIMIT ?2)`,
    )
      .bind(step.cutoff, limit)
      .run(),
  );

// Rows of what the edge keeps past its s-maxage (the answer is gone from the edge), then purge times as old.
const edgeBatch: Batch = async (env, step, limit) => {
  const [stored, purges] = await env.DB.batch([
    env.DB.prepare(
      `DELETE FROM edge_cache WHERE (owner_id, key) IN (SELECT owner_id, key FROM edge_cache
       WHERE stored_on < ?1 ORDER BY stored_on LIMIT ?2)`,
    ).bind(Date.parse(step.cutoff), limit),
    env.DB.prepare(
      `DELETE FROM edge_purges WHERE owner_id IN (SELECT owner_id FROM edge_purges
       WHERE purged_on < ?1 ORDER BY purged_on LIMIT ?2)`,
    ).bind(Date.parse(step.cutoff), limit),
  ]);
  return changes(stored!) + changes(purges!);
};

const BATCHES: Record<RetentionTable, Batch> = {
  outbox: outboxBatch,
  resource_log: logBatch,
  mail_runs: mailBatch,
  job_runs: runsBatch,
  webhook_deliveries: webhooksBatch,
  idempotency_keys: idempotencyBatch,
  edge_cache: edgeBatch,
};

export interface SweepResult {
  swept_on: string;
  removed: Removed;
  duration_ms: number;
}

/**
 * One tick: every table in plan order, batch after batch, until nothing is past retention or the budget is spent.
 * `at`: the time retention is measured from (the platform clock in scheduled()).
 */
export async function sweepRetention(env: Env, at: number, settings?: RetentionSettings): Promise<SweepResult | null> {
  const s = settings ?? retentionSettings({ ...env });
  const steps = planSweep(s, at);
  if (!steps.length) return null;
  const started = Date.now();
  const removed: Removed = {
    outbox: 0,
    resource_log: 0,
    mail_runs: 0,
    job_runs: 0,
    webhook_deliveries: 0,
    idempotency_keys: 0,
    edge_cache: 0,
    blobs: 0,
    tokens: 0,
  };
  let total = 0;
  for (const step of steps) {
    while (mayContinue(s, total, Date.now() - started)) {
      const limit = nextBatch(s, total);
      const n = await BATCHES[step.table](env, step, limit);
      removed[step.table] += n;
      total += n;
      if (n < limit) break; // the table has nothing more past retention (a trimmed runs batch ends it for this tick)
    }
  }
  // One page of the orphan walk per tick, from where the last tick left it.
  let cursor: string | null = null;
  if (Date.now() - started < s.tick_ms) {
    const from = await env.DB.prepare(`SELECT blob_cursor FROM retention_sweeps WHERE id = 1`).first<string | null>(
      'blob_cursor',
    );
    const walk = await orphanBlobs(env, from ?? null, at);
    removed.blobs = walk.deleted;
    total += walk.deleted;
    cursor = walk.cursor;
  }
  // Expired tokens of accounts that never sign in again (a sign-in deletes its own account's).
  if (Date.now() - started < s.tick_ms && mayContinue(s, total, Date.now() - started)) {
    removed.tokens = await sweepExpiredTokens(dbFor(env), env, at, nextBatch(s, total));
    total += removed.tokens;
  }
  const result = { swept_on: nowIso(), removed, duration_ms: Date.now() - started };
  await env.DB.prepare(
    `INSERT INTO retention_sweeps (id, swept_on, removed, duration_ms, blob_cursor) VALUES (1, ?1, ?2, ?3, ?4)
     ON CONFLICT (id) DO UPDATE SET swept_on = excluded.swept_on, removed = excluded.removed,
       duration_ms = excluded.duration_ms, blob_cursor = excluded.blob_cursor`,
  )
    .bind(result.swept_on, JSON.stringify(removed), result.duration_ms, cursor)
    .run();
  if (total) console.log('retention sweep removed', JSON.stringify(removed), `in ${result.duration_ms} ms`);
  return result;
}

const RETENTION_TABLES = [
  'outbox',
  'resource_log',
  'mail_runs',
  'job_runs',
  'job_run_days',
  'mail_run_days',
  'webhook_deliveries',
  'idempotency_keys',
  'edge_cache',
  'edge_purges',
];

/** What GET /v1/ops/retention answers: the settings, the last sweep, the row count of every table it bounds. */
export async function retentionStatus(env: Env) {
  const counts = await env.DB.batch(RETENTION_TABLES.map((t) => env.DB.prepare(`SELECT count(*) AS n FROM ${t}`)));
  const last = await env.DB.prepare(`SELECT swept_on, removed, duration_ms FROM retention_sweeps WHERE id = 1`).first<{
    swept_on: string;
    removed: string;
    duration_ms: number;
  }>();
  return {
    settings: retentionSettings({ ...env }),
    last_sweep: last ? { ...last, removed: JSON.parse(last.removed) as Removed } : null,
    rows: Object.fromEntries(
      RETENTION_TABLES.map((t, i) => [t, (counts[i]!.results[0] as { n: number } | undefined)?.n ?? 0]),
    ),
  };
}
