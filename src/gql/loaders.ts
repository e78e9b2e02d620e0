/**
 * Batched reads. A listing reads its page with the entries, sharing rows and tags of each
 * item in one statement (src/gql/item-lists.ts); fields that need more (the caller's roles,
 * group options, a job's last run) ask a per-request DataLoader, which collects the keys
 * of one execution tick and answers them with one query. Ids travel as one JSON parameter
 * (`json_each`): D1 binds at most 100 per statement.
 */
import DataLoader from 'dataloader';
import { and, asc, eq, like, or } from 'drizzle-orm';
import type { Db } from '../core/context';
import { readableThroughShare } from '../core/resource';
import { groups, members, resources, users, type ResourceKindName, type Role, type User } from '../db/schema';
import { groupEntries } from '../groups/schema';
import { readableSharedWith } from '../groups/shared-items';
import { optionsOf, shapeGroups, type GqlGroup } from './groups';
import { itemRows, selectItems, shapeItems, type Item, type Want } from './item-lists';
import { jobStatsLoader } from './job-stats';
import { lastRunLoader } from './last-run';
import { mailSendsLoader } from './mail-sends';
import { PERSON_COLUMNS, type PersonRow } from './people';
import { topicsOf } from './topics';
import { inJson } from './values';

/** Entry paths an item nested in a user or group may show (all item fields). */
const ALL_PATHS = ['name', 'config/type', 'summary', 'config/schedule', 'config/enabled', 'config/chains'];
const FULL: Want = { paths: ALL_PATHS, shares: true, tags: true, vars: true };

/** Rows grouped under the keys each belongs to (in the order of `keys`). */
function byKey<K, V>(keys: readonly K[], rows: V[], keyOf: (v: V) => K[]): V[][] {
  const out = new Map<K, V[]>(keys.map((k) => [k, []]));
  for (const r of rows) for (const k of keyOf(r)) out.get(k)?.push(r);
  return keys.map((k) => out.get(k)!);
}

export function makeLoaders(db: Db, caller: User | null, env: Env) {
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

  const ctx = { db, caller };
  const uid = caller?.id ?? -1;

  /** Accounts by username (rosters, mentions). */
  const userByName = new DataLoader(async (names: readonly string[]) => {
    const rows = await db.select(PERSON_COLUMNS).from(users).where(inJson(users.username, names));
    const m = new Map(rows.map((r) => [r.username, r as PersonRow]));
    return names.map((n) => m.get(n) ?? null);
  });

  /** Every `options/<name>` entry set to yes, by group id (mail_verify_* included). */
  const groupFlags = new DataLoader(async (ids: readonly number[]) => {
    const rows = await db
      .select({ id: groupEntries.group_id, path: groupEntries.path })
      .from(groupEntries)
      .where(
        and(inJson(groupEntries.group_id, ids), like(groupEntries.path, 'options/%'), eq(groupEntries.value, 'yes')),
      );
    return byKey(ids, rows, (r) => [r.id]).map((rs) => new Set(rs.map((r) => r.path.slice('options/'.length))));
  });

  // Items of a kind by owner, and by the group they are shared with (in both, what the
  // caller may read: own, or through a share): one statement per kind and execution tick.
  const perKind = <V>(make: (kind: ResourceKindName) => DataLoader<number, V>) => {
    const made = new Map<ResourceKindName, DataLoader<number, V>>();
    return (kind: ResourceKindName) => made.get(kind) ?? made.set(kind, make(kind)).get(kind)!;
  };
  const itemsOfOwner = perKind(
    (kind) =>
      new DataLoader(async (ownerIds: readonly number[]) => {
        const where = and(
          inJson(resources.owner_id, ownerIds),
          eq(resources.kind, kind),
          or(eq(resources.owner_id, uid), readableThroughShare(uid)),
        )!;
        const items = await shapeItems(
          env,
          await itemRows(ctx, selectItems(ctx, FULL, where).orderBy(asc(resources.name))),
        );
        return byKey(ownerIds, items, (i) => [i.row.owner_id]);
      }),
  );
  const itemsOfGroup = perKind(
    (kind) =>
      new DataLoader(async (groupIds: readonly number[]) => {
        // Only what the caller can read (REST's GET /v1/o/<group ref>/<kind>, the same condition).
        const where = readableSharedWith(kind, groupIds, uid);
        const items = await shapeItems(
          env,
          await itemRows(ctx, selectItems(ctx, FULL, where).orderBy(asc(resources.name))),
        );
        return byKey(groupIds, items, (i: Item) => [
          ...new Set(
            i.shares
              .filter((s) => s.live)
              .map((s) => s.group_id)
              .filter((g): g is number => g !== null),
          ),
        ]);
      }),
  );

  const topicsOfResource = new DataLoader((ids: readonly number[]) => topicsOf(db, 'resource_id', ids));
  const topicsOfGroup = new DataLoader((ids: readonly number[]) => topicsOf(db, 'group_id', ids));

  /** The groups of organisations the caller may see (shaped by the groups area's rules). */
  const groupsOfOrg = new DataLoader(async (orgIds: readonly number[]): Promise<GqlGroup[][]> => {
    const rows = await db
      .select()
      .from(groups)
      .where(and(eq(groups.kind, 'org_group'), inJson(groups.parent_id, orgIds)))
      .orderBy(asc(groups.ref));
    const shaped = (await shapeGroups(env, db, caller, rows)).map((g) => ({ ...g, inOrg: true }));
    return byKey(orgIds, shaped, (g) => [g.group.parent_id!]);
  });

  return {
    rolesOfCaller,
    options,
    lastRun: lastRunLoader(db),
    jobStats: jobStatsLoader(db),
    userByName,
    groupFlags,
    itemsOfOwner,
    itemsOfGroup,
    topicsOfResource,
    topicsOfGroup,
    groupsOfOrg,
    sendsOfMail: mailSendsLoader(db),
  };
}

export type Loaders = ReturnType<typeof makeLoaders>;
