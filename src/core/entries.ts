/**
 * The text-entry store: small values in D1, values too large for a D1 row in R2
 * (under the resource's blob prefix). Values are exact strings: no trimming.
 */
import { and, eq, notInArray, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { entries, resources, type Resource } from '../db/schema';
import { nowIso } from './clock';
import type { Db } from './context';

/** Paths under a folder prefix, matched exactly (LIKE would treat `_` as a wildcard). */
const underPrefix = (prefix: string) => sql`substr(${entries.path}, 1, ${prefix.length}) = ${prefix}`;

/** Above this many bytes a value goes to R2 (a D1 row holds at most ~2 MB). */
export const INLINE_LIMIT = 256 * 1024;

const enc = new TextEncoder();

/** Every blob of a resource lives under this prefix, so deleting the resource can sweep them. */
export const blobPrefix = (resourceId: number) => `r/${resourceId}/`;
const entryBlobKey = (resourceId: number, path: string) => `${blobPrefix(resourceId)}entries/${path}`;

export interface StoredEntry {
  path: string;
  value: string | null;
  blob_key: string | null;
  size: number;
  created_on: string;
  last_modified: string;
  written_by: number | null;
  vouched: string | null;
}

/**
 * Who writes an entry: a user's id, or null for the platform itself (a run disabling its
 * job, a parse storing what it derived). Null reads as the resource's owner (writerOf).
 */
export type Writer = number | null;

/**
 * Who an entry's value lends the rights of (composition.ts): its writer, and for references
 * a writer kept unchanged from the value before (`vouched`, by the reference as the write
 * check names it), the users that value was written under.
 */
export interface Authorship {
  by: Writer;
  vouched?: Record<string, number[]> | null;
}

/** An entry's authorship as stored (entryQuery, entriesQuery, listEntriesQuery rows). */
export type StoredAuthorship = { written_by: Writer; vouched: string | null };

/** The user whose rights an entry's content lends: its writer, or the resource's owner when the platform wrote it. */
export const writerOf = (writtenBy: Writer | undefined, ownerId: number): number => writtenBy ?? ownerId;

/** The users a stored entry's reference (`as`, as the write check names it) lends the rights of. */
export function lenders(stored: StoredAuthorship | undefined, ownerId: number): (as: string) => number[] {
  const writer = writerOf(stored?.written_by, ownerId);
  let vouched: Record<string, number[]> = {};
  try {
    vouched = stored?.vouched ? (JSON.parse(stored.vouched) as Record<string, number[]>) : {};
  } catch {
    // unreadable: every reference lends the writer's rights only
  }
  return (as) => (Object.hasOwn(vouched, as) ? vouched[as]! : [writer]);
}

/** path -> authorship of entriesQuery / listEntriesQuery rows. */
export function entryAuthorship(rows: ({ path: string } & StoredAuthorship)[]): Map<string, StoredAuthorship> {
  return new Map(rows.map((r) => [r.path, { written_by: r.written_by, vouched: r.vouched }]));
}

export async function readEntry(env: Env, db: Db, resourceId: number, path: string): Promise<string | null> {
  return entryValue(env, await entryQuery(db, resourceId, path).get());
}

/** The query behind readEntry, for callers that batch it with others (db.batch). */
export function entryQuery(db: Db, resourceId: number | SQL, path: string) {
  return db
    .select({
      value: entries.value,
      blob_key: entries.blob_key,
      written_by: entries.written_by,
      vouched: entries.vouched,
    })
    .from(entries)
    .where(and(eq(entries.resource_id, resourceId), eq(entries.path, path)));
}

/** The value of an entryQuery row (fetched from R2 when kept there), null without a row. */
export async function entryValue(
  env: Env,
  row: { value: string | null; blob_key: string | null } | undefined,
): Promise<string | null> {
  if (!row) return null;
  if (row.value !== null) return row.value;
  const obj = row.blob_key ? await env.BLOBS.get(row.blob_key) : null;
  return obj ? await obj.text() : '';
}

/**
 * The query behind readEntries, for callers that batch it with others (db.batch): the entries under `prefix`, but for
 * the paths of `except` (a large entry the caller reads only when it needs it).
 */
export function entriesQuery(db: Db, resourceId: number | SQL, prefix = '', except: readonly string[] = []) {
  return db
    .select({
      path: entries.path,
      value: entries.value,
      blob_key: entries.blob_key,
      size: entries.size,
      written_by: entries.written_by,
      vouched: entries.vouched,
    })
    .from(entries)
    .where(
      and(
        eq(entries.resource_id, resourceId),
        prefix ? underPrefix(prefix) : undefined,
        except.length ? notInArray(entries.path, [...except]) : undefined,
      ),
    );
}

/** The rows of entriesQuery as path -> value, fetching values kept in R2. */
export async function entryValues(
  env: Env,
  rows: { path: string; value: string | null; blob_key: string | null }[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await Promise.all(
    rows.map(async (r) => {
      if (r.value !== null) out.set(r.path, r.value);
      else {
        const obj = r.blob_key ? await env.BLOBS.get(r.blob_key) : null;
        out.set(r.path, obj ? await obj.text() : '');
      }
    }),
  );
  return out;
}

/** Reads several entries in one query (values in R2 are fetched as needed). */
export async function readEntries(env: Env, db: Db, resourceId: number, prefix = ''): Promise<Map<string, string>> {
  return entryValues(env, await entriesQuery(db, resourceId, prefix));
}

export async function listEntries(db: Db, resourceId: number): Promise<StoredEntry[]> {
  return listEntriesQuery(db, resourceId);
}

/** The query behind listEntries, for callers that batch it with others (db.batch). */
export function listEntriesQuery(db: Db, resourceId: number | SQL) {
  return db
    .select({
      path: entries.path,
      value: entries.value,
      blob_key: entries.blob_key,
      size: entries.size,
      created_on: entries.created_on,
      last_modified: entries.last_modified,
      written_by: entries.written_by,
      vouched: entries.vouched,
    })
    .from(entries)
    .where(eq(entries.resource_id, resourceId));
}

/** How an entry's value is stored: inline, or (over INLINE_LIMIT) in R2 under its blob key, put here. */
async function storedValue(
  env: Env,
  resourceId: number,
  path: string,
  value: string,
): Promise<{ value: string | null; blob_key: string | null; size: number }> {
  const size = enc.encode(value).byteLength;
  if (size <= INLINE_LIMIT) return { value, blob_key: null, size };
  const blobKey = entryBlobKey(resourceId, path);
  await env.BLOBS.put(blobKey, value, { httpMetadata: { contentType: 'text/plain; charset=utf-8' } });
  return { value: null, blob_key: blobKey, size };
}

/**
 * The upsert of one entry for a caller's own batch (a large value is put in R2 first);
 * `after` removes a blob the value no longer uses, once the batch has run; `now` is the time it was written.
 * `by` is recorded as its writer: what the value names is later read with that user's rights too.
 */
export async function entryUpsert(
  env: Env,
  db: Db,
  resourceId: number,
  path: string,
  value: string,
  by: Writer | Authorship,
): Promise<{ statement: BatchItem<'sqlite'>; after: () => Promise<void>; now: string }> {
  const author = typeof by === 'object' && by !== null ? by : { by };
  const written = {
    written_by: author.by,
    vouched: author.vouched && Object.keys(author.vouched).length ? JSON.stringify(author.vouched) : null,
  };
  const now = nowIso();
  const { value: inline, blob_key: blobKey, size } = await storedValue(env, resourceId, path, value);
  const statement = db
    .insert(entries)
    .values({
      resource_id: resourceId,
      path,
      value: inline,
      blob_key: blobKey,
      size,
      created_on: now,
      last_modified: now,
      ...written,
    })
    .onConflictDoUpdate({
      target: [entries.resource_id, entries.path],
      set: { value: inline, blob_key: blobKey, size, last_modified: now, ...written },
    });
  const after = async () => {
    if (blobKey === null) await env.BLOBS.delete(entryBlobKey(resourceId, path)).catch(() => undefined);
  };
  return { statement, after, now };
}

/**
 * Writes one entry and touches the resource's last_modified, atomically in one batch (with `also`, e.g. its log line
 * and its event, whose statements come last); answers the batch's results.
 */
export async function writeEntry(
  env: Env,
  db: Db,
  resource: Resource,
  path: string,
  value: string,
  by: Writer | Authorship,
  also: BatchItem<'sqlite'>[] = [],
): Promise<unknown[]> {
  // The resource's last_modified is the entry's.
  const { statement, after, now } = await entryUpsert(env, db, resource.id, path, value, by);
  const results = await db.batch([
    statement,
    db.update(resources).set({ last_modified: now }).where(eq(resources.id, resource.id)),
    ...also,
  ]);
  await after();
  return results;
}

/** Clears an entry (it reads as its default again); `also` joins the batch (e.g. its log line); answers its results. */
export async function clearEntry(
  env: Env,
  db: Db,
  resource: Resource,
  path: string,
  also: BatchItem<'sqlite'>[] = [],
): Promise<unknown[]> {
  const now = nowIso();
  const results = await db.batch([
    db.delete(entries).where(and(eq(entries.resource_id, resource.id), eq(entries.path, path))),
    db.update(resources).set({ last_modified: now }).where(eq(resources.id, resource.id)),
    ...also,
  ]);
  await env.BLOBS.delete(entryBlobKey(resource.id, path)).catch(() => undefined);
  return results;
}

/** Deletes every entry under a folder prefix (e.g. `vars/x/`). */
export async function clearEntries(env: Env, db: Db, resource: Resource, prefix: string): Promise<void> {
  const rows = await db
    .select({ path: entries.path, blob_key: entries.blob_key })
    .from(entries)
    .where(and(eq(entries.resource_id, resource.id), underPrefix(prefix)));
  await db.delete(entries).where(and(eq(entries.resource_id, resource.id), underPrefix(prefix)));
  const keys = rows.map((r) => r.blob_key).filter((k): k is string => !!k);
  if (keys.length) await env.BLOBS.delete(keys);
}

/** D1 binds at most 100 parameters per statement: rows of `columns` values, in inserts that fit. */
export function d1Chunks<T>(rows: T[], columns: number): T[][] {
  const per = Math.floor(100 / columns);
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += per) out.push(rows.slice(i, i + per));
  return out;
}

/**
 * The inserts copying `rows` (a resource's stored entries, listEntries) to `to`, for the
 * caller's own batch; blobs are copied in R2 first. `derived` replaces or adds entries of
 * the copy computed from the copied values (path → value). Each copied entry keeps its
 * writer (one the platform wrote: the original's owner, `fromOwnerId`), so a copy lends no
 * more than the original did.
 */
export async function copyEntryStatements(
  env: Env,
  db: Db,
  rows: StoredEntry[],
  fromOwnerId: number,
  to: Resource,
  exclude: (path: string) => boolean = () => false,
  derived?: (values: Map<string, string>) => Record<string, string>,
): Promise<BatchItem<'sqlite'>[]> {
  const kept = rows.filter((r) => !exclude(r.path));
  const now = nowIso();
  const computed = derived ? derived(await entryValues(env, kept)) : {};
  const copies = [];
  for (const r of kept) {
    if (r.path in computed) continue;
    let blobKey: string | null = null;
    if (r.blob_key) {
      const obj = await env.BLOBS.get(r.blob_key);
      blobKey = entryBlobKey(to.id, r.path);
      await env.BLOBS.put(blobKey, obj ? obj.body : '', { httpMetadata: { contentType: 'text/plain; charset=utf-8' } });
    }
    copies.push({
      resource_id: to.id,
      path: r.path,
      value: r.value,
      blob_key: blobKey,
      size: r.size,
      created_on: now,
      last_modified: now,
      written_by: writerOf(r.written_by, fromOwnerId),
      vouched: r.vouched,
    });
  }
  for (const [path, value] of Object.entries(computed))
    copies.push({
      resource_id: to.id,
      path,
      ...(await storedValue(env, to.id, path, value)),
      created_on: now,
      last_modified: now,
      written_by: null,
      vouched: null,
    });
  return d1Chunks(copies, 9).map((c) => db.insert(entries).values(c));
}

/** Every page of an R2 listing, each listed after the previous one was used (so it may delete what it got). */
export async function* listPages(bucket: R2Bucket, options: R2ListOptions): AsyncGenerator<R2Objects> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ ...options, ...(cursor ? { cursor } : {}) });
    yield page;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}

/** Removes every blob stored under a resource (called when the resource is deleted). */
export async function deleteBlobs(env: Env, resourceId: number): Promise<void> {
  for await (const page of listPages(env.BLOBS, { prefix: blobPrefix(resourceId) }))
    if (page.objects.length) await env.BLOBS.delete(page.objects.map((o) => o.key));
}
