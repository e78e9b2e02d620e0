/**
 * Resource listings of the GraphQL API (docs, grids, mails, jobs, plots), with exactly the REST
 * visibility: the caller's own resources, or another user's resources the caller may read
 * through a share (the SQL condition of `visibleResources`, src/core/resource/visibility.ts).
 */
import { and, asc, eq, getTableColumns, gt, sql, type SQL } from 'drizzle-orm';
import { liveShare } from '../core/perms';
import { readableThroughShare, type ResourceKind } from '../core/resource';
import {
  entries,
  groups,
  resources,
  shares,
  tags,
  users,
  type Group,
  type Resource,
  type ResourceKindName,
  type User,
} from '../db/schema';
import { docKind } from '../docs/kind';
import { gridKind } from '../grids/kind';
import { jobKind } from '../jobs/kind';
import { mailKind } from '../mail/kind';
import { plotKind } from '../plots/kind';
import { entryValues } from '../core/entries';
import { page, userError } from './values';
import { d1Of, type Db } from '../core/context';

/** What the API needs of a kind (its entries' defaults and its canonical url). */
export type KindInfo = Pick<ResourceKind, 'kind' | 'entries' | 'url'>;

export const KINDS: Record<ResourceKindName, KindInfo> = {
  doc: docKind,
  grid: gridKind,
  mail: mailKind,
  job: jobKind,
  plot: plotKind,
};

/** One sharing row of a listed resource (with the group it names, if any). */
interface ShareRow {
  resource_id: number;
  entry: string;
  group_id: number | null;
  perms: string;
  ref: string | null;
  slug: string | null;
  kind: Group['kind'] | null;
  /**
   * Public, or the owner still holds an active role in the group: only a live share grants (core/perms.ts liveShare).
   */
  live: boolean;
}

/** One of the caller's tags on a resource. */
interface TagRow {
  id: number;
  tag: string;
}

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
  after?: string | null;
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
  /** Every `vars/...` entry too (document variables). */
  vars?: boolean;
}

/**
 * Without `author`: the caller's own resources (as GET /v1/<collection>). With `author`:
 * that user's resources the caller may read (as GET /v1/users/:author/<collection>).
 * The page, with the entries, sharing rows and tags the selection wants for it, is one D1
 * statement whatever the number of items (plus the author's row when named).
 */
export async function listItems(
  ctx: Caller & { env: Env },
  kind: KindInfo,
  args: ListArgs,
  want: Want,
): Promise<Item[]> {
  const { limit, offset, after } = page(args);
  if (args.author == null && !ctx.caller)
    throw userError('sign in (Authorization: Bearer <token>) or name an author', 'UNAUTHENTICATED');
  const author = args.author ?? ctx.caller!.username;
  const self = ctx.caller?.username === author;
  const ownerId = self ? sql`${ctx.caller!.id}` : sql`(select id from ${users} where ${users.username} = ${author})`;
  const where: SQL[] = [sql`${resources.owner_id} = ${ownerId}`, eq(resources.kind, kind.kind)];
  if (!self) where.push(readableThroughShare(ctx.caller?.id ?? -1));
  if (args.id != null) where.push(eq(resources.name, args.id));
  if (after !== null) where.push(gt(resources.name, after));
  // Every row's owner is the author: named once, not looked up per row.
  const page_ = selectItems(ctx, want, and(...where)!, author)
    .orderBy(asc(resources.name))
    .limit(limit)
    .offset(offset);
  let rows: ItemRow[];
  if (self) rows = await itemRows(ctx, page_);
  else {
    const [owner, found] = await d1Of(ctx.db).batch([
      statementOf(ctx, ctx.db.select({ id: users.id }).from(users).where(eq(users.username, author))),
      statementOf(ctx, page_),
    ]);
    if (!owner?.results.length) throw userError(`no such user: ${author}`, 'NOT_FOUND');
    rows = found!.results as ItemRow[];
  }
  return shapeItems(ctx.env, rows, kind);
}

/**
 * Resources matching `where` (any owners, any kinds) with the entries, sharing rows and
 * tags `want` asks for as JSON columns: one statement whatever the number of items.
 * Callers add their own ordering and paging. `owner`: the username of every row's owner
 * when the caller knows it (one owner's listing), instead of a lookup per row.
 */
