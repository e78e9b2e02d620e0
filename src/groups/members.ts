/**
 * Membership store: the queries other areas use (activeMembers, groupByRef), creating and
 * deleting a group, and the state machine's writes. Every transition is one guarded statement, so concurrent
 * requests cannot both win: a transition whose precondition changed meanwhile touches
 * no row and answers 409.
 */
import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { groups, members, users, type Group, type Role, type User } from '../db/schema';
import { d1Of, type Db } from '../core/context';
import { nowIso } from '../core/clock';
import { conflict, forbidden, isUniqueViolation, type HttpError } from '../core/errors';
import { PICTURES, type Membership, type Picture } from './model';
import { pictureKey } from './profile';

/** Accepted (active) members of a group with their roles. */
export async function activeMembers(db: Db, groupId: number): Promise<{ user: User; role: Role }[]> {
  const rows = await db
    .select({ user: users, role: members.role })
    .from(members)
    .innerJoin(users, eq(users.id, members.user_id))
    .where(and(eq(members.group_id, groupId), eq(members.state, 'active')))
    .orderBy(users.username);
  return rows;
}

/** A group by its reference (`@user~group`, `+org~group`, `+org`), or null. */
export async function groupByRef(db: Db, ref: string): Promise<Group | null> {
  return (await db.select().from(groups).where(eq(groups.ref, ref)).get()) ?? null;
}

/** A group by reference with its organisation (for an org group) in one query. */
export async function groupAndParentByRef(db: Db, ref: string): Promise<{ group: Group | null; parent?: Group }> {
  return groupAndParentOf(await groupAndParentQuery(db, ref), ref);
}

/** The query behind groupAndParentByRef, for callers that batch it with others (db.batch). */
export function groupAndParentQuery(db: Db, ref: string) {
  return db
    .select()
    .from(groups)
    .where(
      or(
        eq(groups.ref, ref),
        eq(groups.id, sql`(select ${groups.parent_id} from ${groups} where ${groups.ref} = ${ref})`),
      ),
    );
}

/** The group and its parent among the rows of groupAndParentQuery. */
export function groupAndParentOf(rows: Group[], ref: string): { group: Group | null; parent?: Group } {
  const group = rows.find((g) => g.ref === ref) ?? null;
  return { group, parent: rows.find((g) => g.id === group?.parent_id) };
}

export async function membershipOf(db: Db, groupId: number, userId: number): Promise<Membership | null> {
  const row = await db
    .select({ role: members.role, state: members.state })
    .from(members)
    .where(and(eq(members.group_id, groupId), eq(members.user_id, userId)))
    .get();
  return row ?? null;
}

export interface NewGroup {
  kind: Group['kind'];
  slug: string;
  ref: string;
  owner_id: number | null;
  parent_id: number | null;
}

/**
 * Creates the group and makes `founder` its active founder, atomically (one batch).
 * `onePerOwner`: refuse (403) when the owner already has a group of this kind (orgs).
 */
export async function createGroup(env: Env, db: Db, g: NewGroup, founder: User, onePerOwner = false): Promise<Group> {
  const now = nowIso();
  const d1 = d1Of(db); // the caller's D1 session: its bookmark covers the new group
  const limit = onePerOwner ? ' where not exists (select 1 from groups where kind = ?7 and owner_id = ?3)' : '';
  const insertGroup = d1
    .prepare(
      `insert into groups (kind, slug, owner_id, parent_id, ref, created_on, last_modified) select ?1, ?2, ?3, ?4, ?5, ?6, ?6${limit}`,
    )
    .bind(g.kind, g.slug, g.owner_id, g.parent_id, g.ref, now, ...(onePerOwner ? [g.kind] : []));
  // Same transaction: only a group inserted just now has no member yet.
  const insertFounder = d1
    .prepare(
      `insert into members (group_id, user_id, role, state, invited_by, created_on, last_modified)
       select id, ?1, 'founders', 'active', null, ?2, ?2 from groups where ref = ?3 and not exists (select 1 from members m where m.group_id = groups.id)`,
    )
    .bind(founder.id, now, g.ref);
  // The group as stored, read in the same batch (its columns are named as Group's fields).
  const readGroup = d1.prepare('select * from groups where ref = ?1').bind(g.ref);
  let inserted: number;
  let created: Group | undefined;
  try {
    const [res, , read] = await d1.batch([insertGroup, insertFounder, readGroup]);
    inserted = res!.meta.changes;
    created = (read!.results as Group[])[0];
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`${g.ref} already exists`);
    throw err;
  }
  if (!inserted) {
    if (created) throw conflict(`${g.ref} already exists`);
    throw forbidden('an account may create one organisation, and this account already has one');
  }
  return created!;
}

