/**
 * Routes of the groups area: creating user groups, organisations and org groups; the
 * group folders; roles and invites (roles.ts); profiles and options (profile.ts); and the
 * read-only browsing views (/v1/orgs, /v1/users/:user/groups, /v1/o/:org).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Api } from '../core/api';
import type { Ctx } from '../core/context';
import { badRequest, forbidden, notFound } from '../core/errors';
import { freshCaller } from '../core/auth';
import { jsonResponse, noContent, textResponse } from '../core/http';
import { listingResponse, listingResponses, listingSchema, type ListingItem, type Verb } from '../core/listing';
import type { Perm } from '../core/perms';
import { visibleWhere, type ResourceKind } from '../core/resource';
import { threadRoutes } from '../core/threads';
import { entries, groups, resources, users, type Group } from '../db/schema';
import { varsFromEntries } from '../docs/vars';
import { groupRouter, loadGroup, SCOPES, type GroupCtx, type GroupRoutes } from './context';
import { createGroup, groupsOfMember } from './members';
import { checkSlug, inboundAddress, isManager, orgGroupRef, orgRef, PICTURES, userGroupRef, type Picture } from './model';
import { optionIsOn, pictureKey, profileRoutes, servePicture } from './profile';
import { inviteRoutes, roleRoutes } from './role-routes';
import { groupSharedItems, isGroupRefSegment, sharedItemSchema } from './shared-items';
import { adminPath, candidateOrgs, groupInfo, viewsOf, visibleGroups, type GroupView } from './visibility';

const tag = 'groups';
const infoSchema = z.object({
  name: z.string(),
  ref: z.string(),
  kind: z.enum(['user_group', 'org', 'org_group']),
  org: z.string().nullable(),
  uri: z.string(),
  description: z.string().nullable(),
  profile: z.unknown(),
  role: z.string(),
  members: z.array(z.object({ username: z.string(), role: z.string(), state: z.string() })).nullable(),
  shared: z.array(z.unknown()),
  email: z.string().nullable(),
});

/** A group as a listing entry; extra fields ref, kind and role (the caller's, or empty). */
function groupItem(g: Group, view: GroupView, name: string, uri: string): ListingItem & { ref: string; kind: string; role: string } {
  return {
    name,
    uri,
    type: 'dir',
    permissions: view.manage ? ['r', 'w'] : ['r'],
    actions: ['GET'],
    created_on: g.created_on,
    last_modified: g.last_modified,
    ref: g.ref,
    kind: g.kind,
    role: view.role ?? '',
  };
}

const orgGroupItems = (org: Group, seen: { group: Group; view: GroupView }[], prefix: string) =>
  seen.map(({ group, view }) => groupItem(group, view, group.slug, `${prefix}/${org.slug}/groups/${group.slug}`));

async function orgCard(ctx: Ctx, org: Group, view: GroupView, seen: { group: Group; view: GroupView }[]) {
  const info = await groupInfo(ctx.env, ctx.db, ctx.caller, org, view);
  return { ...info!, groups: orgGroupItems(org, seen, '/v1/orgs') };
}

/**
 * The organisation a request names with its groups and the caller's views of them all, in
 * two D1 round trips (the rows, then the views): as loadGroup then the org_group children it
 * has, kept when visible; 404 alike.
 */
async function loadOrgWithGroups(ctx: Ctx): Promise<{ org: GroupCtx; seen: { group: Group; view: GroupView }[] }> {
  const scope = SCOPES.org;
  const ref = scope.ref(ctx);
  const orgId = sql`(select ${groups.id} from ${groups} where ${groups.ref} = ${ref})`;
  const [rows, children] = await ctx.db.batch([
    ctx.db.select().from(groups).where(eq(groups.ref, ref)),
    ctx.db.select().from(groups).where(and(eq(groups.kind, 'org_group'), eq(groups.parent_id, orgId))).orderBy(asc(groups.slug)),
  ]);
  const group = rows[0];
  if (!group || group.kind !== scope.kind) throw notFound(`no such group: ${ref}`);
  const views = await viewsOf(ctx.db, ctx.caller, [group, ...children]);
  const view = views.get(group.id)!;
  if (!view.visible) throw notFound(`no such group: ${ref}`);
  const seen = children.filter((g) => views.get(g.id)!.visible).map((g) => ({ group: g, view: views.get(g.id)! }));
  return { org: { ...ctx, group, view, base: scope.path(ctx) }, seen };
}

