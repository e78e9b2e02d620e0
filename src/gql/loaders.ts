/**
 * Per-request loaders: every field that needs the database asks a DataLoader, which
 * collects the keys of one execution tick and answers them with one query (a listing
 * primes them with what it fetched in its own batch, src/gql/items.ts). A listing of
 * N items with shares, tags and entries is therefore a fixed number of D1 queries
 * whatever N is. Ids travel as one JSON parameter (`json_each`), because D1 binds at most
 * 100 parameters per statement.
 */
import DataLoader from 'dataloader';
import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../core/context';
import { entries, groups, members, shares, tags, type Group, type Role, type User } from '../db/schema';
import { optionsOf } from './groups';
import { lastRunLoader } from './jobs';
import { inJson } from './values';


export interface ShareRow {
  resource_id: number;
  entry: string;
  group_id: number | null;
  perms: string;
  ref: string | null;
  slug: string | null;
  kind: Group['kind'] | null;
}

/** Key of one text entry of one resource. */
export interface EntryKey {
  id: number;
  path: string;
}

export function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** A DataLoader from ids to the rows a batch query returns for them, grouped by id. */
export function listLoader<T>(fetch: (ids: readonly number[]) => Promise<T[]>, idOf: (row: T) => number): DataLoader<number, T[]> {
  return new DataLoader(async (ids) => {
    const byId = groupBy(await fetch(ids), idOf);
    return ids.map((id) => byId.get(id) ?? []);
  });
}

/** Entry rows of the resources matching `ids` (an SQL condition on entries.resource_id) at `paths`. */
export const entriesQuery = (db: Db, ids: SQL, paths: readonly string[]) =>
  db
    .select({ id: entries.resource_id, path: entries.path, value: entries.value, blob_key: entries.blob_key })
    .from(entries)
    .where(and(ids, inJson(entries.path, paths)));

/** Sharing rows (with the group's ref, slug and kind) of the resources matching `ids`. */
export const sharesQuery = (db: Db, ids: SQL) =>
  db
    .select({
      resource_id: shares.resource_id,
      entry: shares.entry,
      group_id: shares.group_id,
      perms: shares.perms,
      ref: groups.ref,
      slug: groups.slug,
      kind: groups.kind,
    })
    .from(shares)
    .leftJoin(groups, eq(groups.id, shares.group_id))
    .where(ids)
    .orderBy(asc(shares.entry));

/** The caller's tags on the resources matching `ids`. */
export const tagsQuery = (db: Db, userId: number, ids: SQL) =>
  db
    .select({ id: tags.resource_id, tag: tags.tag })
    .from(tags)
    .where(and(eq(tags.user_id, userId), ids))
    .orderBy(asc(tags.tag));

export type EntryRow = Awaited<ReturnType<typeof entriesQuery>>[number];
export type TagRow = Awaited<ReturnType<typeof tagsQuery>>[number];

/** Entry values by `id/path`; values too large for a D1 row live in R2 (src/core/entries.ts). */
export async function entryValues(env: Env, rows: EntryRow[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  await Promise.all(
    rows.map(async (r) => {
      let value = r.value;
      if (value === null) {
        const obj = r.blob_key ? await env.BLOBS.get(r.blob_key) : null;
        value = obj ? await obj.text() : '';
      }
      found.set(`${r.id}/${r.path}`, value);
    }),
  );
  return found;
}

export function makeLoaders(env: Env, db: Db, caller: User | null) {
  const entry = new DataLoader<EntryKey, string | null, string>(
    async (keys) => {
      const ids = [...new Set(keys.map((k) => k.id))];
      const paths = [...new Set(keys.map((k) => k.path))];
      const found = await entryValues(env, await entriesQuery(db, inJson(entries.resource_id, ids), paths));
      return keys.map((k) => found.get(`${k.id}/${k.path}`) ?? null);
    },
    { cacheKeyFn: (k) => `${k.id}/${k.path}` },
  );

  const sharesOf = listLoader<ShareRow>((ids) => sharesQuery(db, inJson(shares.resource_id, ids)), (r) => r.resource_id);

  // Tags are the caller's own: an anonymous caller has none (no query).
  const tagsOf = caller
    ? listLoader<TagRow>((ids) => tagsQuery(db, caller.id, inJson(tags.resource_id, ids)), (r) => r.id)
    : new DataLoader<number, TagRow[]>(async (ids) => ids.map(() => []));

  // The caller's active roles by group id (one query, only when a field needs them).
  let roles: Promise<Map<number, Role>> | undefined;
  const rolesOfCaller = (): Promise<Map<number, Role>> =>
    (roles ??= caller
      ? db
          .select({ group_id: members.group_id, role: members.role })
          .from(members)
          .where(and(eq(members.user_id, caller.id), eq(members.state, 'active')))
          .then((rows) => new Map(rows.map((r) => [r.group_id, r.role])))
      : Promise.resolve(new Map()));

  const options = new DataLoader((ids: readonly number[]) => optionsOf(db, ids));

  return { entry, sharesOf, tagsOf, rolesOfCaller, options, lastRun: lastRunLoader(db) };
}

export type Loaders = ReturnType<typeof makeLoaders>;