export function selectItems(ctx: Caller, want: Want, where: SQL, owner?: string) {
  // Aliased: D1 answers rows keyed by column name (itemRows).
  const none = (as: string) => sql<null>`null`.as(as);
  const rid = sql.raw('"resources"."id"'); // qualified: the subqueries below have their own tables
  const varsToo = want.vars ? sql` or e.path like 'vars/%'` : sql``;
  return ctx.db
    .select({
      ...getTableColumns(resources),
      owner_name: (owner !== undefined
        ? sql<string>`${owner}`
        : sql<string>`(select u.username from ${users} u where u.id = "resources"."owner_id")`
      ).as('owner_name'),
      entries_json:
        want.paths.length || want.vars
          ? sql<string>`(select json_group_array(json_array(e.path, e.value, e.blob_key)) from ${entries} e
             where e.resource_id = ${rid} and (e.path in (select value from json_each(${JSON.stringify(want.paths)}))${varsToo}))`.as(
              'entries_json',
            )
          : none('entries_json'),
      shares_json: want.shares
        ? sql<string>`(select json_group_array(json_array(s.entry, s.group_id, s.perms, g.ref, g.slug, g.kind, ${liveShare(sql`s.group_id`, sql.raw('"resources"."owner_id"'))})) from ${shares} s
             left join ${groups} g on g.id = s.group_id where s.resource_id = ${rid})`.as('shares_json')
        : none('shares_json'),
      tags_json:
        want.tags && ctx.caller
          ? sql<string>`(select json_group_array(t.tag) from ${tags} t where t.resource_id = ${rid} and t.user_id = ${ctx.caller.id})`.as(
              'tags_json',
            )
          : none('tags_json'),
    })
    .from(resources)
    .where(where);
}

/** A row of selectItems, keyed by its column names. */
export type ItemRow = Resource & {
  owner_name: string;
  entries_json: string | null;
  shares_json: string | null;
  tags_json: string | null;
};

/** A query built with drizzle as a D1 statement (its rows keyed by column name). */
type Built = { toSQL(): { sql: string; params: unknown[] } };
function statementOf(ctx: Caller, query: Built): D1PreparedStatement {
  const { sql: text, params } = query.toSQL();
  return d1Of(ctx.db)
    .prepare(text)
    .bind(...params);
}

/**
 * The rows of a selectItems query (ordered and paged) as D1 answers them, keyed by column
 * name: every column is an integer or text that needs no decoding, and drizzle's generic
 * per-cell mapping of a 1,000-row page cost more than the statement itself.
 */
export async function itemRows(ctx: Caller, query: Built): Promise<ItemRow[]> {
  return (await statementOf(ctx, query).all<ItemRow>()).results;
}

/**
 * Items from rows of selectItems. Entry values come inline; only those spilled to R2 wait
 * for a read (most pages: none), so a page is shaped synchronously.
 */
export async function shapeItems(env: Env, rows: ItemRow[], kind?: KindInfo): Promise<Item[]> {
  const spilled: Promise<unknown>[] = [];
  const items = rows.map(({ entries_json: e, shares_json: sh, tags_json: tg, owner_name, ...row }): Item => {
    const values = new Map<string, string>();
    for (const [path, value, blob_key] of parseJson<[string, string | null, string | null]>(e)) {
      if (value !== null) values.set(path, value);
      else spilled.push(entryValues(env, [{ path, value, blob_key }]).then((m) => values.set(path, m.get(path)!)));
    }
    return {
      row,
      owner: owner_name,
      kind: kind ?? KINDS[row.kind],
      entries: values,
      shares: parseJson<[string, number | null, string, string | null, string | null, Group['kind'] | null, number]>(sh)
        .map(([entry, group_id, perms, ref, slug, gkind, live]) => ({
          resource_id: row.id,
          entry,
          group_id,
          perms,
          ref,
          slug,
          kind: gkind,
          live: live === 1,
        }))
        .sort((a, b) => (a.entry < b.entry ? -1 : 1)),
      tags: parseJson<string>(tg)
        .sort()
        .map((tag) => ({ id: row.id, tag })),
    };
  });
  if (spilled.length) await Promise.all(spilled);
  return items;
}

const parseJson = <T>(text: string | null): T[] => (text ? (JSON.parse(text) as T[]) : []);

/** Default of an entry as the kind declares it. */
function entryDefault(kind: KindInfo, path: string): string | null {
  return kind.entries.find((e) => e.path === path)?.default ?? null;
}

/** A text entry of an item, or its declared default (null when neither). */
export function entryOf(item: Item, path: string): string | null {
  return item.entries.get(path) ?? entryDefault(item.kind, path);
}