/**
 * Deletes a group: `ids` is the group, then (an organisation) its groups. Their pictures go first, then the row, with
 * which its roles and invitations, profile entries, threads, every share into it and an organisation's groups go
 * (foreign keys). Pictures first: a removal cut off between the two finds the row, and so them, again.
 */
export async function deleteGroup(env: Env, db: Db, ids: number[]): Promise<void> {
  await env.BLOBS.delete(ids.flatMap((id) => (Object.keys(PICTURES) as Picture[]).map((p) => pictureKey(id, p))));
  await db.delete(groups).where(eq(groups.id, ids[0]!));
}

/** The row of `userId` in `groupId`, held in exactly `m` (the guard of every concurrent change). */
const heldAs = (groupId: number, userId: number, m: Membership) =>
  and(eq(members.group_id, groupId), eq(members.user_id, userId), eq(members.role, m.role), eq(members.state, m.state));

const founderGuard = (groupId: number) =>
  sql`(${members.role} <> 'founders' or ${members.state} <> 'active' or (select count(*) from members f where f.group_id = ${groupId} and f.role = 'founders' and f.state = 'active') > 1)`;

/**
 * The owner of a group (`groups.owner_id`: the user whose namespace a user group `@user~group` is in, the organisation
 * account of an organisation; an organisation group has none) always holds it as an active founder: a change that
 * would leave them anything else (`to` null: a removal) touches no row. Whoever asks, the owner included: they delete
 * the group instead. So the group never drops out of its owner's reach while it keeps their name.
 */
const ownerGuard = (groupId: number, to: Membership | null) =>
  to?.role === 'founders' && to.state === 'active'
    ? undefined
    : sql`${members.user_id} is not (select ${groups.owner_id} from ${groups} where ${groups.id} = ${groupId})`;

/** What every change of an existing membership keeps: the group's owner and its last founder. */
const keeps = (groupId: number, to: Membership | null) => and(ownerGuard(groupId, to), founderGuard(groupId));

const LAST_FOUNDER = 'the last founder cannot step down or leave: make someone else a founder first';

const OWNER_STAYS: Partial<Record<Group['kind'], string>> = {
  user_group:
    'the owner of a user group (the user whose namespace @user~group is in) always stays its founder: nobody removes or demotes them and they do not leave; to end the group, delete it',
  org: 'the organisation account always stays a founder of its organisation: nobody removes or demotes it and it does not leave; to end the organisation, delete it',
};

const CHANGED = 'the membership changed meanwhile; read it again and retry';

/**
 * Why a guarded change of the row `from` of `userId` touched nothing: 403 when they own the group, else 409 for its
 * last founder or a concurrent change. Read only then (a group's owner never changes).
 */
async function refusal(db: Db, groupId: number, userId: number, from: Membership): Promise<HttpError> {
  const g = await db
    .select({ kind: groups.kind, owner_id: groups.owner_id })
    .from(groups)
    .where(eq(groups.id, groupId))
    .get();
  const owned = g && g.owner_id === userId ? OWNER_STAYS[g.kind] : undefined;
  if (owned) return forbidden(owned);
  return conflict(from.role === 'founders' && from.state === 'active' ? LAST_FOUNDER : CHANGED);
}

/**
 * Moves an existing membership from exactly `from` to `to`, guarded against concurrent
 * changes, against moving the group's owner out of its founders and against removing the
 * last founder. Throws 403 (the owner) or 409 when the guard fails.
 */
export async function moveMembership(
  db: Db,
  groupId: number,
  userId: number,
  from: Membership,
  to: Membership & { invited_by?: number | null },
): Promise<void> {
  await writeMembership(db, groupId, userId, from, to);
}

/**
 * Inserts a membership (`from` null; 409 when one appeared meanwhile) or moves one as moveMembership does, with
 * further statements in the same batch (one D1 round trip, one transaction): `also` gets
 * the SQL condition "this write took effect" for statements that must only act then.
 * Their results come back in order.
 */
