/**
 * Which resource rows a caller may read: the share-visibility SQL. A resource is readable
 * by its owner and through a share (public, or a group the caller is an active member of
 * and the owner still holds an active role in: `liveShare`).
 */
import { and, asc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { resources, type Resource, type ResourceKindName } from '../../db/schema';
import type { Ctx } from '../context';
import { accessFromGrants, liveShare, type Access, type ShareGrant } from '../perms';
import type { ResourceKind } from './kind';

/** SQL condition: the caller (id, -1 for anonymous) may read the resource row through a share. */
export function readableThroughShare(callerId: number): SQL {
  return sql`exists (select 1 from shares s left join members m on m.group_id = s.group_id and m.user_id = ${callerId} and m.state = 'active'
                    where s.resource_id = ${resources.id} and (s.group_id is null or m.user_id is not null) and ${liveShare(sql`s.group_id`, sql`${resources.owner_id}`)})`;
}

/**
 * SQL column: the caller's share grants on the resource row as a JSON array of
 * {group_id, perms, role} (role null unless an active member), for grantedAccess.
 */
export function grantsColumn(callerId: number): SQL<string> {
  return sql<string>`(select json_group_array(json_object('group_id', s.group_id, 'perms', s.perms, 'role', m.role)) from shares s
                      left join members m on m.group_id = s.group_id and m.user_id = ${callerId} and m.state = 'active'
                      where s.resource_id = ${resources.id} and ${liveShare(sql`s.group_id`, sql`${resources.owner_id}`)})`;
}

/**
 * Resources of one kind owned by `ownerId` that the caller may read: all of them for the
 * owner (`own`), else those shared with the caller (publicly or through a group).
 */
export function visibleWhere(
  ctx: Pick<Ctx, 'caller'>,
  kind: ResourceKindName,
  ownerId: number | SQL,
  own = false,
): SQL {
  return and(
    eq(resources.owner_id, ownerId),
    eq(resources.kind, kind),
    own ? undefined : readableThroughShare(ctx.caller?.id ?? -1),
  )!;
}

/** Resources of `owner` of this kind that the caller may read through a share, with their grants (withAccess). */
export function visibleWithAccessQuery(ctx: Ctx, kind: ResourceKind, ownerId: number | SQL, also?: SQL) {
  return ctx.db
    .select({ ...getTableColumns(resources), grants: grantsColumn(ctx.caller?.id ?? -1) })
    .from(resources)
    .where(and(visibleWhere(ctx, kind.kind, ownerId), also))
    .orderBy(asc(resources.name));
}

/** What a grantsColumn value grants the caller on a resource of this kind. */
export function grantedAccess(kind: ResourceKindName, grants: string): Access {
  return accessFromGrants(kind, JSON.parse(grants) as ShareGrant[]);
}

/** The rows of visibleWithAccessQuery with what each grants the caller. */
export function withAccess(rows: (Resource & { grants: string })[]): { resource: Resource; access: Access }[] {
  return rows.map(({ grants, ...resource }) => ({ resource, access: grantedAccess(resource.kind, grants) }));
}

/** Resources of `owner` of this kind that the caller may read through a share. */
export async function visibleResources(ctx: Ctx, kind: ResourceKind, ownerId: number): Promise<Resource[]> {
  return ctx.db
    .select()
    .from(resources)
    .where(visibleWhere(ctx, kind.kind, ownerId))
    .orderBy(asc(resources.name));
}
