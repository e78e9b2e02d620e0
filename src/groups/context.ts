/**
 * Addressing groups in routes. The same sub-routes (roles, profile, options) exist under
 * three bases, one per kind of group:
 *   /v1/admin/groups/:group              user group: a slug of the caller's own, or @user~group
 *   /v1/admin/orgs/:org                  organisation
 *   /v1/admin/orgs/:org/groups/:group    organisation group
 * `groupRouter` registers a route under the bases it applies to, loads the group and the
 * caller's view of it, and refuses what the view does not allow: 404 when the group is
 * invisible to the caller, 403 when visible but not allowed.
 */
import type { ZodType } from 'zod';
import type { Api, Auth, ResponseSpec, RouteSpec, Scope } from '../core/api';
import type { Ctx } from '../core/context';
import { badRequest, forbidden, notFound } from '../core/errors';
import { groups, type Group } from '../db/schema';
import { groupAndParentOf, groupAndParentQuery } from './members';
import { sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { checkSlug, orgGroupRef, orgRef, parseGroupRef, userGroupRef, type GroupKind } from './model';
import { viewOfRows, viewReadsByRef, type GroupView } from './visibility';

export interface GroupCtx extends Ctx {
  group: Group;
  view: GroupView;
  /** The path the caller addressed the group by (no trailing slash). */
  base: string;
  /** The rows of the route's preload queries (GroupRouteSpec.preload), in order. */
  preloaded?: unknown[][];
}

/** Reads a group route asks for in the group's own D1 round trip; `groupId` is SQL naming the group's id. */
export type GroupPreload = (ctx: Ctx, groupId: SQL) => BatchItem<'sqlite'>[];

/** One of the three ways to address a group: its path pattern and how it names the group. */
export interface GroupBase {
  kind: GroupKind;
  pattern: string;
  /** The reference the request names (400 for malformed names, 404 when none can be named). */
  ref: (ctx: Ctx) => string;
  path: (ctx: Ctx) => string;
}

export const SCOPES: Record<GroupKind, GroupBase> = {
  user_group: {
    kind: 'user_group',
    pattern: '/v1/admin/groups/:group',
    ref: (ctx) => {
      const p = ctx.params.group!;
      if (p.startsWith('@')) {
        if (parseGroupRef(p).kind !== 'user_group')
          throw badRequest(`invalid group reference '${p}': expected @user~group`);
        return p;
      }
      checkSlug(p);
      if (!ctx.caller) throw notFound(`no such group: ${p}`);
      return userGroupRef(ctx.caller.username, p);
    },
    path: (ctx) => `/v1/admin/groups/${ctx.params.group}`,
  },
  org: {
    kind: 'org',
    pattern: '/v1/admin/orgs/:org',
    ref: (ctx) => orgRef(checkSlug(ctx.params.org!, 'organisation name')),
    path: (ctx) => `/v1/admin/orgs/${ctx.params.org}`,
  },
  org_group: {
    kind: 'org_group',
    pattern: '/v1/admin/orgs/:org/groups/:group',
    ref: (ctx) => orgGroupRef(checkSlug(ctx.params.org!, 'organisation name'), checkSlug(ctx.params.group!)),
    path: (ctx) => `/v1/admin/orgs/${ctx.params.org}/groups/${ctx.params.group}`,
  },
};
const ALL_KINDS: GroupKind[] = ['user_group', 'org', 'org_group'];

const userGroupRefOf = SCOPES.user_group.ref;
/**
 * More ways to address a group for its comment threads: the paths the platform's python
 * library builds (`groups/<group>` for the caller's user group, `users/<owner>/groups/<group>`,
 * `orgs/<org>/groups/<group>`), beside the admin paths.
 */
export const THREAD_BASES: GroupBase[] = [
  {
    kind: 'user_group',
    pattern: '/v1/groups/:group',
    ref: userGroupRefOf,
    path: (ctx) => `/v1/groups/${ctx.params.group}`,
  },
  {
    kind: 'user_group',
    pattern: '/v1/users/:owner/groups/:group',
    ref: (ctx) => userGroupRef(checkSlug(ctx.params.owner!, 'user name'), checkSlug(ctx.params.group!)),
    path: (ctx) => `/v1/users/${ctx.params.owner}/groups/${ctx.params.group}`,
  },
  {
    kind: 'org_group',
    pattern: '/v1/orgs/:org/groups/:group',
    ref: SCOPES.org_group.ref,
    path: (ctx) => `/v1/orgs/${ctx.params.org}/groups/${ctx.params.group}`,
  },
];

/** What a route needs from the caller's view of the group. */
type Need = 'see' | 'profile' | 'description' | 'roster' | 'insider' | 'manage';

const REFUSALS: Record<Exclude<Need, 'see'>, string> = {
  profile: 'the profile of this group is not shown to you',
  description: 'the description of this group is not shown to you',
  roster: 'the members of this group are not shown to you',
  insider: 'only members of the group (and founders and admins of its organisation) may read this',
  manage: 'only founders and admins of the group may change this',
};

function requireView(view: GroupView, need: Need): void {
  if (need === 'see' || view[need]) return;
  throw forbidden(REFUSALS[need]);
}

export async function loadGroup(ctx: Ctx, scope: GroupBase, preload?: GroupPreload): Promise<GroupCtx> {
  const ref = scope.ref(ctx);
  const missing = () => notFound(`no such group: ${ref}`);
  const groupId = sql`(select ${groups.id} from ${groups} where ${groups.ref} = ${ref})`;
  const extra = preload?.(ctx, groupId) ?? [];
  // The group, its organisation, what the caller's view of it rests on and the route's reads: one round trip.
  const viewReads = viewReadsByRef(ctx.db, ctx.caller, ref);
  const [rows, ...rest] = (await ctx.db.batch([groupAndParentQuery(ctx.db, ref), ...viewReads, ...extra])) as [
    Group[],
    ...unknown[][],
  ];
  const preloaded = rest.slice(viewReads.length);
  const { group, parent } = groupAndParentOf(rows, ref);
  if (!group || group.kind !== scope.kind) throw missing();
  const view = viewOfRows(group, parent, rest.slice(0, viewReads.length));
  if (!view.visible) throw missing();
  return { ...ctx, group, view, base: scope.path(ctx), ...(extra.length ? { preloaded } : {}) };
}

interface GroupRouteSpec<S extends ZodType | undefined = undefined> extends Omit<
  RouteSpec<S, GroupCtx>,
  'auth' | 'tag' | 'handler'
> {
  need: Need;
  auth?: Auth;
  kinds?: GroupKind[];
  /** Reads batched with the group's own (gc.preloaded): fewer D1 round trips. */
  preload?: GroupPreload;
  responses: Record<number, ResponseSpec>;
  handler: (gc: GroupCtx) => Response | Promise<Response>;
}

/** Routes below a group (`g.get('/roles', ...)`), under the base of every kind in `spec.kinds`. */
export type GroupRoutes = Scope<GroupCtx, GroupScoped>;
type GroupScoped = Pick<GroupRouteSpec, 'need' | 'auth' | 'kinds' | 'preload'>;

/**
 * The group scope: loads the group and the caller's view of it, and refuses what the view does not allow (`bases`: the
 * paths it is mounted under; the admin paths by default).
 */
export function groupRouter(api: Api, bases: GroupBase[] = ALL_KINDS.map((k) => SCOPES[k])): GroupRoutes {
  const scopeOf = new Map(bases.map((b) => [b.pattern, b]));
  return api.scope<GroupCtx, GroupScoped>({
    prefixes: bases.map((b) => b.pattern),
    under: (spec) => bases.filter((b) => (spec.kinds ?? ALL_KINDS).includes(b.kind)).map((b) => b.pattern),
    tag: 'groups',
    auth: (spec) => spec.auth ?? 'user',
    summary: (summary, prefix) => `${summary} (${scopeOf.get(prefix)!.kind.replace('_', ' ')})`,
    enter: async (ctx, spec, prefix) => {
      const gc = await loadGroup(ctx, scopeOf.get(prefix)!, spec.preload);
      requireView(gc.view, spec.need);
      return gc;
    },
  });
}
