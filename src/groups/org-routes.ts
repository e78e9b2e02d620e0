/**
 * Browsing organisations (read-only): the organisations visible to the caller, an
 * organisation's card and its /v1/o/:org aliases (card, pictures, sections), the groups of
 * an organisation, an org group's info object and its inbound address.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import * as z from 'zod';
import type { Api } from '../core/api';
import type { Ctx } from '../core/context';
import { forbidden, notFound } from '../core/errors';
import { text } from '../core/examples';
import { jsonResponse, textResponse } from '../core/http';
import { listingResponse, listingResponses, listingSchema } from '../core/listing';
import { groups, type Group } from '../db/schema';
import { loadGroup, SCOPES, type GroupCtx } from './context';
import { inboundAddressFrom, inboundAddressReads } from './inbound';
import { groupItem } from './group-listing';
import { orgSection } from './org-sections';
import { servePicture } from './profile';
import { infoSchema, orgSchema } from './responses';
import { sharedItemSchema } from './shared-items';
import { groupInfo } from './group-info';
import { candidateOrgs, viewsOf, visibleGroups, type GroupView } from './visibility';

const tag = 'groups';

type Seen = { group: Group; view: GroupView }[];

const orgGroupItems = (org: Group, seen: Seen, prefix: string) =>
  seen.map(({ group, view }) => groupItem(group, view, group.slug, `${prefix}/${org.slug}/groups/${group.slug}`));

/**
 * The organisation a request names with its groups and the caller's views of them all, in
 * two D1 round trips (the rows, then the views): as loadGroup then the org_group children it
 * has, kept when visible; 404 alike.
 */
async function loadOrgWithGroups(ctx: Ctx): Promise<{ org: GroupCtx; seen: Seen }> {
  const scope = SCOPES.org;
  const ref = scope.ref(ctx);
  const orgId = sql`(select ${groups.id} from ${groups} where ${groups.ref} = ${ref})`;
  const [rows, children] = await ctx.db.batch([
    ctx.db.select().from(groups).where(eq(groups.ref, ref)),
    ctx.db
      .select()
      .from(groups)
      .where(and(eq(groups.kind, 'org_group'), eq(groups.parent_id, orgId)))
      .orderBy(asc(groups.slug)),
  ]);
  const group = rows[0];
  if (!group || group.kind !== scope.kind) throw notFound(`no such group: ${ref}`);
  const views = await viewsOf(ctx.db, ctx.caller, [group, ...children]);
  const view = views.get(group.id)!;
  if (!view.visible) throw notFound(`no such group: ${ref}`);
  const seen = children.filter((g) => views.get(g.id)!.visible).map((g) => ({ group: g, view: views.get(g.id)! }));
  return { org: { ...ctx, group, view, base: scope.path(ctx) }, seen };
}

export function orgRoutes(api: Api): void {
  api.get('/v1/orgs', {
    summary: 'Organisations visible to the caller',
    tag,
    auth: 'optional',
    responses: listingResponses,
    handler: async (ctx) => {
      const candidates = await candidateOrgs(ctx.db, ctx.caller);
      const seen = await visibleGroups(ctx.db, ctx.caller, candidates);
      return listingResponse(
        ctx.url,
        seen.map(({ group, view }) => groupItem(group, view, group.slug, `/v1/orgs/${group.slug}`)),
      );
    },
  });

  for (const path of ['/v1/orgs/:org', '/v1/o/:org', '/v1/o/:org/card']) {
    api.get(path, {
      summary: path.startsWith('/v1/o/')
        ? 'Organisation card (alias)'
        : 'Organisation: description, profile and the groups visible to the caller',
      tag,
      auth: 'optional',
      responses: {
        200: {
          description: 'Organisation info object with groups',
          type: 'application/json',
          schema: orgSchema,
        },
      },
      handler: async (ctx) => {
        const { org, seen } = await loadOrgWithGroups(ctx);
        const info = await groupInfo(ctx.env, ctx.db, ctx.caller, org.group, org.view);
        return jsonResponse({ ...info!, groups: orgGroupItems(org.group, seen, '/v1/orgs') });
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
      "The organisation's visuals visible to the caller: d (documents), g (grids), m (e-mails), p (plots), v (variables of its documents, as <doc>/<var>). With a group reference (@user~group, +org~group, +org) instead of an organisation: the items of kind d, g, m, j or p shared with that group that the caller can read ({id, name, type, summary, uri, shared, updated})",
    tag,
    auth: 'optional',
    responses: {
      200: {
        description: 'Listing (organisation), or the shared items (group reference)',
        type: 'application/json',
        schema: () => z.union([listingSchema(), z.array(sharedItemSchema())]),
      },
    },
    handler: orgSection,
  });

  for (const prefix of ['/v1/orgs', '/v1/admin/orgs']) {
    api.get(`${prefix}/:org/groups`, {
      summary:
        'Groups of an organisation: all for its founders and admins; otherwise those the caller belongs to or that are public',
      tag,
      auth: prefix === '/v1/orgs' ? 'optional' : 'user',
      responses: listingResponses,
      handler: async (ctx) => {
        const { org, seen } = await loadOrgWithGroups(ctx);
        return listingResponse(ctx.url, orgGroupItems(org.group, seen, prefix));
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
    responses: {
      200: {
        description: 'The address or empty',
        type: 'text/plain',
        schema: () => text('analysts@acme.mail.example'),
      },
    },
    handler: async (ctx) => {
      // The organisation and both mail options read with the group.
      const g = await loadGroup(ctx, SCOPES.org_group, (c, groupId) => inboundAddressReads(c.db, groupId));
      if (!g.view.insider) throw forbidden('only members of the group read its address');
      return textResponse(inboundAddressFrom(ctx.env, g.group, g.preloaded!) ?? '');
    },
  });
}
