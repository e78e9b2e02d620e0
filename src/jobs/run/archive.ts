/**
 * Run history past retention: the retention sweep moves the rows of runs it removes from D1
 * into R2, so that a run's status, stats and folder stay readable (the log and the output
 * answer 410 as before) while D1 holds only recent runs. Each batch the sweep archives is
 * written once, as a segment of its job and day (`r/<job id>/runs-archive/<YYYY-MM-DD>/<hash>.ndjson`,
 * the day of the top-level run's name; under the job's prefix, so the job's deletion and the
 * orphan walk take it too): archiving never reads or rewrites what is archived already, so a
 * busy job's day costs the sweep linear work however many runs it holds. Whole trees are
 * archived under their top-level run's job and day; a run of another job in a tree (a chain
 * step) also under its own job and day, with its subtree. One line per run, sorted by name;
 * a segment's first and last names are its custom metadata, so a run is found by one list of
 * its day and one read of the segment that spans its name, with a string search.
 */
import { sha256Hex } from '../../core/crypto';
import { blobPrefix, listPages } from '../../core/entries';
import type { RunRow } from '../schema';

/** A run as archived: its row, and its job's name and shortname (what its parent's stats name). */
export interface ArchivedRun extends RunRow {
  job: string;
  job_shortname: string;
}

const prefixOf = (jobId: number) => `${blobPrefix(jobId)}runs-archive/`;

/** The day a run's name carries (`<YYYYMMDD>-…`: its start, UTC). */
export const dayOf = (name: string) => `${name.slice(0, 4)}-${name.slice(4, 6)}-${name.slice(6, 8)}`;

/** A segment of a day: its key and the names of its first and last runs. */
interface Segment {
  key: string;
  first: string;
  last: string;
}

/**
 * The segments of a job's day, in key order. A `<day>.ndjson` object (the one object per day
 * that archives written before segments are) spans every name.
 */
async function segmentsOf(bucket: R2Bucket, jobId: number, day: string): Promise<Segment[]> {
  const prefix = `${prefixOf(jobId)}${day}`;
  const out: Segment[] = [];
  for await (const page of listPages(bucket, { prefix, include: ['customMetadata'] }))
    for (const o of page.objects) {
      const m = o.customMetadata ?? {};
      if (o.key === `${prefix}.ndjson`) out.push({ key: o.key, first: '', last: '\uffff' });
      else if (o.key.startsWith(`${prefix}/`) && m.first && m.last)
        out.push({ key: o.key, first: m.first, last: m.last });
    }
  return out;
}

/** The days a job's archive holds, oldest first (one list page per thousand days). */
async function archivedDays(bucket: R2Bucket, jobId: number): Promise<string[]> {
  const prefix = prefixOf(jobId);
  const days = new Set<string>();
  for await (const page of listPages(bucket, { prefix, delimiter: '/' })) {
    for (const p of page.delimitedPrefixes) days.add(p.slice(prefix.length, -1));
    for (const o of page.objects)
      if (o.key.endsWith('.ndjson')) days.add(o.key.slice(prefix.length, -'.ndjson'.length));
  }
  return [...days].sort();
}

/** The lines of a segment as runs. */
const parseRuns = (text: string): ArchivedRun[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ArchivedRun);

/**
 * Adds `runs` (whole trees, of one top-level day) to the archive of `jobId` as a segment of
 * their own, named by the hash of its content and written only if absent: a tick that archived
 * the batch but did not delete its rows archives the same batch again on the next tick, and
 * that write changes nothing. A retry of a different batch may repeat a run in two segments;
 * readers take each run once.
 */
export async function archiveTrees(bucket: R2Bucket, jobId: number, day: string, runs: ArchivedRun[]): Promise<void> {
  const sorted = [...new Map(runs.map((r) => [r.id, r])).values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  if (!sorted.length) return;
  const body = `${sorted.map((r) => JSON.stringify(r)).join('\n')}\n`;
  await bucket.put(`${prefixOf(jobId)}${day}/${(await sha256Hex(body)).slice(0, 32)}.ndjson`, body, {
    httpMetadata: { contentType: 'application/x-ndjson' },
    customMetadata: { first: sorted[0]!.name, last: sorted.at(-1)!.name },
    onlyIf: { etagDoesNotMatch: '*' },
  });
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
  for (const s of await segmentsOf(bucket, jobId, dayOf(name))) {
    if (name < s.first || name > s.last) continue;
    const obj = await bucket.get(s.key);
    if (!obj) continue;
    const text = await obj.text();
    const at = text.indexOf(`"name":${JSON.stringify(name)},`);
    if (at < 0) continue;
    const start = text.lastIndexOf('\n', at) + 1;
    const run = JSON.parse(text.slice(start, text.indexOf('\n', at))) as ArchivedRun;
    // A tree is archived whole, in one segment of its top-level run's day: the children are in this one.
    const children = text.includes(`"parent_id":${run.id},`)
      ? parseRuns(text).filter((r) => r.parent_id === run.id)
      : [];
    return { run, children };
  }
  return null;
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
  // A day holds the runs named that day; a run starts the day it is named (or the next, past
  // midnight): no day after `before`'s holds an older run, and one day past the n found settles the order.
  const lastDay = before ? String(before[0]).slice(0, 10) : null;
  const newestFirst = (a: ArchivedRun, b: ArchivedRun) =>
    a.started_on === b.started_on ? b.id - a.id : a.started_on < b.started_on ? 1 : -1;
  // The newest n found so far, by id (a retried batch may repeat a run in two segments): a busy
  // day is read a segment at a time, and no more than one segment and the page are held.
  const found = new Map<number, ArchivedRun>();
  const take = (runs: ArchivedRun[]) => {
    for (const r of runs) if (r.top === 1 && r.job_id === jobId && older(r)) found.set(r.id, r);
    if (found.size <= n) return;
    const newest = [...found.values()].sort(newestFirst).slice(0, n);
    found.clear();
    for (const r of newest) found.set(r.id, r);
  };
  let spare = false;
  for (const day of (await archivedDays(bucket, jobId)).reverse()) {
    if (lastDay && day > lastDay) continue;
    if (found.size >= n) {
      if (spare) break;
      spare = true;
    }
    for (const s of await segmentsOf(bucket, jobId, day)) {
      const obj = await bucket.get(s.key);
      if (obj) take(parseRuns(await obj.text()));
    }
  }
  return [...found.values()].sort(newestFirst).slice(0, n);
}
