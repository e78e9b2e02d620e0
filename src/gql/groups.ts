/**
 * Groups in the GraphQL API. Which groups a caller sees, and what of them (profile,
 * description, roster, inbound address), is decided by the groups area's own rules
 * (src/groups/visibility.ts), the same ones REST uses; this module only finds the
 * candidate groups for a query and shapes the answer.
 */
import { and, asc, eq, like, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../core/context';
import { groups, members, type Group, type User } from '../db/schema';
import { groupEntries } from '../groups/schema';
import { groupInfos, type GroupInfo } from '../groups/group-info';
import { viewsOf } from '../groups/visibility';
import { inJson } from './values';
import { COMMON_OPTIONS } from '../groups/model';

type GroupType = Group['kind'];

export interface GroupFilter {
  id?: string | null;
  name?: string | null;
  type?: GroupType | null;
  parent_group?: string | null;
}

/** A group as GraphQL resolves it: the group info object plus the row it came from. */
export interface GqlGroup {
  group: Group;
  info: GroupInfo;
  /** Whether the caller may see the profile (and so the options). */
  profile: boolean;
  /** Whether the caller is inside (member or org oversight): shared items and threads. */
  insider: boolean;
  /**
   * Listed among an organisation's `groups`: its `id` is then its own name (the client picks it by the -G argument).
   */
  inOrg?: boolean;
}

/** Shapes visible groups (in order) for GraphQL; invisible ones are left out. */
export async function shapeGroups(env: Env, db: Db, caller: User | null, list: Group[]): Promise<GqlGroup[]> {
  const out: GqlGroup[] = [];
  // The groups area binds ids one parameter each (D1: at most 100 per statement).
  for (let i = 0; i < list.length; i += GROUP_CHUNK) {
    const chunk = list.slice(i, i + GROUP_CHUNK);
    const views = await viewsOf(db, caller, chunk);
    const infos = await groupInfos(env, db, caller, chunk, views);
    const byRef = new Map(chunk.map((g) => [g.ref, g]));
    for (const info of infos) {
      const group = byRef.get(info.ref)!;
      out.push({ group, info, profile: views.get(group.id)!.profile, insider: views.get(group.id)!.insider });
    }
  }
  return out;
}

/** Groups shaped per round of queries. */
const GROUP_CHUNK = 40;

/**
 * Groups a caller may list: those they hold an active role in and, for an organisation
 * founder or admin, every group of that organisation. Naming a group (`id` or `name`)
 * also finds a group the caller is not in; the visibility rules then decide (a private
 * group stays invisible to strangers). `id` is a reference (`@user~group`, `+org~group`,
 * `+org`) or an organisation's name; `parent_group` an org group's organisation or a user
 * group's owner.
 */
export async function candidateGroups(db: Db, caller: User | null, f: GroupFilter): Promise<Group[]> {
  const uid = caller?.id ?? -1;
  const mine = sql`${groups.id} in (select group_id from members where user_id = ${uid} and state = 'active')`;
  const overseen = sql`${groups.parent_id} in (select group_id from members where user_id = ${uid} and state = 'active' and role in ('founders', 'admins'))`;
  const reach: SQL[] = [mine, overseen];
  if (f.id != null || f.name != null) reach.push(sql`1 = 1`);
  const where: (SQL | undefined)[] = [or(...reach)];
  // An organisation is also named by its name (the client's `-O acme` sends {"orgId": "acme"}).
  if (f.id != null) where.push(or(eq(groups.ref, f.id), and(eq(groups.kind, 'org'), eq(groups.slug, f.id))));
  if (f.name != null) where.push(eq(groups.slug, f.name));
  if (f.type != null) where.push(eq(groups.kind, f.type));
  if (f.parent_group != null) {
    // An org group's parent is its organisation; a user group's is its owner (`@<owner>~<slug>`).
    const ownedBy = sql`${groups.kind} = 'user_group' and ${groups.ref} = '@' || ${f.parent_group} || '~' || ${groups.slug}`;
    where.push(
      or(sql`${groups.parent_id} in (select id from groups where kind = 'org' and slug = ${f.parent_group})`, ownedBy),
    );
  }
  return db
    .select()
    .from(groups)
    .where(and(...where))
    .orderBy(asc(groups.ref))
    .limit(1000);
}

/** The caller's active groups with their roles (for `me`). */
export async function myGroups(db: Db, caller: User): Promise<{ group: Group; role: string }[]> {
  return db
    .select({ group: groups, role: members.role })
    .from(members)
    .innerJoin(groups, eq(groups.id, members.group_id))
    .where(and(eq(members.user_id, caller.id), eq(members.state, 'active')))
    .orderBy(asc(groups.ref));
}

export type Options = Record<(typeof COMMON_OPTIONS)[number], boolean>;

/** The profile options of several groups in one query (yes/no, default no). */
export async function optionsOf(db: Db, ids: readonly number[]): Promise<Options[]> {
  const rows = await db
    .select({ id: groupEntries.group_id, path: groupEntries.path })
    .from(groupEntries)
    .where(
      and(inJson(groupEntries.group_id, ids), like(groupEntries.path, 'options/%'), eq(groupEntries.value, 'yes')),
    );
  const on = new Set(rows.map((r) => `${r.id}:${r.path.slice('options/'.length)}`));
  return ids.map((id) => Object.fromEntries(COMMON_OPTIONS.map((o) => [o, on.has(`${id}:${o}`)])) as Options);
}
