/** The collection of a kind: the caller's own resources, another user's as the caller sees them, and create. */
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { resources, users, type User } from '../../db/schema';
import type { Api } from '../api';
import type { Ctx } from '../context';
import { notFound } from '../errors';
import { jsonResponse } from '../http';
import { BY_NAME, byName, listingItemSchema, listingResponse, listingResponses } from '../listing';
import { pageOf, pageRequest, type PageRequest } from '../paging';
import { batchWithEvent } from '../events';
import { logInsert } from '../log';
import { resourceName } from '../names';
import { OWNER_ACCESS } from '../perms';
import { resourceItem } from './listing-items';
import type { ResourceKind } from './kind';
import { resourceEventOf } from './events';
import { createResource } from './store';
import { visibleWhere, visibleWithAccessQuery, withAccess } from './visibility';

/** What a collection listing reads of each resource (less to carry for a thousand rows). */
const listedColumns = {
  name: resources.name,
  created_on: resources.created_on,
  last_modified: resources.last_modified,
};

/** A collection's page, by name: one more row than the page, to know whether more remain. */
const pageWhere = (page: PageRequest) => (page.after ? gt(resources.name, String(page.after[0])) : undefined);

/** The owner's own resources of the kind, listed under `uriBase`: one page, one indexed range read. */
async function ownListing(ctx: Ctx, kind: ResourceKind, owner: User, uriBase: string): Promise<Response> {
  const page = pageRequest(ctx.url, BY_NAME);
  const rows = await ctx.db
    .select(listedColumns)
    .from(resources)
    .where(and(visibleWhere(ctx, kind.kind, owner.id, true), pageWhere(page)))
    .orderBy(asc(resources.name))
    .limit(page.limit + 1);
  const { items, next } = pageOf(rows, page, byName);
  return listingResponse(ctx.url, { items: items.map((r) => resourceItem(kind, uriBase, r, OWNER_ACCESS)), next });
}

export function collectionRoutes(api: Api, kind: ResourceKind): void {
  const tag = kind.collection;
  const own = `/v1/${kind.collection}`;
  api.get(own, {
    summary: `List the caller's ${kind.noun}s`,
    tag,
    auth: 'user',
    responses: listingResponses,
    handler: async (ctx) => ownListing(ctx, kind, ctx.caller!, own),
  });
  api.get(`/v1/users/:owner/${kind.collection}`, {
    summary: `List a user's ${kind.noun}s visible to the caller`,
    tag,
    auth: 'optional',
    responses: listingResponses,
    handler: async (ctx) => {
      const ownerName = ctx.params.owner!;
      if (ctx.caller?.username === ownerName)
        return ownListing(ctx, kind, ctx.caller, `/v1/users/${ctx.caller.username}/${kind.collection}`);
      // The owner and what the caller sees of theirs in one D1 round trip.
      const ownerId = sql`(select ${users.id} from ${users} where ${users.username} = ${ownerName})`;
      const page = pageRequest(ctx.url, BY_NAME);
      const [owners, rows] = await ctx.db.batch([
        ctx.db.select().from(users).where(eq(users.username, ownerName)),
        visibleWithAccessQuery(ctx, kind, ownerId, pageWhere(page)).limit(page.limit + 1),
      ]);
      const owner = owners[0];
      if (!owner) throw notFound(`no such user: ${ctx.params.owner}`);
      const uriBase = `/v1/users/${owner.username}/${kind.collection}`;
      const { items, next } = pageOf(rows, page, byName);
      return listingResponse(ctx.url, {
        items: withAccess(items).map(({ resource, access }) => resourceItem(kind, uriBase, resource, access)),
        next,
      });
    },
  });
  api.put(`${own}/:${kind.param}`, {
    summary: `Create a ${kind.noun}`,
    tag,
    auth: 'user',
    responses: {
      201: { description: 'Created', type: 'application/json', schema: listingItemSchema },
      409: { description: 'Already exists' },
    },
    // A retry with the first request's Idempotency-Key answers its 201 again, not 409.
    idempotent: true,
    handler: async (ctx) => {
      const name = resourceName(ctx.params[kind.param]!, `${kind.noun} name`);
      const r = await createResource(ctx, kind, ctx.caller!, name);
      // Its log line and its *.created event in one batch.
      await batchWithEvent(
        ctx.env,
        ctx.db,
        ctx.exec,
        kind.log ? [logInsert(ctx.db, r.id, `${kind.noun} created`)] : [],
        resourceEventOf(ctx.env, kind, ctx.caller!, r, 'created'),
      );
      return jsonResponse(resourceItem(kind, own, r, OWNER_ACCESS), { status: 201 });
    },
  });
}
