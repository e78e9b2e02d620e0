/**
 * Reading the D1 rows of runs: a run by name, stats (text and JSON), the listing, and the
 * last-run summary other areas (GraphQL) read; the retention they answer 410 past (the
 * history, stats/runs: run/history.ts). The rows are written by run/writes.ts; logs live in the run's object.
 */
import { and, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import { resources } from '../../db/schema';
import type { Db } from '../../core/context';
import { archivedTops } from './archive';
import { pageOf, type KeyPart, type KeyShape, type Page, type PageRequest } from '../../core/paging';
import { jobRunDays, jobRuns, type RunRow } from '../schema';

/**
 * A job's top-level runs older than `key` ((started_on, id): the order runs are listed in,
 * newest first); no condition without a key. A row value: one range of the index.
 */
export function olderThan(key: readonly KeyPart[] | null): SQL | undefined {
  return key ? sql`(${jobRuns.started_on}, ${jobRuns.id}) < (${key[0]}, ${key[1]})` : undefined;
}

/** Log and output are kept this long; listing, stats and status stay. */
export const RETENTION_MS = 30 * 24 * 3600 * 1000;

/** Seconds between two ISO timestamps, two decimals. */
export function durationOf(started: string, completed: string): number {
  return Math.round((Date.parse(completed) - Date.parse(started)) / 10) / 100;
}

export function isExpired(row: Pick<RunRow, 'started_on'>, nowMs: number): boolean {
  return nowMs - Date.parse(row.started_on) > RETENTION_MS;
}

/**
 * The query of a run by name, as seen from job `jobId`: its top-level runs and their
 * descendants (every run's root_job_id is the job of its top-level run), and the job's own
 * child runs in other jobs' trees. Who may read which is src/jobs/run/access.ts, which
 * batches this with the job's own load.
 */
export function runQuery(db: Db, jobId: number | SQL, name: string) {
  return db
    .select()
    .from(jobRuns)
    .where(and(eq(jobRuns.name, name), or(eq(jobRuns.root_job_id, jobId), eq(jobRuns.job_id, jobId))));
}

export interface ChildStats {
  name: string;
  shortname: string;
  job: string;
  job_shortname: string;
  parent_step: string | null;
  status: string;
  started_on: string;
  completed_on: string | null;
  duration: number | null;
}

export interface RunStats {
  name: string;
  shortname: string;
  status: string;
  origin: string;
  origin_shortname: string;
  started_on: string;
  completed_on: string | null;
  duration: number | null;
  trigger: string;
  source: string;
  has_output: boolean;
  created_by: string;
  children: ChildStats[];
}

async function childrenOf(db: Db, runId: number): Promise<ChildStats[]> {
  const rows = await db
    .select({
      name: jobRuns.name,
      shortname: jobRuns.shortname,
      job: resources.name,
      job_shortname: resources.shortname,
      parent_step: jobRuns.parent_step,
      status: jobRuns.status,
      started_on: jobRuns.started_on,
      completed_on: jobRuns.completed_on,
      duration: jobRuns.duration,
    })
    .from(jobRuns)
    .innerJoin(resources, eq(resources.id, jobRuns.job_id))
    .where(eq(jobRuns.parent_id, runId))
    .orderBy(jobRuns.id);
  return rows;
}

/**
 * A run's stats; `children` given for an archived run (run/archive.ts: its children are in
 * the archive, not in D1).
 */
export async function runStats(
  db: Db,
  row: RunRow,
  job: { name: string; shortname: string },
  children?: ChildStats[],
): Promise<RunStats> {
  return {
    name: row.name,
    shortname: row.shortname,
    status: row.status,
    origin: job.name,
    origin_shortname: job.shortname,
    started_on: row.started_on,
    completed_on: row.completed_on,
    duration: row.duration,
    trigger: row.trigger,
    source: row.source,
    has_output: row.output_name !== null,
    created_by: row.created_by,
    children: children ?? (await childrenOf(db, row.id)),
  };
}

/** `key: value` lines; null reads `null`, children as JSON on one line. */
export function statsText(s: RunStats): string {
  return Object.entries(s)
    .map(
      ([k, v]) =>
        `${k}: ${v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : k === 'duration' ? (v as number).toFixed(2) : String(v)}`,
    )
    .join('\n');
}

/**
 * Newest first: by start time to the millisecond (ISO text sorts as time), equal starts by
 * creation order, the later created first. Every run listing (runs/, stats/runs, log, GraphQL's
 * last_run) uses it; the (job_id, top, started_on, id) index serves it (migrations/0010_job_runs_order.sql).
 */
const NEWEST_FIRST = [desc(jobRuns.started_on), desc(jobRuns.id)] as const;

/** How many runs `runs/` answers without `?limit` (the newest), and the shape of its cursors. */
export const RUNS_PAGE = 30;
export const RUNS_KEY: KeyShape = ['string', 'number'];

/** A page of a job's top-level runs, newest first, from the index; keyed by (started_on, id). */
export async function recentRuns(
  db: Db,
  bucket: R2Bucket,
  jobId: number,
  page: PageRequest,
): Promise<Page<{ id: number; name: string; started_on: string; completed_on: string | null }>> {
  const after = page.after;
  const [rows, archived] = await db.batch([
    db
      .select({
        id: jobRuns.id,
        name: jobRuns.name,
        started_on: jobRuns.started_on,
        completed_on: jobRuns.completed_on,
      })
      .from(jobRuns)
      .where(and(eq(jobRuns.job_id, jobId), eq(jobRuns.top, 1), olderThan(after)))
      .orderBy(...NEWEST_FIRST)
      .limit(page.limit + 1),
    // Whether retention archived runs of the job (its rollups): only then is the archive read.
    db.select({ day: jobRunDays.day }).from(jobRunDays).where(eq(jobRunDays.job_id, jobId)).limit(1),
  ]);
  const key = (r: { started_on: string; id: number }) => [r.started_on, r.id];
  if (rows.length > page.limit || !archived.length) return pageOf(rows, page, key);
  // The page is not full: the older runs are in the archive (run/archive.ts).
  const last = rows.at(-1);
  const older = await archivedTops(bucket, jobId, last ? key(last) : after, page.limit + 1 - rows.length);
  return pageOf([...rows, ...older], page, key);
}

export async function latestRun(db: Db, jobId: number): Promise<RunRow | null> {
  return (
    (await db
      .select()
      .from(jobRuns)
      .where(and(eq(jobRuns.job_id, jobId), eq(jobRuns.top, 1)))
      .orderBy(...NEWEST_FIRST)
      .limit(1)
      .get()) ?? null
  );
}

export interface LastRun {
  status: string;
  started_on: string;
  duration: number | null;
}

/** The latest top-level run (NEWEST_FIRST) of each job, in one query per 90 jobs (D1 binds at most 100 parameters). */
export async function lastRuns(db: Db, jobResourceIds: number[]): Promise<Map<number, LastRun>> {
  const out = new Map<number, LastRun>();
  for (let i = 0; i < jobResourceIds.length; i += 90) {
    const ids = jobResourceIds.slice(i, i + 90);
    // One index probe per job: its newest top-level run's id.
    const latest = ids.map(
      (id) =>
        sql`(select ${jobRuns.id} from ${jobRuns} where ${jobRuns.job_id} = ${id} and ${jobRuns.top} = 1 order by ${jobRuns.started_on} desc, ${jobRuns.id} desc limit 1)`,
    );
    if (!latest.length) continue;
    const rows = await db
      .select({
        job_id: jobRuns.job_id,
        status: jobRuns.status,
        started_on: jobRuns.started_on,
        duration: jobRuns.duration,
      })
      .from(jobRuns)
      .where(sql`${jobRuns.id} in (${sql.join(latest, sql`, `)})`);
    for (const r of rows) out.set(r.job_id, { status: r.status, started_on: r.started_on, duration: r.duration });
  }
  return out;
}