const DOC_KINDS: Record<string, Pick<ResourceKind, 'kind' | 'collection'>> = {
  d: { kind: 'doc', collection: 'vis/docs' },
  g: { kind: 'grid', collection: 'vis/grids' },
  m: { kind: 'mail', collection: 'vis/mails' },
};

export function groupRoutes(api: Api): void {
  const g = groupRouter(api);
  // ------------------------------------------------------------ creation

  api.put('/v1/admin/groups/:group', {
    summary: 'Create a user group (the caller becomes its founder)',
    tag,
    auth: 'user',
    responses: { 201: { description: 'Created', type: 'application/json', schema: infoSchema } },
    handler: async (ctx) => {
      const slug = ctx.params.group!;
      if (slug.startsWith('@')) throw badRequest('create a group with its slug: PUT /v1/admin/groups/<group> creates @<you>~<group>');
      checkSlug(slug);
      const caller = ctx.caller!;
      const g = await createGroup(ctx.env, ctx.db, { kind: 'user_group', slug, ref: userGroupRef(caller.username, slug), owner_id: caller.id, parent_id: null }, caller);
      return jsonResponse(await groupInfo(ctx.env, ctx.db, caller, g), { status: 201 });
    },
  });

  api.put('/v1/admin/orgs/:org', {
    summary: 'Create an organisation (organisation accounts only, one per account)',
    tag,
    auth: 'user',
    responses: { 201: { description: 'Created', type: 'application/json', schema: infoSchema }, 403: { description: 'Not an organisation account, or it already has one' } },
    handler: async (ctx) => {
      const slug = checkSlug(ctx.params.org!, 'organisation name');
      const caller = await freshCaller(ctx);
      if (caller.account !== 'organisation') throw forbidden('only organisation accounts can create organisations');
      const g = await createGroup(ctx.env, ctx.db, { kind: 'org', slug, ref: orgRef(slug), owner_id: caller.id, parent_id: null }, caller, true);
      return jsonResponse(await groupInfo(ctx.env, ctx.db, caller, g), { status: 201 });
    },
  });

  api.put('/v1/admin/orgs/:org/groups/:group', {
    summary: 'Create an organisation group (org founders and admins; the creator becomes its founder)',
    tag,
    auth: 'user',
    responses: { 201: { description: 'Created', type: 'application/json', schema: infoSchema } },
    handler: async (ctx) => {
      const slug = checkSlug(ctx.params.group!);
      const org = await loadGroup(ctx, SCOPES.org);
      if (!org.view.manage) throw forbidden('only founders and admins of the organisation create its groups');
      const g = await createGroup(ctx.env, ctx.db, { kind: 'org_group', slug, ref: orgGroupRef(org.group.slug, slug), owner_id: null, parent_id: org.group.id }, ctx.caller!);
      return jsonResponse(await groupInfo(ctx.env, ctx.db, ctx.caller, g), { status: 201 });
    },
  });

  // ------------------------------------------------------------ the caller's groups

  api.get('/v1/admin/groups', {
    summary: "Groups the caller belongs to, keyed by slug (other users' groups and org groups by reference)",
    tag,
    auth: 'user',
    responses: listingResponses,
    handler: async (ctx) => {
      const caller = ctx.caller!;
      const rows = await groupsOfMember(ctx.db, caller.id, ['user_group', 'org_group']);
      const parents = await parentSlugs(ctx, rows.map((r) => r.group));
      const mine = `@${caller.username}~`;
      return listingResponse(
        rows.map(({ group, role }) => {
          const own = group.ref.startsWith(mine);
          const view = { manage: isManager(role), role } as GroupView;
          return groupItem(group, view, own ? group.slug : group.ref, own ? `/v1/admin/groups/${group.slug}` : adminPath(group, parents.get(group.parent_id ?? -1) ?? null));
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
      return listingResponse(rows.map(({ group, role }) => groupItem(group, { manage: isManager(role), role } as GroupView, group.slug, `/v1/admin/orgs/${group.slug}`)));
    },
  });

  api.get('/v1/groups', {
    summary: 'Groups and organisations the caller belongs to, each named by its reference (@user~group, +org~group, +org)',
    tag,
    auth: 'user',
    responses: listingResponses,
    handler: async (ctx) => {
      const rows = await groupsOfMember(ctx.db, ctx.caller!.id);
      const parents = await parentSlugs(ctx, rows.map((r) => r.group));
      return listingResponse(
        rows.map(({ group, role }) =>
          groupItem(group, { manage: isManager(role), role } as GroupView, group.ref, adminPath(group, parents.get(group.parent_id ?? -1) ?? null)),
        ),
      );
    },
  });

  g.get('', {
    summary: 'Group folder: profile, roles, role, threads (members), groups of an org, email of an org group',
    need: 'see',
    responses: listingResponses,
    handler: (gc: GroupCtx) => {
      const at = (name: string, type: 'dir' | 'file', actions: Verb[] = ['GET']): ListingItem => ({
        name,
        uri: `${gc.base}/${name}`,
        type,
        permissions: gc.view.manage ? ['r', 'w'] : ['r'],
        actions,
        created_on: gc.group.created_on,
        last_modified: gc.group.last_modified,
      });
      const items = [at('profile', 'dir'), at('roles', 'dir'), at('role', 'file')];
      if (gc.view.insider) items.push(at('threads', 'dir'));
      if (gc.group.kind === 'org') items.push(at('groups', 'dir'));
      if (gc.group.kind === 'org_group' && gc.view.insider) items.push({ ...at('email', 'file'), uri: `/v1/orgs/${gc.params.org}/groups/${gc.group.slug}/email` });
      return listingResponse(items);
    },
  });

  g.delete('', {
    summary: 'Delete the group with its roles, invites, profile, threads and shares; an organisation takes its groups with it (founders only)',
    need: 'see',
    responses: { 204: { description: 'Deleted' }, 403: { description: 'Not a founder of the group' } },
    handler: async (gc) => {
      if (gc.view.role !== 'founders') throw forbidden('only founders of the group may delete it');
      const children = gc.group.kind === 'org' ? await gc.db.select({ id: groups.id }).from(groups).where(eq(groups.parent_id, gc.group.id)) : [];
      // Roles, profile entries, shares to the group, threads and an org's groups cascade in D1.
      await gc.db.delete(groups).where(eq(groups.id, gc.group.id));
      const ids = [gc.group.id, ...children.map((c) => c.id)];
      await gc.env.BLOBS.delete(ids.flatMap((id) => (Object.keys(PICTURES) as Picture[]).map((p) => pictureKey(id, p))));
      return noContent();
    },
  });

  roleRoutes(g);
  inviteRoutes(api);
  profileRoutes(g);
  groupThreadRoutes(g);

  // ------------------------------------------------------------ browsing

  api.get('/v1/orgs', {
    summary: 'Organisations visible to the caller',
    tag,
    auth: 'optional',
    responses: listingResponses,
    handler: async (ctx) => {
      const candidates = await candidateOrgs(ctx.db, ctx.caller);
      const seen = await visibleGroups(ctx.db, ctx.caller, candidates);
      return listingResponse(seen.map(({ group, view }) => groupItem(group, view, group.slug, `/v1/orgs/${group.slug}`)));
    },
  });

  for (const path of ['/v1/orgs/:org', '/v1/o/:org', '/v1/o/:org/card']) {
    api.get(path, {
      summary: path.startsWith('/v1/o/') ? 'Organisation card (alias)' : 'Organisation: description, profile and the groups visible to the caller',
      tag,
      auth: 'optional',
      responses: { 200: { description: 'Organisation info object with groups', type: 'application/json', schema: infoSchema.extend({ groups: listingSchema }) } },
      handler: async (ctx) => {
        const { org, seen } = await loadOrgWithGroups(ctx);
        return jsonResponse(await orgCard(ctx, org.group, org.view, seen));
      },
    });
  }

  for (const which of ['img', 'banner'] as const) {
    api.get(`/v1/o/:org/${which}`, {
      summary: `Organisation ${which === 'img' ? 'avatar' : 'banner'} (alias)`,
      tag,
      auth: 'optional',
      responses: { 200: { description: 'The image', type: 'image/*' } },
      handler: async (ctx) => {
        const org = await loadGroup(ctx, SCOPES.org);
        if (!org.view.profile) throw forbidden('the profile of this organisation is not shown to you');
        return servePicture(ctx.env, ctx.db, org.group, which === 'img' ? 'image' : 'banner');
      },
    });
  }

  api.get('/v1/o/:org/:section', {
    summary:
      "The organisation's visuals visible to the caller: d (documents), g (grids), m (e-mails), v (variables of its documents, as <doc>/<var>); p (plots) is always empty: the platform has no plot resources. With a group reference (@user~group, +org~group, +org) instead of an organisation: the items of kind d, g, m or j shared with that group that the caller can read ({id, name, type, summary, uri, shared, updated})",
    tag,
    auth: 'optional',
    responses: { 200: { description: 'Listing (organisation), or the shared items (group reference)', type: 'application/json', schema: z.union([listingSchema, z.array(sharedItemSchema)]) } },
    handler: async (ctx) => {
      const section = ctx.params.section!;
      if (isGroupRefSegment(ctx.params.org!)) return groupSharedItems(ctx, ctx.params.org!, section);
      if (!['p', 'g', 'm', 'd', 'v'].includes(section)) throw notFound(`no such section '${section}': p, g, m, d or v`);
      const org = await loadGroup(ctx, SCOPES.org);
      if (section === 'p' || org.group.owner_id === null) return listingResponse([]);
      const owner = (await ctx.db.select({ username: users.username }).from(users).where(eq(users.id, org.group.owner_id)).get())!;
      const own = ctx.caller?.id === org.group.owner_id;
      if (section === 'v') return listingResponse(await orgVariables(ctx, org.group.owner_id, owner.username, own));
      const kind = DOC_KINDS[section]!;
      const list = await ctx.db.select().from(resources).where(visibleWhere(ctx, kind.kind, org.group.owner_id, own)).orderBy(asc(resources.name));
      return listingResponse(
        list.map((r) => ({
          name: r.name,
          uri: `/v1/users/${owner.username}/${kind.collection}/${r.name}`,
          type: 'dir' as const,
          permissions: own ? ['r', 'w', 'd'] : ['r'],
          actions: ['GET'] as Verb[],
          created_on: r.created_on,
          last_modified: r.last_modified,
        })),
      );
    },
  });

  for (const prefix of ['/v1/orgs', '/v1/admin/orgs']) {
    api.get(`${prefix}/:org/groups`, {
      summary: 'Groups of an organisation: all for its founders and admins; otherwise those the caller belongs to or that are public',
      tag,
      auth: prefix === '/v1/orgs' ? 'optional' : 'user',
      responses: listingResponses,
      handler: async (ctx) => {
        const { org, seen } = await loadOrgWithGroups(ctx);
        return listingResponse(orgGroupItems(org.group, seen, prefix));
      },
    });
  }

  api.get('/v1/orgs/:org/groups/:group', {
    summary: 'Group info object: name, description, profile, role, members, shared content, email',
    tag,
    auth: 'optional',
    responses: { 200: { description: 'Group info object', type: 'application/json', schema: infoSchema } },
    handler: async (ctx) => {
      const g = await loadGroup(ctx, SCOPES.org_group);
      return jsonResponse(await groupInfo(ctx.env, ctx.db, ctx.caller, g.group, g.view));
    },
  });

  api.get('/v1/orgs/:org/groups/:group/email', {
    summary: 'Inbound address of an org group; empty when not mail-enabled (members, superusers, admins, founders)',
    tag,
    auth: 'user',
    responses: { 200: { description: 'The address or empty', type: 'text/plain' } },
    handler: async (ctx) => {
      const g = await loadGroup(ctx, SCOPES.org_group);
      if (!g.view.insider) throw forbidden('only members of the group read its address');
      return textResponse((await inboundAddressOf(ctx.env, ctx.db, g.group)) ?? '');
    },
  });

  api.get('/v1/users/:user/groups', {
    summary: "A user's groups (@user~group) visible to the caller",
    tag,
    auth: 'optional',
    responses: listingResponses,
    handler: async (ctx) => {
      const name = ctx.params.user!;
      const owner = await ctx.db.select({ id: users.id }).from(users).where(eq(users.username, name)).get();
      if (!owner) throw notFound(`no such user: ${name}`);
      const list = await ctx.db.select().from(groups).where(and(eq(groups.kind, 'user_group'), eq(groups.owner_id, owner.id))).orderBy(asc(groups.slug));
      const seen = await visibleGroups(ctx.db, ctx.caller, list);
      return listingResponse(seen.map(({ group, view }) => groupItem(group, view, group.slug, `/v1/admin/groups/${group.ref}`)));
    },
  });
}

/**
 * The variables of the organisation account's documents the caller may read, each named
 * `<doc>/<var>` and pointing at the read-only alias. One query for every document: the
 * `vars/` entries of the visible documents, folded by the docs area's `varsFromEntries`.
 * (Variable attributes are at most 4 KiB, so they are always stored inline in D1.)
 */
async function orgVariables(ctx: Ctx, ownerId: number, owner: string, own: boolean): Promise<ListingItem[]> {
  const rows = await ctx.db
    .select({ doc: resources.name, path: entries.path, value: entries.value, created_on: entries.created_on, last_modified: entries.last_modified })
    .from(entries)
    .innerJoin(resources, eq(resources.id, entries.resource_id))
    .where(and(visibleWhere(ctx, 'doc', ownerId, own), sql`substr(${entries.path}, 1, 5) = 'vars/'`))
    .orderBy(asc(resources.name), asc(entries.path));
  const byDoc = new Map<string, typeof rows>();
  for (const r of rows) {
    const list = byDoc.get(r.doc);
    if (list) list.push(r);
    else byDoc.set(r.doc, [r]);
  }
  return [...byDoc].flatMap(([doc, docRows]) =>
    varsFromEntries(new Map(docRows.map((r) => [r.path, r.value ?? '']))).map((v) => {
      const attrs = docRows.filter((r) => r.path.startsWith(`vars/${v.name}/`));
      return {
        name: `${doc}/${v.name}`,
        uri: `/v1/u/${owner}/d/${doc}/v/${v.name}`,
        type: 'file' as const,
        permissions: ['r'] as Perm[],
        actions: ['GET'] as Verb[],
        created_on: attrs.reduce((m, r) => (r.created_on < m ? r.created_on : m), attrs[0]!.created_on),
        last_modified: attrs.reduce((m, r) => (r.last_modified > m ? r.last_modified : m), attrs[0]!.last_modified),
      };
    }),
  );
}

/**
 * Comment threads of the three group trees (src/core/threads.ts): accepted members of any
 * role read and write, founders and admins moderate; founders and admins of an org read
 * the threads of its groups (oversight is read-only). Everyone else: 404.
 */
function groupThreadRoutes(g: GroupRoutes): void {
  threadRoutes<GroupCtx>(g.with({ need: 'see' }), {
    noun: 'group',
    subject: (gc) => ({ group_id: gc.group.id }),
    base: (gc) => gc.base,
    rights: (gc) => {
      if (!gc.view.insider) throw notFound('no comment threads here: the threads of a group are for its accepted members');
      return { permissions: gc.view.manage ? ['r', 'w', 'd'] : gc.view.role ? ['r', 'w'] : ['r'], moderator: gc.view.manage };
    },
    writeRefusal: (gc) =>
      gc.view.role ? null : "oversight is read-only: founders and admins of the organisation read its groups' threads; claim a role in the group to take part",
  });
}

async function parentSlugs(ctx: Ctx, list: Group[]): Promise<Map<number, string>> {
  const ids = [...new Set(list.filter((g) => g.parent_id !== null).map((g) => g.parent_id!))];
  if (!ids.length) return new Map();
  const rows = await ctx.db.select({ id: groups.id, slug: groups.slug }).from(groups).where(inArray(groups.id, ids));
  return new Map(rows.map((r) => [r.id, r.slug]));
}

/** The inbound address of an org group when its org and it are mail-enabled, else null. */
export async function inboundAddressOf(env: Env, db: Ctx['db'], group: Group): Promise<string | null> {
  if (group.kind !== 'org_group' || group.parent_id === null) return null;
  const org = await db.select().from(groups).where(eq(groups.id, group.parent_id)).get();
  if (!org) return null;
  const [orgOn, groupOn] = await Promise.all([optionIsOn(db, org.id, 'enable_subdomain'), optionIsOn(db, group.id, 'allow_inbound_mail')]);
  return orgOn && groupOn ? inboundAddress(org.slug, group.slug, env.ORG_MAIL_DOMAIN) : null;
}
