/**
 * Who sees which group, its profile and its roster. One module for REST and GraphQL:
 * `viewsOf(db, caller, groups)` loads everything the rules need for a whole list of
 * groups in one D1 batch; `decideView` is the pure rule; `groupInfos` (group-info.ts) builds the group
 * info object for the groups a caller may see.
 *
 * The rules:
 *   - an accepted member sees the group, its profile and full roster;
 *   - a founder or admin of an organisation sees every group of it, with its profile and
 *     full roster (oversight is read-only: it grants no management);
 *   - a pending invitee sees the group and its profile (to decide), the roster only as
 *     the public would;
 *   - a member of any group of an organisation sees the organisation itself;
 *   - anybody else (other users, anonymous callers) sees a group only when its option
 *     `public` is yes (for an org group: and its organisation's too); then the profile
 *     needs `show_profile`, the description `show_description`, the roster `show_members`;
 *     for organisations and org groups these show_* options count only on a premium plan;
 *   - nobody else learns that the group exists (404).
 */
import { and, asc, eq, inArray, like, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { groups, members, users, type Group, type Role, type User } from '../db/schema';
import type { Db } from '../core/context';
import { groupEntries } from './schema';
import { isManager, type Membership, type OptionName } from './model';

export interface ViewInput {
  kind: Group['kind'];
  membership: Membership | null;
  /** The caller's active role in the parent organisation (org groups). */
  orgRole: Role | null;
  /** The caller is an accepted member of some group of this organisation (orgs). */
  inChildGroup: boolean;
  /** Options set to yes on the group. */
  options: ReadonlySet<string>;
  /** Whether the parent organisation is public (org groups; true otherwise). */
  parentPublic: boolean;
  /** Whether the organisation account behind it has a premium plan (orgs and org groups). */
  premium: boolean;
}

export interface GroupView {
  visible: boolean;
  profile: boolean;
  description: boolean;
  roster: boolean;
  /** The caller's active role, null until one is held. */
  role: Role | null;
  pending: boolean;
  /** Founder or admin of the group: may change profile, options and roles. */
  manage: boolean;
  /** Org founder or admin looking at a group of their org (read-only). */
  oversight: boolean;
  /** Accepted member or oversight: may read the roster, shared content and the inbound address. */
  insider: boolean;
}

const HIDDEN: GroupView = {
  visible: false,
  profile: false,
  description: false,
  roster: false,
  role: null,
  pending: false,
  manage: false,
  oversight: false,
  insider: false,
};

/** Whether an option is in force: show_* options of orgs and org groups need premium. */
function optionOn(i: Pick<ViewInput, 'kind' | 'options' | 'premium'>, option: OptionName): boolean {
  if (!i.options.has(option)) return false;
  if (i.kind !== 'user_group' && option.startsWith('show_')) return i.premium;
  return true;
}

/** The visibility rule (pure). */
export function decideView(i: ViewInput): GroupView {
  const role = i.membership?.state === 'active' ? i.membership.role : null;
  const pending = i.membership?.state === 'pending';
  const oversight = i.kind === 'org_group' && isManager(i.orgRole);
  const manage = isManager(role);
  const base = { ...HIDDEN, role, pending, manage, oversight };
  if (role || oversight)
    return { ...base, visible: true, profile: true, description: true, roster: true, insider: true };
  const isPublic = optionOn(i, 'public') && i.parentPublic;
  const roster = isPublic && optionOn(i, 'show_members');
  if (pending || (i.kind === 'org' && i.inChildGroup))
    return { ...base, visible: true, profile: true, description: true, roster };
  if (!isPublic) return base;
  return {
    ...base,
    visible: true,
    profile: optionOn(i, 'show_profile'),
    description: optionOn(i, 'show_description'),
    roster,
  };
}

/**
 * Which groups the view reads cover: `ids` of them, those of them that are organisations, and those organisations'
 * owners.
 */
interface ViewScope {
  ids: (col: SQLiteColumn) => SQL;
  orgIds: (col: SQLiteColumn) => SQL;
  ownerIds: (col: SQLiteColumn) => SQL;
}

/** The reads the rule needs about the groups of `scope` (one batch, or part of the caller's). */
function viewReads(db: Db, caller: User | null, scope: ViewScope) {
  const uid = caller?.id ?? -1;
  return [
    db
      .select({ group_id: members.group_id, role: members.role, state: members.state })
      .from(members)
      .where(and(eq(members.user_id, uid), scope.ids(members.group_id))),
    db
      .select({ group_id: groupEntries.group_id, path: groupEntries.path })
      .from(groupEntries)
      .where(
        and(scope.ids(groupEntries.group_id), like(groupEntries.path, 'options/%'), eq(groupEntries.value, 'yes')),
      ),
    db.select({ id: users.id, plan: users.plan }).from(users).where(scope.ownerIds(users.id)),
    db
      .selectDistinct({ parent_id: groups.parent_id })
      .from(members)
      .innerJoin(groups, eq(groups.id, members.group_id))
      .where(and(eq(members.user_id, uid), eq(members.state, 'active'), scope.orgIds(groups.parent_id))),
  ] as const;
}

type ViewRows = [
  { group_id: number; role: Role; state: Membership['state'] }[],
  { group_id: number; path: string }[],
  { id: number; plan: User['plan'] }[],
  { parent_id: number | null }[],
];

/** The views of `list` from the rows of viewReads (`known`: every group read, with their organisations). */
function viewsFrom(
  list: Group[],
  known: Map<number, Group>,
  [mine, opts, plans, childOf]: Readonly<ViewRows>,
): Map<number, GroupView> {
  const out = new Map<number, GroupView>();
  const membership = new Map(mine.map((m) => [m.group_id, { role: m.role, state: m.state } as Membership]));
  const options = new Map<number, Set<string>>();
  for (const o of opts) {
    if (!options.has(o.group_id)) options.set(o.group_id, new Set());
    options.get(o.group_id)!.add(o.path.slice('options/'.length));
  }
  const premiumOwners = new Set(plans.filter((p) => p.plan === 'premium').map((p) => p.id));
  const inChild = new Set(childOf.map((c) => c.parent_id));
  const orgOf = (g: Group) => (g.kind === 'org' ? g : g.kind === 'org_group' ? known.get(g.parent_id!) : undefined);
  const inputOf = (g: Group): ViewInput => {
    const org = orgOf(g);
    const orgM = org && org !== g ? membership.get(org.id) : undefined;
    return {
      kind: g.kind,
      membership: membership.get(g.id) ?? null,
      orgRole: orgM?.state === 'active' ? orgM.role : null,
      inChildGroup: inChild.has(g.id),
      options: options.get(g.id) ?? new Set(),
      parentPublic: g.kind !== 'org_group' || (!!org && (options.get(org.id)?.has('public') ?? false)),
      premium: !!org?.owner_id && premiumOwners.has(org.owner_id),
    };
  };
  for (const g of list) out.set(g.id, decideView(inputOf(g)));
  return out;
}

/** Loads what the rule needs for every group in `list` (one D1 batch) and decides. */
export async function viewsOf(
  db: Db,
  caller: User | null,
  list: Group[],
  loaded: Group[] = [],
): Promise<Map<number, GroupView>> {
  if (!list.length) return new Map();
  const parentIds = [
    ...new Set(list.filter((g) => g.kind === 'org_group' && g.parent_id !== null).map((g) => g.parent_id!)),
  ];
  const known = new Map([...loaded, ...list].map((g) => [g.id, g]));
  const missingParents = parentIds.filter((id) => !known.has(id));
  const parents = missingParents.length ? await db.select().from(groups).where(inArray(groups.id, missingParents)) : [];
  for (const p of parents) known.set(p.id, p);
  const ids = [...known.keys()];
  const orgIds = [...known.values()].filter((g) => g.kind === 'org').map((g) => g.id);
  const ownerIds = [
    ...new Set([...known.values()].filter((g) => g.kind === 'org' && g.owner_id !== null).map((g) => g.owner_id!)),
  ];
  const scope: ViewScope = {
    ids: (col) => inArray(col, ids),
    orgIds: (col) => inArray(col, orgIds.length ? orgIds : [-1]),
    ownerIds: (col) => inArray(col, ownerIds.length ? ownerIds : [-1]),
  };
  const rows: Readonly<ViewRows> = await db.batch(viewReads(db, caller, scope));
  return viewsFrom(list, known, rows);
}

/**
 * The reads of viewOf for the group named `ref` and its organisation, as queries to batch
 * with the group's own read (the group need not be loaded yet): see viewOfRows.
 */
export function viewReadsByRef(db: Db, caller: User | null, ref: string) {
  const known = sql`(select k.id from groups k where k.ref = ${ref} or k.id = (select p.parent_id from groups p where p.ref = ${ref}))`;
  return viewReads(db, caller, {
    ids: (col) => sql`${col} in ${known}`,
    orgIds: (col) => sql`${col} in (select o.id from groups o where o.id in ${known} and o.kind = 'org')`,
    ownerIds: (col) => sql`${col} in (select o.owner_id from groups o where o.id in ${known} and o.kind = 'org')`,
  });
}

/** The caller's view of `group` (with its organisation `parent`) from the rows of viewReadsByRef. */
export function viewOfRows(group: Group, parent: Group | undefined, rows: unknown[][]): GroupView {
  const known = new Map([...(parent ? [parent] : []), group].map((g) => [g.id, g]));
  return viewsFrom([group], known, rows as ViewRows).get(group.id)!;
}

/** The caller's view of one group (`parent`: its organisation, when the caller has it already). */
export async function viewOf(db: Db, caller: User | null, group: Group, parent?: Group): Promise<GroupView> {
  return (await viewsOf(db, caller, [group], parent ? [parent] : [])).get(group.id)!;
}

/** Keeps the groups the caller may see, in order, with their views. */
export async function visibleGroups(
  db: Db,
  caller: User | null,
  list: Group[],
): Promise<{ group: Group; view: GroupView }[]> {
  const views = await viewsOf(db, caller, list);
  return list.filter((g) => views.get(g.id)!.visible).map((g) => ({ group: g, view: views.get(g.id)! }));
}

/**
 * Organisations worth checking for a caller's list: those they belong to or are invited
 * to, those of the groups they belong to, and the public ones (filter with viewsOf).
 */
export async function candidateOrgs(db: Db, caller: User | null): Promise<Group[]> {
  const uid = caller?.id ?? -1;
  return db
    .select()
    .from(groups)
    .where(
      and(
        eq(groups.kind, 'org'),
        or(
          sql`exists (select 1 from group_entries e where e.group_id = ${groups.id} and e.path = 'options/public' and e.value = 'yes')`,
          sql`exists (select 1 from members m where m.group_id = ${groups.id} and m.user_id = ${uid} and m.state in ('active', 'pending'))`,
          sql`exists (select 1 from members m join groups c on c.id = m.group_id where c.parent_id = ${groups.id} and m.user_id = ${uid} and m.state = 'active')`,
        ),
      ),
    )
    .orderBy(asc(groups.slug));
}
