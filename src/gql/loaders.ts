/**
 * Per-request loaders: every field that needs the database asks a DataLoader, which
 * collects the keys of one execution tick and answers them with one query. A listing of
 * N items with shares, tags and entries is therefore a fixed number of D1 queries
 * whatever N is. Ids travel as one JSON parameter (`json_each`), because D1 binds at most
 * 100 parameters per statement.
 */
import DataLoader from 'dataloader';
import { and, asc, eq } from 'drizzle-orm';
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

function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
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

export function makeLoaders(env: Env, db: Db, caller: User | null) {
  const entry = new DataLoader<EntryKey, string | null, string>(
    async (keys) => {
      const ids = [...new Set(keys.map((k) => k.id))];
      const paths = [...new Set(keys.map((k) => k.path))];
      const rows = await db
        .select({ id: entries.resource_id, path: entries.path, value: entries.value, blob_key: entries.blob_key })
        .from(entries)
        .where(and(inJson(entries.resource_id, ids), inJson(entries.path, paths)));
      const found = new Map<string, string>();
      await Promise.all(
        rows.map(async (r) => {
          let value = r.value;
          if (value === null) {
            // Values too large for a D1 row live in R2 (src/core/entries.ts).
            const obj = r.blob_key ? await env.BLOBS.get(r.blob_key) : null;
            value = obj ? await obj.text() : '';
          }
          found.set(`${r.id}/${r.path}`, value);
        }),
      );
      return keys.map((k) => found.get(`${k.id}/${k.path}`) ?? null);
    },
    { cacheKeyFn: (k) => `${k.id}/${k.path}` },
  );

  const sharesOf = listLoader<ShareRow>(
    (ids) =>
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
        .where(inJson(shares.resource_id, ids))
        .orderBy(asc(shares.entry)),
    (r) => r.resource_id,
  );

  // Tags are the caller's own: an anonymous caller has none (no query).
  const tagsOf = caller
    ? listLoader(
        (ids) =>
          db
            .select({ id: tags.resource_id, tag: tags.tag })
            .from(tags)
            .where(and(eq(tags.user_id, caller.id), inJson(tags.resource_id, ids)))
            .orderBy(asc(tags.tag)),
        (r) => r.id,
      )
    : new DataLoader<number, { id: number; tag: string }[]>(async (ids) => ids.map(() => []));

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
