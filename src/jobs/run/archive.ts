/**
 * Run history past retention: the retention sweep moves the rows of runs it removes from D1
 * into R2, one object per job and day (`r/<job id>/runs-archive/<YYYY-MM-DD>.ndjson`, the day of
 * the run's name: under the job's prefix, so the job's deletion and the orphan walk take it too), so that a run's status, stats and folder stay readable (the log and the
 * output answer 410 as before) while D1 holds only recent runs. Whole trees are archived
 * under their top-level run's job and day; a run of another job in a tree (a chain step)
 * also under its own job and day, with its subtree. One line per run, sorted by name: a run is found
 * by one R2 read and a string search, without parsing the day's other runs.
 */
import { blobPrefix } from '../../core/entries';
import type { RunRow } from '../schema';

/** A run as archived: its row, and its job's name and shortname (what its parent's stats name). */
export interface ArchivedRun extends RunRow {
  job: string;
  job_shortname: string;
}

const prefixOf = (jobId: number) => `${blobPrefix(jobId)}runs-archive/`;

/** The day a run's name carries (`<YYYYMMDD>-…`: its start, UTC). */
export const dayOf = (name: string) => `${name.slice(0, 4)}-${name.slice(4, 6)}-${name.slice(6, 8)}`;

const archiveKey = (jobId: number, day: string) => `${prefixOf(jobId)}${day}.ndjson`;

/** The day objects of a job's archive, oldest first (a job keeps a few hundred days: one list page each). */
async function archivedDays(bucket: R2Bucket, jobId: number): Promise<string[]> {
  const days: string[] = [];
  let cursor: string | undefined;
  do {
    const prefix = prefixOf(jobId);
    const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) days.push(o.key.slice(prefix.length, -'.ndjson'.length));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return days;
}

/** The lines of a day object as runs (a listing reads a whole day). */
const parseDay = (text: string): ArchivedRun[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ArchivedRun);

/**
 * Adds `runs` (whole trees, grouped by the day of their top-level run) to the archive of
 * `jobId`. Each day object is rewritten only if nobody else wrote it meanwhile (a conditional
 * put): on a conflict this throws, the sweep's deletes do not run, and the next tick
 * archives the same runs again (lines are unique by run id: a retry never duplicates).
 */
export async function archiveTrees(bucket: R2Bucket, jobId: number, day: string, runs: ArchivedRun[]): Promise<void> {
  const key = archiveKey(jobId, day);
  const existing = await bucket.get(key);
  const byId = new Map<number, ArchivedRun>();
  for (const r of existing ? parseDay(await existing.text()) : []) byId.set(r.id, r);
  for (const r of runs) byId.set(r.id, r);
  const lines = [...byId.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((r) => JSON.stringify(r));
  const put = await bucket.put(key, `${lines.join('\n')}\n`, {
    httpMetadata: { contentType: 'application/x-ndjson' },
    onlyIf: existing ? { etagMatches: existing.etag } : { etagDoesNotMatch: '*' },
  });
  if (put === null) throw new Error(`run archive ${key} changed while the sweep wrote it`);
}

/**
 * The archived run `name` of `jobId`'s trees (a top-level run of the job or a child of one of
 * them), with its children; null when the archive does not hold it.
 */
export async function archivedRun(
  bucket: R2Bucket,
  jobId: number,
  name: string,
): Promise<{ run: ArchivedRun; children: ArchivedRun[] } | null> {
  const obj = await bucket.get(archiveKey(jobId, dayOf(name)));
  if (!obj) return null;
  const text = await obj.text();
  const at = text.indexOf(`"name":${JSON.stringify(name)},`);
  if (at < 0) return null;
  const start = text.lastIndexOf('\n', at) + 1;
  const run = JSON.parse(text.slice(start, text.indexOf('\n', at))) as ArchivedRun;
  // A tree is archived whole, in its top-level run's day: the children are in this object.
  const children = text.includes(`"parent_id":${run.id},`) ? parseDay(text).filter((r) => r.parent_id === run.id) : [];
  return { run, children };
}

/**
 * Up to `n` archived top-level runs of `jobId` older than `before` ((started_on, id), the
 * listing's order; null: the newest), newest first: the runs listing past what D1 holds.
 */
export async function archivedTops(
  bucket: R2Bucket,
  jobId: number,
  before: readonly (string | number)[] | null,
  n: number,
): Promise<ArchivedRun[]> {
  const older = (r: ArchivedRun) =>
    !before || r.started_on < String(before[0]) || (r.started_on === before[0] && r.id < Number(before[1]));
  // A day object holds the runs named that day; a run starts the day it is named (or the next, past
  // midnight): no day after `before`'s holds an older run, and one day past the n found settles the order.
  const lastDay = before ? String(before[0]).slice(0, 10) : null;
  const found: ArchivedRun[] = [];
  let spare = false;
  for (const day of (await archivedDays(bucket, jobId)).reverse()) {
    if (lastDay && day > lastDay) continue;
    if (found.length >= n) {
      if (spare) break;
      spare = true;
    }
    const obj = await bucket.get(archiveKey(jobId, day));
    if (obj) found.push(...parseDay(await obj.text()).filter((r) => r.top === 1 && r.job_id === jobId && older(r)));
  }
  return found
    .sort((a, b) => (a.started_on === b.started_on ? b.id - a.id : a.started_on < b.started_on ? 1 : -1))
    .slice(0, n);
}
