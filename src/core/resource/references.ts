/**
 * References: what a text entry names that its render then reads with the rights of the
 * resource's owner (another document's variables, an attached document, the owner's own
 * profile in an author block, a recipient group). The render trusts the owner, so a value
 * written by someone else (a grantee with write access) may only add references the
 * writer could read themselves: otherwise 400 `<entry>: <reference> is not readable by
 * <writer>` and nothing is stored. The owner's own writes are not checked, and references
 * the stored value already holds stay allowed (the render already shows them to every
 * reader, the writer included). A missing target is refused like an unreadable one: a
 * reference must not start to read once its target is created later, and the answer
 * never tells whether it exists.
 *
 * An entry opts in with `EntrySpec.references` (a pure extractor of its format); the
 * check costs one D1 round trip whatever the number of references, and none when the
 * value names nothing.
 */
import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { groups, members, resources, users, type User } from '../../db/schema';
import { entryQuery, entryValue } from '../entries';
import { badRequest } from '../errors';
import type { EntrySpec, Reference, ResourceCtx } from './kind';
import { grantedAccess, grantsColumn } from './visibility';

/** Resources looked up per statement (their names travel as one JSON parameter). */
const PER_STATEMENT = 100;

const json = (values: unknown[]) => JSON.stringify(values);

/** The named resources with the writer's grants on them: json_each drives, the owner-kind-name index finds each. */
function resourcesQuery(rc: ResourceCtx, writer: User, wanted: Extract<Reference, { kind: 'resource' }>[]) {
  const names = json(wanted.map((r) => [r.owner, r.resource, r.name]));
  return rc.db
    .select({ ...getTableColumns(resources), owner_name: users.username, grants: grantsColumn(writer.id) })
    .from(resources)
    .innerJoin(users, eq(users.id, resources.owner_id))
    .where(
      sql`${resources.id} in (select r.id from json_each(${names}) w join users u on u.username = json_extract(w.value, '$[0]')
                              join resources r on r.owner_id = u.id and r.kind = json_extract(w.value, '$[1]') and r.name = json_extract(w.value, '$[2]'))`,
    );
}

const resourceKey = (owner: string, kind: string, name: string) => `${owner}\u0000${kind}\u0000${name}`;

/** The references of `refs` the writer may not read (one D1 round trip), with the stored value's row read alongside. */
async function unreadable(
  rc: ResourceCtx,
  writer: User,
  path: string,
  refs: Reference[],
): Promise<{ refused: Reference[]; stored: () => Promise<string | null> }> {
  const wanted = refs.filter((r): r is Extract<Reference, { kind: 'resource' }> => r.kind === 'resource');
  const profiles = [
    ...new Set(refs.flatMap((r) => (r.kind === 'profile' && r.user !== writer.username ? [r.user] : []))),
  ];
  const refsOfGroups = [...new Set(refs.flatMap((r) => (r.kind === 'group' ? [r.ref] : [])))];
  const batch: BatchItem<'sqlite'>[] = [entryQuery(rc.db, rc.resource.id, path)];
  for (let i = 0; i < wanted.length; i += PER_STATEMENT)
    batch.push(resourcesQuery(rc, writer, wanted.slice(i, i + PER_STATEMENT)));
  const resourceStatements = batch.length - 1;
  if (profiles.length) {
    batch.push(
      rc.db
        .select({ username: users.username, public: users.profile_public })
        .from(users)
        .where(sql`${users.username} in (select value from json_each(${json(profiles)}))`),
    );
  }
  if (refsOfGroups.length) {
    batch.push(
      rc.db
        .select({ ref: groups.ref, member: members.user_id })
        .from(groups)
        .innerJoin(
          members,
          and(eq(members.group_id, groups.id), eq(members.user_id, writer.id), eq(members.state, 'active')),
        )
        .where(sql`${groups.ref} in (select value from json_each(${json(refsOfGroups)}))`),
    );
  }
  const results = (await rc.db.batch(batch as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown[][];
  type Found = Awaited<ReturnType<typeof resourcesQuery>>[number];
  const found = new Map(
    (results.slice(1, 1 + resourceStatements).flat() as Found[]).map((r) => [
      resourceKey(r.owner_name, r.kind, r.name),
      r,
    ]),
  );
  let at = 1 + resourceStatements;
  const publicProfiles = new Set(
    profiles.length
      ? (results[at++] as { username: string; public: boolean }[]).filter((u) => u.public).map((u) => u.username)
      : [],
  );
  const memberOf = new Set(refsOfGroups.length ? (results[at++] as { ref: string }[]).map((g) => g.ref) : []);
  const readable = (r: Reference): boolean => {
    if (r.kind === 'profile') return r.user === writer.username || publicProfiles.has(r.user);
    if (r.kind === 'group') return memberOf.has(r.ref);
    const row = found.get(resourceKey(r.owner, r.resource, r.name));
    if (!row) return false;
    const { grants, ...resource } = row;
    return resource.owner_id === writer.id || grantedAccess(resource.kind, grants)[r.need ?? 'r'];
  };
  const row = results[0]![0] as Parameters<typeof entryValue>[1];
  return { refused: refs.filter((r) => !readable(r)), stored: () => entryValue(rc.env, row) };
}

/**
 * Refuses (400) a value of `spec` written by someone other than the owner when it adds a
 * reference the writer may not read. Nothing to do for the owner or an entry without an extractor.
 */
export async function checkReferences(rc: ResourceCtx, spec: EntrySpec, value: string): Promise<void> {
  const writer = rc.caller;
  if (!spec.references || rc.access.owner || !writer) return;
  const refs = [...new Map((await spec.references(value, rc)).map((r) => [r.as, r])).values()];
  if (!refs.length) return;
  const { refused, stored } = await unreadable(rc, writer, spec.path, refs);
  if (!refused.length) return;
  const before = await stored();
  const kept = new Set(before === null ? [] : (await spec.references(before, rc)).map((r) => r.as));
  const added = refused.filter((r) => !kept.has(r.as));
  if (!added.length) return;
  const more = added.length > 1 ? ` (and ${added.length - 1} more)` : '';
  throw badRequest(`${spec.path}: ${added[0]!.as} is not readable by ${writer.username}${more}`, {
    unreadable: added.map((r) => r.as),
  });
}
