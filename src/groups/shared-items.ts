/**
 * The client contract's group views over REST:
 *   GET /v1/groups                    the groups and organisations the caller belongs to,
 *                                     named by reference (@user~group, +org~group, +org)
 *   GET /v1/o/<group ref>/<d|m|g|j>   the items of that kind shared with the group that the
 *                                     caller can read: {id, name, type, summary, uri, shared,
 *                                     updated}, `updated` in RFC 2822 with ` UTC`
 * A bare organisation slug at /v1/o/<org>/... keeps the organisation alias (org-sections.ts):
 * a path segment starting with `@` or `+` is a group reference and lands here.
 * Every answer is a bounded number of D1 queries whatever the number of items.
 */
import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import * as z from 'zod';
import type { Ctx } from '../core/context';
import { rfc2822Utc } from '../core/dates';
import { entryValues } from '../core/entries';
import { notFound } from '../core/errors';
import { jsonResponse } from '../core/http';
import { liveShare } from '../core/perms';
import { readableThroughShare } from '../core/resource';
import { parseShareEntry } from '../core/sharing';
import { entries, resources, shares, users, type Group, type ResourceKindName } from '../db/schema';
import { groupAndParentByRef } from './members';
import { parseGroupRef } from './model';
import { SECTIONS } from './sections';
import { viewOf } from './visibility';
import { once } from '../core/once';

/** A path segment that names a group by reference rather than an organisation by slug. */
export const isGroupRefSegment = (segment: string) => segment.startsWith('@') || segment.startsWith('+');

export const sharedItemSchema = once(() =>
  z
    .object({
      id: z.string(),
      name: z.string(),
      type: z.string(),
      summary: z.string(),
      uri: z.string(),
      shared: z.array(
        z.object({ id: z.string(), name: z.string(), type: z.enum(['public', 'user_group', 'org_group', 'org']) }),
      ),
      updated: z.string(),
    })
    .meta({
      id: 'SharedItem',
      description: 'An item shared with a group, and every group it is shared with',
      example: {
        id: 'q3_report',
        name: 'Q3 report',
        type: 'd',
        summary: 'Sales by region, third quarter',
        uri: '/v1/u/alice/d/q3_report',
        shared: [{ id: '+acme~analysts', name: '+acme~analysts', type: 'org_group' }],
        updated: '2025-10-02T16:03:10.507Z',
      },
    }),
);
type SharedItem = z.infer<ReturnType<typeof sharedItemSchema>>;

/** Pure: a sharing entry as the clients list it (`id` the entry as written, `name` the group reference). */
function shareTarget(entry: string): SharedItem['shared'][number] {
  const ref = parseShareEntry(entry);
  return { id: entry, name: ref.groupRef ?? 'public', type: ref.groupType ?? 'public' };
}

/** The group a reference names, when the caller may see it; 404 otherwise (400 for a malformed reference). */
async function visibleGroup(ctx: Ctx, ref: string): Promise<Group> {
  parseGroupRef(ref);
  const { group, parent } = await groupAndParentByRef(ctx.db, ref);
  if (!group || !(await viewOf(ctx.db, ctx.caller, group, parent)).visible) throw notFound(`no such group: ${ref}`);
  return group;
}

function byResource<T extends { resource_id: number }>(rows: T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const list = out.get(r.resource_id);
    if (list) list.push(r);
    else out.set(r.resource_id, [r]);
  }
  return out;
}

const ITEM_ENTRIES = ['name', 'summary', 'config/type'];

/**
 * SQL condition on `resources`: the items of a kind shared with any of the groups (by an
 * owner who still holds an active role in it) that the caller can read (their own, or
 * readable through a share). Seeing a group, or overseeing
 * it as an organisation founder or admin, grants no read of what is shared with it. The
 * rule of GET /v1/o/<group ref>/<kind>, also used by GraphQL's `Group { docs ... }`.
 */
export function readableSharedWith(kind: ResourceKindName, groupIds: readonly number[], callerId: number): SQL {
  return and(
    eq(resources.kind, kind),
    sql`exists (select 1 from shares g where g.resource_id = ${resources.id} and g.group_id in (select value from json_each(${JSON.stringify(groupIds)}))
                and ${liveShare(sql`g.group_id`, sql`${resources.owner_id}`)})`,
    or(eq(resources.owner_id, callerId), readableThroughShare(callerId)),
  )!;
}

/** GET /v1/o/<group ref>/<section>: the items of the section's kind shared with the group that the caller can read. */
export async function groupSharedItems(ctx: Ctx, ref: string, section: string): Promise<Response> {
  const s = SECTIONS[section];
  if (!s) throw notFound(`no such section '${section}' of a group: d, g, m, j, p`);
  const group = await visibleGroup(ctx, ref);
  const chosen = readableSharedWith(s.kind, [group.id], ctx.caller?.id ?? -1);
  const ids = sql`(select ${resources.id} from ${resources} where ${chosen})`;
  const [rows, entryRows, shareRows] = await ctx.db.batch([
    ctx.db
      .select({ id: resources.id, name: resources.name, owner: users.username, last_modified: resources.last_modified })
      .from(resources)
      .innerJoin(users, eq(users.id, resources.owner_id))
      .where(chosen)
      .orderBy(asc(users.username), asc(resources.name)),
    ctx.db
      .select({
        resource_id: entries.resource_id,
        path: entries.path,
        value: entries.value,
        blob_key: entries.blob_key,
      })
      .from(entries)
      .where(and(sql`${entries.resource_id} in ${ids}`, inArray(entries.path, ITEM_ENTRIES))),
    ctx.db
      .select({ resource_id: shares.resource_id, entry: shares.entry })
      .from(shares)
      .where(sql`${shares.resource_id} in ${ids}`)
      .orderBy(asc(shares.entry)),
  ]);
  const values = new Map<number, Map<string, string>>();
  await Promise.all(
    [...byResource(entryRows)].map(async ([id, list]) => values.set(id, await entryValues(ctx.env, list))),
  );
  const sharedBy = byResource(shareRows);
  const items: SharedItem[] = rows.map((r) => {
    const v = values.get(r.id) ?? new Map<string, string>();
    return {
      id: r.name,
      name: v.get('name') || r.name,
      type: v.get('config/type') || s.kind,
      summary: v.get('summary') ?? '',
      uri: `/v1/users/${r.owner}/${s.collection}/${r.name}`,
      shared: (sharedBy.get(r.id) ?? []).map((x) => shareTarget(x.entry)),
      updated: rfc2822Utc(r.last_modified),
    };
  });
  return jsonResponse(items);
}
