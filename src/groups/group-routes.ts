/**
 * Groups as such: creating user groups, organisations and org groups; the caller's lists
 * of them; a group's folder and its deletion; the user groups a user shows to others.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Api } from '../core/api';
import type { Ctx } from '../core/context';
import { badRequest, forbidden, notFound } from '../core/errors';
import { freshCaller } from '../core/auth';
import { jsonResponse, noContent } from '../core/http';
import { listingResponse, listingResponses, type ListingItem, type Verb } from '../core/listing';
import { groups, users, type Group, type Role, type User } from '../db/schema';
import { loadGroup, SCOPES, type GroupRoutes } from './context';
import { groupEntry, groupItem } from './group-listing';
import { createGroup, deleteGroup, groupsOfMember, type NewGroup } from './members';
import { checkSlug, isManager, orgGroupRef, orgRef, userGroupRef } from './model';
import { infoSchema } from './responses';
import { adminPath, groupInfo } from './group-info';
import { decideView, visibleGroups } from './visibility';

const tag = 'groups';
const created = { 201: { description: 'Created', type: 'application/json', schema: infoSchema } };

/** The view of a group's active founder: it sees everything the info object shows, whatever else holds. */
const founderView = (g: Group) =>
  decideView({
    kind: g.kind,
    membership: { role: 'founders', state: 'active' },
    orgRole: null,
    inChildGroup: false,
    options: new Set(),
    parentPublic: true,
    premium: false,
  });

/** Creates the group and answers its info object as its founder sees it (201). */
async function create(ctx: Ctx, g: NewGroup, founder: User, onePerOwner?: boolean): Promise<Response> {
  const group = await createGroup(ctx.env, ctx.db, g, founder, onePerOwner);
  return jsonResponse(await groupInfo(ctx.env, ctx.db, founder, group, founderView(group)), { status: 201 });
}

export function creationRoutes(api: Api): void {
  api.put('/v1/admin/groups/:group', {
    summary: 'Create a user group (the caller becomes its founder)',
    tag,
    auth: 'user',
    responses: created,
    handler: async (ctx) => {
      const slug = ctx.params.group!;
      if (slug.startsWith('@'))
        throw badRequest('create a group with its slug: PUT /v1/admin/groups/<group> creates @<you>~<group>');
      checkSlug(slug);
      const caller = ctx.caller!;
      return create(
        ctx,
        { kind: 'user_group', slug, ref: userGroupRef(caller.username, slug), owner_id: caller.id, parent_id: null },
        caller,
      );
    },
  });

  api.put('/v1/admin/orgs/:org', {
    summary: 'Create an organisation (organisation accounts only, one per account)',
    tag,
    auth: 'user',
    responses: { ...created, 403: { description: 'Not an organisation account, or it already has one' } },
    handler: async (ctx) => {
      const slug = checkSlug(ctx.params.org!, 'organisation name');
      const caller = await freshCaller(ctx);
      if (caller.account !== 'organisation')
        throw forbidden(
          `only organisation accounts can create organisations, and ${caller.username} is a user account: the operator makes one with PUT /v1/ops/users/<name> and {"account": "organisation", "password": ...}; signed in as it, PUT /v1/admin/orgs/<org>`,
        );
      return create(ctx, { kind: 'org', slug, ref: orgRef(slug), owner_id: caller.id, parent_id: null }, caller, true);
    },
  });

  api.put('/v1/admin/orgs/:org/groups/:group', {
    summary: 'Create an organisation group (org founders and admins; the creator becomes its founder)',
    tag,
    auth: 'user',
    responses: created,
    handler: async (ctx) => {
      const slug = checkSlug(ctx.params.group!);
      const org = await loadGroup(ctx, SCOPES.org);
      if (!org.view.manage) throw forbidden('only founders and admins of the organisation create its groups');
      return create(
        ctx,
        { kind: 'org_group', slug, ref: orgGroupRef(org.group.slug, slug), owner_id: null, parent_id: org.group.id },
        ctx.caller!,
      );
    },
  });
}

/** Where each of `list` is administered, knowing the slugs of their organisations (one query). */
async function adminPaths(ctx: Ctx, list: Group[]): Promise<(g: Group) => string> {
  const ids = [...new Set(list.filter((g) => g.parent_id !== null).map((g) => g.parent_id!))];
  const rows = ids.length
    ? await ctx.db.select({ id: groups.id, slug: groups.slug }).from(groups).where(inArray(groups.id, ids))
    : [];
  const slugs = new Map(rows.map((r) => [r.id, r.slug]));
  return (g) => adminPath(g, slugs.get(g.parent_id ?? -1) ?? null);
}

/** The caller's view of a group they belong to, as far as a listing shows it. */
const memberView = (role: Role) => ({ manage: isManager(role), role });

