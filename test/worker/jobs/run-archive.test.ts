/**
 * The run archive (src/jobs/run/archive.ts): each batch the retention sweep archives is written
 * once, as a segment of its job and day, so a day of many runs costs linear work; a retried
 * batch changes nothing; every run is found by name and listed once.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { archivedRun, archivedTops, archiveTrees, type ArchivedRun } from '../../../src/jobs/run/archive';

let nextJob = 900_000;

/** Top-level run `i` of `jobId` on 2025-01-01 (names and start times in order of i). */
function run(jobId: number, i: number, over: Partial<ArchivedRun> = {}): ArchivedRun {
  const t = new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
  const name = `20250101-${t.slice(11, 19).replace(/:/g, '')}-run${String(i).padStart(4, '0')}`;
  return {
    id: jobId * 10_000 + i,
    name,
    shortname: `s${i}`,
    job_id: jobId,
    top: 1,
    parent_id: null,
    root_job_id: jobId,
    parent_step: null,
    status: 'success',
    trigger: 'api',
    source: 'test',
    created_by: 'u',
    started_on: t,
    completed_on: t,
    duration: 1,
    output_name: null,
    output_type: null,
    output_size: null,
    job: 'busy',
    job_shortname: 'b',
    ...over,
  } as ArchivedRun;
}

const objectsOf = async (jobId: number) =>
  (await env.BLOBS.list({ prefix: `r/${jobId}/runs-archive/`, include: ['customMetadata'] })).objects;

describe('run archive', () => {
  it('a day archived batch by batch writes each batch once and never rewrites what is archived', async () => {
    const jobId = nextJob++;
    const runs = Array.from({ length: 30 }, (_, i) => run(jobId, i));
    for (let b = 0; b < 3; b++) await archiveTrees(env.BLOBS, jobId, '2025-01-01', runs.slice(b * 10, b * 10 + 10));
    const objects = await objectsOf(jobId);
    // Three segments of ten lines each: the second and third batches did not rewrite the first.
    expect(objects).toHaveLength(3);
    for (const o of objects) {
      const text = await (await env.BLOBS.get(o.key))!.text();
      expect(text.trim().split('\n')).toHaveLength(10);
    }
    for (const r of [runs[0]!, runs[15]!, runs[29]!])
      expect((await archivedRun(env.BLOBS, jobId, r.name))?.run).toMatchObject({ id: r.id, name: r.name });
    expect(await archivedRun(env.BLOBS, jobId, '20250101-235959-nosuchrun')).toBeNull();
  });

  it('the listing pages through a day of many segments newest first, each run once', async () => {
    const jobId = nextJob++;
    const runs = Array.from({ length: 30 }, (_, i) => run(jobId, i));
    // Batches out of order of time, as a sweep of several jobs' trees may write them.
    for (const b of [1, 0, 2]) await archiveTrees(env.BLOBS, jobId, '2025-01-01', runs.slice(b * 10, b * 10 + 10));
    const listed: number[] = [];
    let before: [string, number] | null = null;
    for (;;) {
      const page = await archivedTops(env.BLOBS, jobId, before, 7);
      listed.push(...page.map((r) => r.id));
      if (page.length < 7) break;
      before = [page.at(-1)!.started_on, page.at(-1)!.id];
    }
    expect(listed).toEqual([...runs].reverse().map((r) => r.id));
  });

  it('a retried batch writes nothing new, and a run archived twice is listed once', async () => {
    const jobId = nextJob++;
    const runs = Array.from({ length: 12 }, (_, i) => run(jobId, i));
    await archiveTrees(env.BLOBS, jobId, '2025-01-01', runs.slice(0, 8));
    const first = await objectsOf(jobId);
    await archiveTrees(env.BLOBS, jobId, '2025-01-01', runs.slice(0, 8)); // the same batch again
    const again = await objectsOf(jobId);
    expect(again.map((o) => [o.key, o.etag])).toEqual(first.map((o) => [o.key, o.etag]));
    await archiveTrees(env.BLOBS, jobId, '2025-01-01', runs.slice(4)); // a retry that overlaps
    const listed = await archivedTops(env.BLOBS, jobId, null, 100);
    expect(listed.map((r) => r.id)).toEqual([...runs].reverse().map((r) => r.id));
    const page = await archivedTops(env.BLOBS, jobId, [runs[6]!.started_on, runs[6]!.id], 3);
    expect(page.map((r) => r.id)).toEqual([runs[5]!.id, runs[4]!.id, runs[3]!.id]);
  });

  it('a day object written before segments is read as a segment spanning every name', async () => {
    const jobId = nextJob++;
    const [old, kept, newer] = [run(jobId, 0), run(jobId, 1), run(jobId, 2)];
    await env.BLOBS.put(
      `r/${jobId}/runs-archive/2025-01-01.ndjson`,
      `${JSON.stringify(old)}\n${JSON.stringify(kept)}\n`,
    );
    await archiveTrees(env.BLOBS, jobId, '2025-01-01', [newer]);
    expect((await archivedRun(env.BLOBS, jobId, kept.name))?.run.id).toBe(kept.id);
    expect((await archivedTops(env.BLOBS, jobId, null, 10)).map((r) => r.id)).toEqual([newer.id, kept.id, old.id]);
  });

  it('a tree is archived whole: its children are read with it, and found by their own name', async () => {
    const jobId = nextJob++;
    const top = run(jobId, 1);
    const child = run(jobId, 2, { top: 0, parent_id: top.id });
    await archiveTrees(env.BLOBS, jobId, '2025-01-01', [run(jobId, 0)]);
    await archiveTrees(env.BLOBS, jobId, '2025-01-01', [top, child]);
    const found = await archivedRun(env.BLOBS, jobId, top.name);
    expect(found?.children.map((c) => c.id)).toEqual([child.id]);
    expect((await archivedRun(env.BLOBS, jobId, child.name))?.run.parent_id).toBe(top.id);
    expect((await archivedTops(env.BLOBS, jobId, null, 10)).map((r) => r.id)).toEqual([top.id, jobId * 10_000]);
  });
});
