/**
 * Resource listings of the GraphQL API (docs, grids, mails, jobs), with exactly the REST
 * visibility: the caller's own resources, or another user's resources the caller may read
 * through a share (the SQL condition of src/core/resources.ts `visibleResources`).
 */
import { and, asc, eq, inArray, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { readableThroughShare, type ResourceKind } from '../core/resources';
import { entries, resources, shares, tags, users, type Resource, type ResourceKindName, type User } from '../db/schema';
import { docKind } from '../docs/kind';
import { gridKind } from '../grids/kind';
import { jobKind } from '../jobs/kind';
import { mailKind } from '../mail/kind';
import { entriesQuery, entryValues, groupBy, sharesQuery, tagsQuery, type EntryRow, type ShareRow, type TagRow } from './loaders';
import { page, userError } from './values';
import type { Db } from '../core/context';

/** What the API needs of a kind (its entries' defaults and its canonical url). */
export type KindInfo = Pick<ResourceKind, 'kind' | 'entries' | 'url'>;

export const KINDS: Record<ResourceKindName, KindInfo> = { doc: docKind, grid: gridKind, mail: mailKind, job: jobKind };

/** One listed resource: its row, owner, kind, and what its listing fetched for it. */
export interface Item {
  row: Resource;
  owner: string;
  kind: KindInfo;
  /** The wanted text entries that are set, by path. */
  entries: Map<string, string>;
  /** Its sharing rows (when wanted). */
  shares: ShareRow[];
  /** The caller's tags on it (when wanted). */
  tags: TagRow[];
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

/** What a listing's selection needs besides the rows: entry paths, sharing rows, tags. */
export interface Want {
  paths: string[];
  shares: boolean;
  tags: boolean;
}

/**
 * Without `author`: the caller's own resources (as GET /v1/<collection>). With `author`:
 * that user's resources the caller may read (as GET /v1/users/:author/<collection>).
 * The page, and the entries, sharing rows and tags the selection wants for it, are read in
 * one D1 batch (one round trip), whatever the number of items.
 */
export async function listItems(ctx: Caller & { env: Env }, kind: KindInfo, args: ListArgs, want: Want): Promise<Item[]> {
  const { limit, offset } = page(args);
  if (args.author == null && !ctx.caller) throw userError('sign in (Authorization: Bearer <token>) or name an author', 'UNAUTHENTICATED');
  const author = args.author ?? ctx.caller!.username;
  const self = ctx.caller?.username === author;
  const ownerId = self ? sql`${ctx.caller!.id}` : sql`(select id from ${users} where ${users.username} = ${author})`;
  const where: SQL[] = [sql`${resources.owner_id} = ${ownerId}`, eq(resources.kind, kind.kind)];
  if (!self) where.push(readableThroughShare(ctx.caller?.id ?? -1));
  if (args.id != null) where.push(eq(resources.name, args.id));
  const pageIds = (column: SQLWrapper) =>
    inArray(column as never, ctx.db.select({ id: resources.id }).from(resources).where(and(...where)).orderBy(asc(resources.name)).limit(limit).offset(offset));

  // One round trip: the page, then each part the selection wants (by its position).
  const parts: unknown[] = [ctx.db.select().from(resources).where(and(...where)).orderBy(asc(resources.name)).limit(limit).offset(offset)];
  const at = (q: unknown) => parts.push(q) - 1;
  const ownerAt = self ? -1 : at(ctx.db.select({ id: users.id }).from(users).where(eq(users.username, author)));
  const entriesAt = want.paths.length ? at(entriesQuery(ctx.db, pageIds(entries.resource_id), want.paths)) : -1;
  const sharesAt = want.shares ? at(sharesQuery(ctx.db, pageIds(shares.resource_id))) : -1;
  const tagsAt = want.tags && ctx.caller ? at(tagsQuery(ctx.db, ctx.caller.id, pageIds(tags.resource_id))) : -1;
  const results = (await ctx.db.batch(parts as never)) as unknown[][];
  const part = <T>(i: number): T[] => (i < 0 ? [] : (results[i] as T[]));
  const rows = part<Resource>(0);
  if (ownerAt >= 0 && !part(ownerAt).length) throw userError(`no such user: ${author}`, 'NOT_FOUND');
  const [entryRows, shareRows, tagRows] = [part<EntryRow>(entriesAt), part<ShareRow>(sharesAt), part<TagRow>(tagsAt)];

  // Every item carries what its fields need: they resolve without another query.
  const values = await entryValues(ctx.env, entryRows);
  const entriesById = groupBy([...values], ([key]) => Number(key.slice(0, key.indexOf('/'))));
  const sharesById = groupBy(shareRows, (r) => r.resource_id);
  const tagsById = groupBy(tagRows, (r) => r.id);
  return rows.map((row) => ({
    row,
    owner: author,
    kind,
    entries: new Map((entriesById.get(row.id) ?? []).map(([key, value]) => [key.slice(key.indexOf('/') + 1), value])),
    shares: sharesById.get(row.id) ?? [],
    tags: tagsById.get(row.id) ?? [],
  }));
}

/** Default of an entry as the kind declares it. */
export function entryDefault(kind: KindInfo, path: string): string | null {
  return kind.entries.find((e) => e.path === path)?.default ?? null;
}

/** A text entry of an item, or its declared default (null when neither). */
export function entryOf(item: Item, path: string): string | null {
  return item.entries.get(path) ?? entryDefault(item.kind, path);
}
