/**
 * The group info object (REST `GET` of a group, an organisation's groups, GraphQL groups):
 * what the caller may see of each group under the visibility rule (visibility.ts), built for
 * a list of groups with one D1 batch.
 */
import { and, eq, inArray, like, or, sql } from 'drizzle-orm';
import { groups, members, shares, resources, users, type Group, type Role, type User } from '../db/schema';
import type { Db } from '../core/context';
import { liveShare } from '../core/perms';
import { groupEntries } from './schema';
import { inboundAddress } from './model';
import { COLLECTION_OF } from './sections';
import { viewsOf, type GroupView } from './visibility';

export interface GroupInfo {
  /** The slug: the key a group is addressed by. */
  name: string;
  ref: string;
  kind: Group['kind'];
  /** The organisation's slug for org groups, null otherwise. */
  org: string | null;
  uri: string;
  /** Markdown description; null when the caller may not see it. */
  description: string | null;
  /** Display name and pictures; null when the caller may not see the profile. */
  profile: { name: string; picture: { image: string | null; banner: string | null; mask: string | null } } | null;
  /** The caller's role, empty until one is held. */
  role: Role | '';
  /** The roster (pending invitees with state pending); null when the caller may not see it. */
  members: { username: string; role: Role; state: 'active' | 'pending' }[] | null;
  /** Resources shared with the group (members and org oversight only). */
  shared: { kind: string; owner: string; name: string; entry: string; uri: string }[];
  /** Inbound address of an org group when mail-enabled; null otherwise or for outsiders. */
  email: string | null;
  created_on: string;
  last_modified: string;
}

/** Where a group is administered: /v1/admin/groups/@u~g, /v1/admin/orgs/o, /v1/admin/orgs/o/groups/g. */
export function adminPath(g: Group, orgSlug: string | null): string {
  if (g.kind === 'org') return `/v1/admin/orgs/${g.slug}`;
  if (g.kind === 'org_group') return `/v1/admin/orgs/${orgSlug}/groups/${g.slug}`;
  return `/v1/admin/groups/${g.ref}`;
}

/** Group info objects for the groups the caller may see (others are left out), in order. */
export async function groupInfos(
  env: Env,
  db: Db,
  caller: User | null,
  list: Group[],
  known?: Map<number, GroupView>,
): Promise<GroupInfo[]> {
  const views = known ?? (await viewsOf(db, caller, list));
  const seen = list.filter((g) => views.get(g.id)?.visible);
  if (!seen.length) return [];
  const ids = seen.map((g) => g.id);
  const parentIds = [...new Set(seen.filter((g) => g.parent_id !== null).map((g) => g.parent_id!))];
  const rosterIds = seen.filter((g) => views.get(g.id)!.roster).map((g) => g.id);
  const insiderIds = seen.filter((g) => views.get(g.id)!.insider).map((g) => g.id);
  const none = [-1];
  const [entries, parents, roster, shared, mailOpts] = await db.batch([
    db
      .select()
      .from(groupEntries)
      .where(
        and(
          inArray(groupEntries.group_id, ids),
          or(eq(groupEntries.path, 'name'), eq(groupEntries.path, 'description'), like(groupEntries.path, 'picture/%')),
        ),
      ),
    db
      .select()
      .from(groups)
      .where(inArray(groups.id, parentIds.length ? parentIds : none)),
    db
      .select({ group_id: members.group_id, username: users.username, role: members.role, state: members.state })
      .from(members)
      .innerJoin(users, eq(users.id, members.user_id))
      .where(
        and(
          inArray(members.group_id, rosterIds.length ? rosterIds : none),
          inArray(members.state, ['active', 'pending']),
        ),
      )
      .orderBy(members.group_id, users.username),
    db
      .select({
        group_id: shares.group_id,
        entry: shares.entry,
        kind: resources.kind,
        name: resources.name,
        owner: users.username,
      })
      .from(shares)
      .innerJoin(resources, eq(resources.id, shares.resource_id))
      .innerJoin(users, eq(users.id, resources.owner_id))
      // Only live shares: one whose owner left the group grants nothing, so it is not listed.
      .where(
        and(
          inArray(shares.group_id, insiderIds.length ? insiderIds : none),
          liveShare(sql`${shares.group_id}`, sql`${resources.owner_id}`),
        ),
      )
      .orderBy(resources.kind, users.username, resources.name),
    db
      .select({ group_id: groupEntries.group_id, path: groupEntries.path })
      .from(groupEntries)
      .where(
        and(
          inArray(groupEntries.group_id, [...ids, ...parentIds]),
          inArray(groupEntries.path, ['options/enable_subdomain', 'options/allow_inbound_mail']),
          eq(groupEntries.value, 'yes'),
        ),
      ),
  ]);
  const parentById = new Map(parents.map((p) => [p.id, p]));
  const mailOn = new Set(mailOpts.map((o) => `${o.group_id}:${o.path}`));
  return seen.map((g) => {
    const v = views.get(g.id)!;
    const own = entries.filter((e) => e.group_id === g.id);
    const text = (path: string) => own.find((e) => e.path === path)?.value ?? null;
    const org = g.kind === 'org_group' ? (parentById.get(g.parent_id!) ?? null) : null;
    const path = adminPath(g, org?.slug ?? null);
    const pic = (p: string) => (own.some((e) => e.path === `picture/${p}`) ? `${path}/profile/picture/${p}` : null);
    const mailEnabled =
      !!org && mailOn.has(`${org.id}:options/enable_subdomain`) && mailOn.has(`${g.id}:options/allow_inbound_mail`);
    return {
      name: g.slug,
      ref: g.ref,
      kind: g.kind,
      org: org?.slug ?? null,
      uri: path,
      description: v.description ? (text('description') ?? '') : null,
      profile: v.profile
        ? {
            name: text('name') ?? g.slug,
            picture: { image: pic('image'), banner: pic('banner'), mask: text('picture/mask') },
          }
        : null,
      role: v.role ?? '',
      members: v.roster
        ? roster
            .filter((m) => m.group_id === g.id)
            .map((m) => ({ username: m.username, role: m.role, state: m.state as 'active' | 'pending' }))
        : null,
      shared: v.insider
        ? shared
            .filter((s) => s.group_id === g.id)
            .map((s) => ({
              kind: s.kind,
              owner: s.owner,
              name: s.name,
              entry: s.entry,
              uri: `/v1/users/${s.owner}/${COLLECTION_OF[s.kind]}/${s.name}`,
            }))
        : [],
      email: v.insider && mailEnabled ? inboundAddress(org!.slug, g.slug, env.ORG_MAIL_DOMAIN) : null,
      created_on: g.created_on,
      last_modified: g.last_modified,
    };
  });
}

export async function groupInfo(
  env: Env,
  db: Db,
  caller: User | null,
  group: Group,
  view?: GroupView,
): Promise<GroupInfo | null> {
  const infos = await groupInfos(env, db, caller, [group], view ? new Map([[group.id, view]]) : undefined);
  return infos[0] ?? null;
}