export function callerGroupRoutes(api: Api): void {
  api.get('/v1/admin/groups', {
    summary: "Groups the caller belongs to, keyed by slug (other users' groups and org groups by reference)",
    tag,
    auth: 'user',
    responses: listingResponses,
    handler: async (ctx) => {
      const caller = ctx.caller!;
      const rows = await groupsOfMember(ctx.db, caller.id, ['user_group', 'org_group']);
      const pathOf = await adminPaths(
        ctx,
        rows.map((r) => r.group),
      );
      const mine = `@${caller.username}~`;
      return listingResponse(
        ctx.url,
        rows.map(({ group, role }) => {
          const own = group.ref.startsWith(mine);
          return groupItem(
            group,
            memberView(role),
            own ? group.slug : group.ref,
            own ? `/v1/admin/groups/${group.slug}` : pathOf(group),
          );
        }),
      );
    },
  });

  api.get('/v1/admin/orgs', {
    summary: 'Organisations the caller belongs to',
    tag,
    auth: 'user',
    responses: listingResponses,
    handler: async (ctx) => {
      const rows = await groupsOfMember(ctx.db, ctx.caller!.id, ['org']);
      return listingResponse(
        ctx.url,
        rows.map(({ group, role }) => groupItem(group, memberView(role), group.slug, `/v1/admin/orgs/${group.slug}`)),
      );
    },
  });

  api.get('/v1/groups', {
    summary:
      'Groups and organisations the caller belongs to, each named by its reference (@user~group, +org~group, +org)',
    tag,
    auth: 'user',
    responses: listingResponses,
    handler: async (ctx) => {
      const rows = await groupsOfMember(ctx.db, ctx.caller!.id);
      const pathOf = await adminPaths(
        ctx,
        rows.map((r) => r.group),
      );
      return listingResponse(
        ctx.url,
        rows.map(({ group, role }) => groupItem(group, memberView(role), group.ref, pathOf(group))),
      );
    },
  });
}

export function groupFolderRoutes(g: GroupRoutes): void {
  g.get('', {
    summary: 'Group folder: profile, roles, role, threads (members), groups of an org, email of an org group',
    need: 'see',
    responses: listingResponses,
    handler: (gc) => {
      const at = (name: string, type: 'dir' | 'file', actions: Verb[] = ['GET']): ListingItem => ({
        name,
        uri: `${gc.base}/${name}`,
        ...groupEntry(gc.group, gc.view),
        type,
        actions,
      });
      const items = [at('profile', 'dir'), at('roles', 'dir'), at('role', 'file')];
      if (gc.view.insider) items.push(at('threads', 'dir'));
      if (gc.group.kind === 'org') items.push(at('groups', 'dir'));
      if (gc.group.kind === 'org_group' && gc.view.insider)
        items.push({ ...at('email', 'file'), uri: `/v1/orgs/${gc.params.org}/groups/${gc.group.slug}/email` });
      return listingResponse(gc.url, items);
    },
  });

  g.delete('', {
    summary:
      'Delete the group with its roles, invites, profile, threads and shares; an organisation takes its groups with it (founders only)',
    need: 'see',
    // An organisation's groups (their pictures go too), read with the group.
    preload: (ctx, groupId) => [ctx.db.select({ id: groups.id }).from(groups).where(eq(groups.parent_id, groupId))],
    responses: { 204: { description: 'Deleted' }, 403: { description: 'Not a founder of the group' } },
    handler: async (gc) => {
      if (gc.view.role !== 'founders') throw forbidden('only founders of the group may delete it');
      const children = gc.group.kind === 'org' ? (gc.preloaded![0] as { id: number }[]) : [];
      await deleteGroup(gc.env, gc.db, [gc.group.id, ...children.map((c) => c.id)]);
      return noContent();
    },
  });
}

export function userGroupsRoute(api: Api): void {
  api.get('/v1/users/:user/groups', {
    summary: "A user's groups (@user~group) visible to the caller",
    tag,
    auth: 'optional',
    responses: listingResponses,
    handler: async (ctx) => {
      const name = ctx.params.user!;
      const owner = await ctx.db.select({ id: users.id }).from(users).where(eq(users.username, name)).get();
      if (!owner) throw notFound(`no such user: ${name}`);
      const list = await ctx.db
        .select()
        .from(groups)
        .where(and(eq(groups.kind, 'user_group'), eq(groups.owner_id, owner.id)))
        .orderBy(asc(groups.slug));
      const seen = await visibleGroups(ctx.db, ctx.caller, list);
      return listingResponse(
        ctx.url,
        seen.map(({ group, view }) => groupItem(group, view, group.slug, `/v1/admin/groups/${group.ref}`)),
      );
    },
  });
}
