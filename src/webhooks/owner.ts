/**
 * Whose endpoints a route manages: the caller's own (/v1/admin/webhooks) or an
 * organisation's (/v1/admin/orgs/<org>/webhooks), the latter only for its active founders
 * and admins; anyone else gets 404, as if the organisation had no endpoints.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Ctx, UserCtx } from '../core/context';
import { notFound } from '../core/errors';
import { groups, members } from '../db/schema';

export const USER_PREFIX = '/v1/admin/webhooks';
export const ORG_PREFIX = '/v1/admin/orgs/:org/webhooks';

export interface OwnerCtx extends UserCtx {
  /** The account owning the endpoints (the caller, or the organisation's account). */
  ownerId: number;
  /** The path of the endpoints' listing, as the caller named it. */
  base: string;
}

export async function enterOwner(ctx: Ctx, prefix: string): Promise<OwnerCtx> {
  const caller = ctx.caller!;
  if (prefix === USER_PREFIX) return { ...ctx, caller, ownerId: caller.id, base: USER_PREFIX };
  const org = ctx.params.org ?? '';
  const row = await ctx.db
    .select({ owner: groups.owner_id })
    .from(groups)
    .innerJoin(members, eq(members.group_id, groups.id))
    .where(
      and(
        eq(groups.kind, 'org'),
        eq(groups.slug, org),
        eq(members.user_id, caller.id),
        eq(members.state, 'active'),
        inArray(members.role, ['founders', 'admins']),
      ),
    )
    .get();
  if (!row?.owner) throw notFound(`no organisation ${org} whose webhooks you manage`);
  return { ...ctx, caller, ownerId: row.owner, base: `/v1/admin/orgs/${org}/webhooks` };
}