export async function writeMembership(
  db: Db,
  groupId: number,
  userId: number,
  from: Membership | null,
  to: Membership & { invited_by?: number | null },
  also: (written: SQL) => BatchItem<'sqlite'>[] = () => [],
): Promise<unknown[]> {
  const now = nowIso();
  const invitedBy = to.invited_by !== undefined ? { invited_by: to.invited_by } : {};
  const write = from
    ? db
        .update(members)
        .set({ role: to.role, state: to.state, ...invitedBy, last_modified: now })
        .where(and(heldAs(groupId, userId, from), keeps(groupId, to)))
        .returning({ user_id: members.user_id })
    : db.insert(members).values({
        group_id: groupId,
        user_id: userId,
        role: to.role,
        state: to.state,
        invited_by: to.invited_by ?? null,
        created_on: now,
        last_modified: now,
      });
  const written = sql`exists (select 1 from ${members} where ${and(
    heldAs(groupId, userId, to),
    eq(members.last_modified, now),
  )})`;
  let results: unknown[];
  try {
    results = await db.batch([write, ...also(written)]);
  } catch (err) {
    if (!from && isUniqueViolation(err)) throw conflict(CHANGED);
    throw err;
  }
  if (from && !(results[0] as unknown[]).length) throw await refusal(db, groupId, userId, from);
  return results.slice(1);
}

/** "The statement just before took effect on one row", for `also` right after a single-row change. */
const changedOne = sql`changes() = 1`;

/**
 * Removes a membership held in exactly `from`; 403 for the group's owner, 409 for its last founder or a race. `also`
 * as for writeMembership; their results are answered.
 */
export async function removeMembership(
  db: Db,
  groupId: number,
  userId: number,
  from: Membership,
  also: (written: SQL) => BatchItem<'sqlite'>[] = () => [],
): Promise<unknown[]> {
  const [removed, ...results] = await db.batch([
    db
      .delete(members)
      .where(and(heldAs(groupId, userId, from), keeps(groupId, null)))
      .returning({ user_id: members.user_id }),
    ...also(changedOne),
  ]);
  if (!removed.length) throw await refusal(db, groupId, userId, from);
  return results;
}

/**
 * Answers the caller's pending invite: active (yes) or declined (no); null when none is pending, else the results of
 * `also` (as for writeMembership).
 */
export async function answerInvite(
  db: Db,
  groupId: number,
  userId: number,
  accept: boolean,
  also: (written: SQL) => BatchItem<'sqlite'>[] = () => [],
): Promise<unknown[] | null> {
  const [answered, ...results] = await db.batch([
    db
      .update(members)
      .set({ state: accept ? 'active' : 'declined', last_modified: nowIso() })
      .where(and(eq(members.group_id, groupId), eq(members.user_id, userId), eq(members.state, 'pending')))
      .returning({ user_id: members.user_id }),
    ...also(changedOne),
  ]);
  return answered.length ? results : null;
}

/** Pending invites of a user with the group and who invited them. */
export async function pendingInvites(db: Db, userId: number) {
  return db
    .select({
      group: groups,
      role: members.role,
      invited_by: users.username,
      created_on: members.created_on,
      last_modified: members.last_modified,
    })
    .from(members)
    .innerJoin(groups, eq(groups.id, members.group_id))
    .leftJoin(users, eq(users.id, members.invited_by))
    .where(and(eq(members.user_id, userId), eq(members.state, 'pending')))
    .orderBy(groups.ref);
}

/** Holders of a role (active and pending) for a role listing. */
export async function roleHolders(db: Db, groupId: number, role: Role) {
  return db
    .select({
      username: users.username,
      state: members.state,
      created_on: members.created_on,
      last_modified: members.last_modified,
    })
    .from(members)
    .innerJoin(users, eq(users.id, members.user_id))
    .where(and(eq(members.group_id, groupId), eq(members.role, role), inArray(members.state, ['active', 'pending'])))
    .orderBy(users.username);
}

/** Groups the user is an accepted member of. */
export async function groupsOfMember(db: Db, userId: number, kinds?: Group['kind'][]) {
  return db
    .select({ group: groups, role: members.role })
    .from(members)
    .innerJoin(groups, eq(groups.id, members.group_id))
    .where(
      and(eq(members.user_id, userId), eq(members.state, 'active'), kinds ? inArray(groups.kind, kinds) : undefined),
    )
    .orderBy(groups.ref);
}
