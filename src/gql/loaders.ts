/**
 * Batched reads. A listing fetches its page and the entries, sharing rows and tags of the
 * page with the queries below in one D1 batch (src/gql/items.ts); fields that need more
 * (the caller's roles, group options, a job's last run) ask a per-request DataLoader,
 * which collects the keys of one execution tick and answers them with one query. Ids
 * travel as one JSON parameter (`json_each`): D1 binds at most 100 per statement.
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

export function makeLoaders(db: Db, caller: User | null) {
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

  return { rolesOfCaller, options, lastRun: lastRunLoader(db) };
}

export type Loaders = ReturnType<typeof makeLoaders>;
