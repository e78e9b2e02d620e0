/**
 * GET /v1/o/<org>/<section>: an organisation's visuals visible to the caller, by section
 * (d documents, g grids, m e-mails, p plots, v variables of its documents).
 * A group reference in place of the organisation lists what is shared with that group
 * (shared-items.ts).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../core/context';
import { notFound } from '../core/errors';
import { listingResponse, type ListingItem, type Verb } from '../core/listing';
import type { Perm } from '../core/perms';
import { visibleWhere } from '../core/resource';
import { entries, resources, users } from '../db/schema';
import { varsFromEntries } from '../docs/vars';
import { loadGroup, SCOPES } from './context';
import { SECTIONS } from './sections';
import { groupSharedItems, isGroupRefSegment } from './shared-items';

export async function orgSection(ctx: Ctx): Promise<Response> {
  const section = ctx.params.section!;
  if (isGroupRefSegment(ctx.params.org!)) return groupSharedItems(ctx, ctx.params.org!, section);
  if (!['p', 'g', 'm', 'd', 'v'].includes(section)) throw notFound(`no such section '${section}': p, g, m, d or v`);
  const org = await loadGroup(ctx, SCOPES.org);
  if (org.group.owner_id === null) return listingResponse(ctx.url, []);
  const owner = (await ctx.db
    .select({ username: users.username })
    .from(users)
    .where(eq(users.id, org.group.owner_id))
    .get())!;
  const own = ctx.caller?.id === org.group.owner_id;
  if (section === 'v')
    return listingResponse(ctx.url, await orgVariables(ctx, org.group.owner_id, owner.username, own));
  const kind = SECTIONS[section]!;
  const list = await ctx.db
    .select()
    .from(resources)
    .where(visibleWhere(ctx, kind.kind, org.group.owner_id, own))
    .orderBy(asc(resources.name));
  return listingResponse(
    ctx.url,
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
}

/**
 * The variables of the organisation account's documents the caller may read, each named
 * `<doc>/<var>` and pointing at the read-only alias. One query for every document: the
 * `vars/` entries of the visible documents, folded by the docs area's `varsFromEntries`.
 * (Variable attributes are at most 4 KiB, so they are always stored inline in D1.)
 */
async function orgVariables(ctx: Ctx, ownerId: number, owner: string, own: boolean): Promise<ListingItem[]> {
  const rows = await ctx.db
    .select({
      doc: resources.name,
      path: entries.path,
      value: entries.value,
      created_on: entries.created_on,
      last_modified: entries.last_modified,
    })
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
