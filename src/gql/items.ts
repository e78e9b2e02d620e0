/**
 * Resource listings of the GraphQL API (docs, grids, mails, jobs), with exactly the REST
 * visibility: the caller's own resources, or another user's resources the caller may read
 * through a share (the SQL condition of src/core/resources.ts `visibleResources`).
 */
import { and, asc, eq, type SQL } from 'drizzle-orm';
import { readableThroughShare, type ResourceKind } from '../core/resources';
import { resources, users, type Resource, type ResourceKindName, type User } from '../db/schema';
import { docKind } from '../docs/kind';
import { gridKind } from '../grids/kind';
import { jobKind } from '../jobs/kind';
import { mailKind } from '../mail/kind';
import type { Loaders } from './loaders';
import { page, userError } from './values';
import type { Db } from '../core/context';

/** What the API needs of a kind (its entries' defaults and its canonical url). */
export type KindInfo = Pick<ResourceKind, 'kind' | 'entries' | 'url'>;

export const KINDS: Record<ResourceKindName, KindInfo> = { doc: docKind, grid: gridKind, mail: mailKind, job: jobKind };

/** One listed resource: its row, its owner's username and its kind. */
export interface Item {
  row: Resource;
  owner: string;
  kind: KindInfo;
}

export interface ListArgs {
  author?: string | null;
  id?: string | null;
  limit?: number | null;
  offset?: number | null;
}

export interface Caller {
  db: Db;
  caller: User | null;
}

/**
 * Without `author`: the caller's own resources (as GET /v1/<collection>). With `author`:
 * that user's resources the caller may read (as GET /v1/users/:author/<collection>).
 */
export async function listItems(ctx: Caller, kind: KindInfo, args: ListArgs): Promise<Item[]> {
  const { limit, offset } = page(args);
  let owner: Pick<User, 'id' | 'username'>;
  if (args.author != null) {
    const found = await ctx.db.select({ id: users.id, username: users.username }).from(users).where(eq(users.username, args.author)).get();
    if (!found) throw userError(`no such user: ${args.author}`, 'NOT_FOUND');
    owner = found;
  } else if (ctx.caller) owner = ctx.caller;
  else throw userError('sign in (Authorization: Bearer <token>) or name an author', 'UNAUTHENTICATED');

  const where: SQL[] = [eq(resources.owner_id, owner.id), eq(resources.kind, kind.kind)];
  if (ctx.caller?.id !== owner.id) where.push(readableThroughShare(ctx.caller?.id ?? -1));
  if (args.id != null) where.push(eq(resources.name, args.id));
  if (limit === 0) return [];
  const rows = await ctx.db
    .select()
    .from(resources)
    .where(and(...where))
    .orderBy(asc(resources.name))
    .limit(limit)
    .offset(offset);
  return rows.map((row) => ({ row, owner: owner.username, kind }));
}

/** Default of an entry as the kind declares it. */
export function entryDefault(kind: KindInfo, path: string): string | null {
  return kind.entries.find((e) => e.path === path)?.default ?? null;
}

/** A text entry of an item, or its declared default (null when neither). */
export async function entryOf(loaders: Loaders, item: Item, path: string): Promise<string | null> {
  return (await loaders.entry.load({ id: item.row.id, path })) ?? entryDefault(item.kind, path);
}
