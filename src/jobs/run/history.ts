/**
 * A job's run history (stats/runs): every top-level run, newest first (run/reads.ts's NEWEST_FIRST, on the
 * `job_runs_recent` index), then the days of runs retention rolled up (job_run_days), newest day first, so that the
 * history counts every run. Unpaged it streams whole; with `limit` or `cursor` it answers one page of the two parts
 * (core/paging.ts: partsPageRequest), one D1 round trip whatever the history's length.
 */
import { and, asc, desc, eq, gt, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../core/context';
import {
  pageOfParts,
  partsAfter,
  type KeyPart,
  type PageRequest,
  type PartShapes,
  type PartsPage,
} from '../../core/paging';
import { jobRunDays, jobRuns } from '../schema';
import { olderThan } from './reads';

export interface HistoryRow {
  name: string;
  started_on: string;
  trigger: string;
  duration: number | null;
  status: string;
}

/** Runs retention removed, counted per day and status (newest day first): the history's tail. */
export interface RolledUpDay {
  day: string;
  status: string;
  runs: number;
  rolled_up: true;
}

/** The history's parts and their keys: runs by (started_on, id), newest first; rolled-up days by (day, status). */
export const HISTORY_PARTS: PartShapes = [
  ['string', 'number'],
  ['string', 'string'],
];

export const HISTORY_HEADER = `${'run'.padEnd(38)} ${'time'.padEnd(24)} ${'trigger'.padEnd(8)} ${'duration'.padStart(9)} status\n`;

export function historyLine(r: HistoryRow): string {
  return `${r.name.padEnd(38)} ${r.started_on.padEnd(24)} ${r.trigger.padEnd(8)} ${(r.duration === null ? '-' : r.duration.toFixed(2)).padStart(9)} ${r.status}\n`;
}

/** A rolled-up day as a history line: the day in the time column, the count where a run's name stands. */
export function rolledUpLine(r: RolledUpDay): string {
  return `${`(${r.runs} ${r.runs === 1 ? 'run' : 'runs'} rolled up)`.padEnd(38)} ${r.day.padEnd(24)} ${'-'.padEnd(8)} ${'-'.padStart(9)} ${r.status}\n`;
}

/** A page as the answer's text: the header, the runs, then the rolled-up days. */
export const historyText = (runs: HistoryRow[], days: RolledUpDay[]) =>
  HISTORY_HEADER + runs.map(historyLine).join('') + days.map(rolledUpLine).join('');

/** Up to `n` of the job's top-level runs older than `before` ((started_on, id); null: from the newest), newest first. */
function runsBefore(db: Db, jobId: number, before: readonly KeyPart[] | null, n: number) {
  return db
    .select({
      id: jobRuns.id,
      name: jobRuns.name,
      started_on: jobRuns.started_on,
      trigger: jobRuns.trigger,
      duration: jobRuns.duration,
      status: jobRuns.status,
    })
    .from(jobRuns)
    .where(and(eq(jobRuns.job_id, jobId), eq(jobRuns.top, 1), olderThan(before)))
    .orderBy(desc(jobRuns.started_on), desc(jobRuns.id))
    .limit(n);
}

/** Up to `n` (default: all) rolled-up days of the job after `after` ((day, status) in their order; null: from the newest). */
function daysAfter(db: Db, jobId: number, after: readonly KeyPart[] | null, n = -1) {
  const [day, status] = after ?? [];
  return db
    .select({ day: jobRunDays.day, status: jobRunDays.status, runs: jobRunDays.runs })
    .from(jobRunDays)
    .where(
      and(
        eq(jobRunDays.job_id, jobId),
        after
          ? or(
              lt(jobRunDays.day, String(day)),
              and(eq(jobRunDays.day, String(day)), gt(jobRunDays.status, String(status))),
            )
          : undefined,
      ),
    )
    .orderBy(desc(jobRunDays.day), asc(jobRunDays.status))
    .limit(n);
}

const rolledUp = (rows: { day: string; status: string; runs: number }[]): RolledUpDay[] =>
  rows.map((r) => ({ ...r, rolled_up: true as const }));

/** One page of the history: the runs and rolled-up days after the cursor, read in one batch (one round trip). */
export async function historyPage(
  db: Db,
  jobId: number,
  page: PageRequest,
): Promise<PartsPage<HistoryRow, RolledUpDay>> {
  const from = partsAfter(page);
  const days = daysAfter(db, jobId, from.second, page.limit + 1);
  const [runs, rolled] =
    from.first === 'past'
      ? [[], await days]
      : await db.batch([runsBefore(db, jobId, from.first, page.limit + 1), days]);
  const { first, second, next } = pageOfParts(page, runs, rolledUp(rolled), [
    (r) => [r.started_on, r.id],
    (d) => [d.day, d.status],
  ]);
  return { first: first.map(({ id: _id, ...r }) => r), second, next };
}

/** Runs per round trip of the whole history: SQLite writes their lines, one string a page (~150 bytes a run in JSON). */
const STREAM_PAGE = 5000;
/** Before every run: started_on is ISO text, which sorts below '~'. */
const NEWEST: readonly KeyPart[] = ['~', 0];

/**
 * The lines of up to STREAM_PAGE runs older than `before`, newest first, written by SQLite as historyLine writes them
 * (JSON: as JSON.stringify writes a HistoryRow, up to how a number is written): one string and the last run's key, so
 * that neither D1 nor the Worker handles the runs one by one. Undefined past the oldest run.
 */
function linesBefore(db: Db, jobId: number, before: readonly KeyPart[], json: boolean) {
  const line = json
    ? sql`json_object('name', name, 'started_on', started_on, 'trigger', trigger, 'duration', duration, 'status', status)`
    : sql`printf('%-38s %-24s %-8s %9s %s', name, started_on, trigger,
        CASE WHEN duration IS NULL THEN '-' ELSE printf('%.2f', duration) END, status) || char(10)`;
  return db.get<{ text: string; n: number; started_on: string; id: number } | undefined>(sql`
    WITH page AS MATERIALIZED (SELECT id, name, started_on, trigger, duration, status FROM ${jobRuns}
      WHERE job_id = ${jobId} AND top = 1 AND (started_on, id) < (${before[0]}, ${before[1]})
      ORDER BY started_on DESC, id DESC LIMIT ${STREAM_PAGE})
    SELECT (SELECT group_concat(${line}, ${json ? ',' : ''} ORDER BY started_on DESC, id DESC) FROM page) AS text,
      (SELECT count(*) FROM page) AS n, last.started_on, last.id
    FROM (SELECT started_on, id FROM page ORDER BY started_on, id LIMIT 1) AS last`);
}

/**
 * Streams the whole history as a text table or a JSON array: the runs newest first, a page of STREAM_PAGE runs per
 * round trip (keyset), then the rolled-up days (`{ day, status, runs, rolled_up: true }`), so that it counts every
 * run and never holds it whole in memory.
 */
export function historyStream(db: Db, jobId: number, json: boolean): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let before: readonly KeyPart[] | null = NEWEST;
  let comma = '';
  return new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(enc.encode(json ? '[' : HISTORY_HEADER)),
    async pull(controller) {
      const page = before && (await linesBefore(db, jobId, before, json));
      if (page) {
        controller.enqueue(enc.encode(json ? comma + page.text : page.text));
        comma = ',';
        // A short page was the oldest: the next pull goes on to the rolled-up days.
        before = page.n < STREAM_PAGE ? null : [page.started_on, page.id];
        return;
      }
      const days = rolledUp(await daysAfter(db, jobId, null));
      const tail = days.map((d) => JSON.stringify(d)).join(',');
      controller.enqueue(enc.encode(json ? `${tail && comma}${tail}]` : days.map(rolledUpLine).join('')));
      controller.close();
    },
  });
}
