/**
 * Authority at the moment of use. Content names other things: a document's variables, an
 * attached document, a template, a profile, a group, a job a chain runs. Whatever renders,
 * sends or runs that content resolves each of them **when it is used**, with the rights of
 * everyone whose content led there: the owner of what is rendered, sent or run, and the
 * writer of each piece of content on the way (an entry's writer: a grantee who wrote a
 * section, a template's owner and its writer, a chain's writer, who triggered a run). A
 * reference resolves only when every one of them may read (or execute) its target, so
 * nobody's rights are lent to content someone else wrote, and content changed after a
 * check gains nothing by the change.
 *
 * `composedReads` is the one decision: every composition path calls it under its name in
 * COMPOSITION_PATHS, and the composition matrix test has cells for each name (a path added
 * without cells fails it). The checks on write (references.ts) ask the same function with
 * the writer alone: an early 400 for the writer, never the guard.
 */
import { getTableColumns, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { groups, members, resources, users, type ResourceKindName } from '../../db/schema';
import type { Db } from '../context';
import { readsUntracked, touchesOwner } from '../edge-cache';
import { accessFromGrants, OWNER_ACCESS, type Access, type Perm, type ShareGrant } from '../perms';
import type { CompositionPath, Reference } from './paths';
import { grantedAccess, grantsColumn } from './visibility';

/** The principal of nobody (an unauthenticated mail sender): the rights of an anonymous caller, public reads only. */
export const NOBODY = -1;

/** Principals in order, without repeats (the first one lacking a right is the one reported). */
export function principals(...ids: number[]): number[] {
  return [...new Set(ids)];
}

/**
 * The principals of each reference of a piece of content: the fixed `base` (the owner of
 * what uses it first) and whoever the reference lends the rights of (`lent(as)`: its writer).
 */
export function principalsWith(base: readonly number[], lent: (as: string) => readonly number[]) {
  return (as: string): number[] => [...new Set([...base, ...lent(as)])];
}

/** One use of a reference: what content names, and everyone whose rights that use borrows. */
export interface Use {
  path: CompositionPath;
  principals: readonly number[];
  ref: Reference;
}

/** Why a reference does not resolve: it is missing (or unreadable) to a principal, or one lacks the right it needs. */
type Refusal = { missing: number } | { lacks: number };

export type Verdict = { ok: true; id: number | null; ownerId: number | null } | ({ ok: false } & Refusal);

/** The key two references of the same target share, whatever their wording. */
function referenceKey(r: Reference): string {
  if (r.kind === 'resource' && r.shortname !== undefined) return `s\u0000${r.resource}\u0000${r.shortname}`;
  if (r.kind === 'resource')
    return `r\u0000${r.resource}\u0000${r.name}\u0000${r.ownerId !== undefined ? `#${r.ownerId}` : r.owner}`;
  return r.kind === 'profile' ? `p\u0000${r.user}` : `g\u0000${r.ref}`;
}

/** Resources looked up per statement (their names travel as one JSON parameter). */
const PER_STATEMENT = 100;

const json = (values: unknown[]) => JSON.stringify(values);

type ResourceRef = Extract<Reference, { kind: 'resource' }>;

/** A resource named by content, with what each principal's share grants on it are (grantsColumn JSON). */
export interface GrantedRow {
  id: number;
  owner_id: number;
  kind: ResourceKindName;
  grants: ReadonlyMap<number, string>;
}

/**
 * The verdict on a resource for `who` (pure): missing to the first principal who cannot read
 * it (a missing resource alike: a log line never tells whether it exists), else lacking to
 * the first who may not `need` it, else ok.
 */
export function resourceVerdict(row: GrantedRow | undefined, who: readonly number[], need: Perm = 'r'): Verdict {
  // Nobody's rights are no rights: a use always names at least the owner of what uses it.
  if (!row || !who.length) return { ok: false, missing: who[0] ?? NOBODY };
  const access = (p: number): Access =>
    p === row.owner_id ? OWNER_ACCESS : grantedAccess(row.kind, row.grants.get(p) ?? '[]');
  const unreadable = who.find((p) => !access(p).r);
  if (unreadable !== undefined) return { ok: false, missing: unreadable };
  const lacking = who.find((p) => !access(p)[need]);
  return lacking === undefined ? { ok: true, id: row.id, ownerId: row.owner_id } : { ok: false, lacks: lacking };
}

/** Whether principal `p` reads the resource through its public share alone (no group's grant needed). */
function readsPublicly(row: GrantedRow, p: number): boolean {
  const grants = JSON.parse(row.grants.get(p) ?? '[]') as ShareGrant[];
  return accessFromGrants(
    row.kind,
    grants.filter((g) => g.group_id === null),
  ).r;
}

/**
 * The named resources with each principal's share grants on them (columns g0, g1, ... follow
 * `ids`): by owner (name or id), kind and name, or by kind and shortname, each through its index.
 */
function resourcesQuery(db: Db, ids: readonly number[], wanted: ResourceRef[]) {
  const names = json(wanted.map((r) => [r.owner, r.resource, r.name, r.ownerId ?? null, r.shortname ?? null]));
  // Named columns: D1 batch results are keyed by column name, and every grants subquery reads alike.
  const grants = Object.fromEntries(ids.map((id, i) => [`g${i}`, grantsColumn(id).as(`g${i}`)]));
  const { id, owner_id, kind, name } = getTableColumns(resources);
  const { shortname } = getTableColumns(resources);
  return db
    .select({ id, owner_id, kind, name, shortname, owner_name: users.username, ...grants })
    .from(resources)
    .innerJoin(users, sql`${users.id} = ${resources.owner_id}`)
    .where(
      sql`${resources.id} in (select r.id from json_each(${names}) w join resources r
            on json_extract(w.value, '$[4]') is null
            and r.owner_id = coalesce(json_extract(w.value, '$[3]'), (select id from users where username = json_extract(w.value, '$[0]')))
            and r.kind = json_extract(w.value, '$[1]') and r.name = json_extract(w.value, '$[2]')
          union select r.id from json_each(${names}) w join resources r
            on r.shortname = json_extract(w.value, '$[4]') and r.kind = json_extract(w.value, '$[1]'))`,
    );
}

/**
 * The verdict on each use (in order), in one D1 round trip (none when nothing is named and
 * nothing else is asked): the resources named with every principal's grants, the profiles
 * named, and the principals' active memberships of the groups named. `also` joins the same
 * batch (what the caller reads beside the check, e.g. the variables of the documents named):
 * its results come back in order, and the caller uses them only where a verdict is ok.
 */
export async function composedReads(
  db: Db,
  uses: readonly Use[],
  also: readonly BatchItem<'sqlite'>[] = [],
): Promise<{ verdicts: Verdict[]; also: unknown[][] }> {
  const ids = [...new Set(uses.flatMap((u) => u.principals))];
  const refs = [...new Map(uses.map((u) => [referenceKey(u.ref), u.ref] as const)).values()];
  const wanted = refs.filter((r): r is ResourceRef => r.kind === 'resource');
  const profiles = [...new Set(refs.flatMap((r) => (r.kind === 'profile' ? [r.user] : [])))];
  const groupRefs = [...new Set(refs.flatMap((r) => (r.kind === 'group' ? [r.ref] : [])))];
  const batch: BatchItem<'sqlite'>[] = [];
  for (let i = 0; i < wanted.length; i += PER_STATEMENT)
    batch.push(resourcesQuery(db, ids, wanted.slice(i, i + PER_STATEMENT)));
  const resourceStatements = batch.length;
  if (profiles.length)
    batch.push(
      db
        .select({ id: users.id, username: users.username, public: users.profile_public })
        .from(users)
        .where(sql`${users.username} in (select value from json_each(${json(profiles)}))`),
    );
  if (groupRefs.length)
    batch.push(
      db
        .select({ ref: groups.ref, user: members.user_id })
        .from(groups)
        .innerJoin(members, sql`${members.group_id} = ${groups.id} and ${members.state} = 'active'`)
        .where(
          sql`${groups.ref} in (select value from json_each(${json(groupRefs)})) and ${members.user_id} in (select value from json_each(${json(ids)}))`,
        ),
    );
  const checks = batch.length;
  batch.push(...also);
  const results = batch.length
    ? ((await db.batch(batch as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown[][])
    : [];
  // Each row under both names a reference may give its owner (username, or id).
  const rows = new Map<string, GrantedRow>();
  type Row = {
    id: number;
    owner_id: number;
    kind: ResourceKindName;
    name: string;
    shortname: string;
    owner_name: string;
  } & Record<string, unknown>;
  for (const r of results.slice(0, resourceStatements).flat() as Row[]) {
    const row = { ...r, grants: new Map(ids.map((p, i) => [p, r[`g${i}`] as string])) };
    const ref = { kind: 'resource', resource: r.kind, name: r.name, as: '' } as const;
    rows.set(referenceKey({ ...ref, owner: r.owner_name }), row);
    rows.set(referenceKey({ ...ref, owner: r.owner_name, ownerId: r.owner_id }), row);
    rows.set(referenceKey({ ...ref, owner: '', shortname: r.shortname }), row);
  }
  let at = resourceStatements;
  const named = new Map(
    (profiles.length ? (results[at++] as { id: number; username: string; public: boolean }[]) : []).map((u) => [
      u.username,
      u,
    ]),
  );
  const memberships = new Set(
    (groupRefs.length ? (results[at++] as { ref: string; user: number }[]) : []).map((m) => `${m.ref}\u0000${m.user}`),
  );

  const judge = (who: readonly number[], ref: Reference): Verdict => {
    if (!who.length) return { ok: false, missing: NOBODY };
    if (ref.kind === 'profile') {
      const u = named.get(ref.user);
      if (!u) return { ok: false, missing: who[0]! };
      const lacking = who.find((p) => p !== u.id);
      return u.public || lacking === undefined ? { ok: true, id: u.id, ownerId: u.id } : { ok: false, lacks: lacking };
    }
    if (ref.kind === 'group') {
      const lacking = who.find((p) => !memberships.has(`${ref.ref}\u0000${p}`));
      return lacking === undefined ? { ok: true, id: null, ownerId: null } : { ok: false, lacks: lacking };
    }
    const row = rows.get(referenceKey(ref));
    const verdict = resourceVerdict(row, who, ref.need);
    // A read through a group share hangs on memberships no account's tag follows.
    if (verdict.ok && !who.every((p) => p === row!.owner_id || readsPublicly(row!, p))) readsUntracked();
    return verdict;
  };
  const verdicts = uses.map((u) => judge(u.principals, u.ref));
  // The edge keeps an answer by the accounts it drew from; a reference to a group, or one
  // that does not resolve now (it may later), is followed by no account's tag.
  for (const v of verdicts) {
    if (v.ok && v.ownerId !== null) touchesOwner(v.ownerId);
    else readsUntracked();
  }
  return { verdicts, also: results.slice(checks) };
}

/**
 * Whether a run may lend the job owner's own secrets (env values, network) to code: only
 * when every writer of that code is the owner (job.code). Pure.
 */
export function lendsOwnerSecrets(ownerId: number, writers: readonly number[]): boolean {
  return writers.every((w) => w === ownerId);
}
