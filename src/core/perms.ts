/**
 * The r/w/d permission model, one module for every area. Access to a resource comes
 * from ownership or from its sharing entries:
 *   owner                      r w d x
 *   public                     r            (never runs: `viaPublicOnly`)
 *   @user~group[~p], +org~group[~p], +org[~p]
 *                              p (default r) for every *accepted* member; for jobs,
 *                              superusers, admins and founders may also execute (x)
 * Pending and declined memberships grant nothing. A group share is live only while the
 * resource's owner holds an active role in that group (`liveShare`): one made by an owner
 * who has since left, was removed or declined grants nothing until they are active again.
 */
import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { members, shares, type Resource, type User } from '../db/schema';
import type { Db } from './context';
import { touchesOwner } from './edge-cache';

export type Perm = 'r' | 'w' | 'd' | 'x';

export interface Access {
  r: boolean;
  w: boolean;
  d: boolean;
  /** Execute: trigger and cancel job runs. */
  x: boolean;
  owner: boolean;
  /** Read access comes only from a public share (runs stay hidden). */
  viaPublicOnly: boolean;
}

const NO_ACCESS: Access = { r: false, w: false, d: false, x: false, owner: false, viaPublicOnly: false };
export const OWNER_ACCESS: Access = { r: true, w: true, d: true, x: true, owner: true, viaPublicOnly: false };

const EXECUTING_ROLES = new Set(['superusers', 'admins', 'founders']);

export interface ShareGrant {
  group_id: number | null;
  perms: string;
  role: string | null;
}

/**
 * SQL condition on one share row (`groupId`: its group_id column, `ownerId`: its resource's
 * owner): public, or a group the owner still holds an active role in. Every query that lets
 * a share grant something (reads, listings, runs on inbound mail) applies it.
 */
export function liveShare(groupId: SQL, ownerId: SQL | number): SQL {
  return sql`(${groupId} is null or exists (select 1 from members ow where ow.group_id = ${groupId} and ow.user_id = ${ownerId} and ow.state = 'active'))`;
}

/** Folds the caller's matching share rows into an Access (pure: unit-tested on its own). */
export function accessFromGrants(kind: Resource['kind'], grants: ShareGrant[]): Access {
  const a = { ...NO_ACCESS };
  let viaGroup = false;
  for (const g of grants) {
    if (g.group_id === null) {
      a.r = true;
      continue;
    }
    if (g.role === null) continue; // not an accepted member of that group
    viaGroup = true;
    a.r = true;
    if (g.perms.includes('w')) a.w = true;
    if (kind === 'job' && (g.perms.includes('x') || g.perms.includes('w') || EXECUTING_ROLES.has(g.role))) a.x = true;
  }
  a.viaPublicOnly = a.r && !viaGroup;
  return a;
}

/** What `caller` may do with `resource`: one query unless the caller owns it. */
export async function accessTo(db: Db, caller: User | null, resource: Resource): Promise<Access> {
  touchesOwner(resource.owner_id);
  if (caller && caller.id === resource.owner_id) return OWNER_ACCESS;
  const rows = caller
    ? await db
        .select({ group_id: shares.group_id, perms: shares.perms, role: members.role })
        .from(shares)
        .leftJoin(
          members,
          and(eq(members.group_id, shares.group_id), eq(members.user_id, caller.id), eq(members.state, 'active')),
        )
        .where(and(eq(shares.resource_id, resource.id), liveShare(sql`${shares.group_id}`, resource.owner_id)))
    : await db
        .select({ group_id: shares.group_id, perms: shares.perms, role: members.role })
        .from(shares)
        .leftJoin(members, eq(members.group_id, -1))
        .where(and(eq(shares.resource_id, resource.id), isNull(shares.group_id)));
  return accessFromGrants(resource.kind, rows);
}

/** Permission letters for listings and X-NVM-Permissions. */
export function permList(a: Access): Perm[] {
  const out: Perm[] = [];
  if (a.r) out.push('r');
  if (a.w) out.push('w');
  if (a.d) out.push('d');
  return out;
}
