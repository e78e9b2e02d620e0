/**
 * Pure rules of the GraphQL API: paging arguments, tag kinds, the query
 * limits and a SQL helper. No I/O here (unit-tested on their own).
 */
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { GraphQLError } from 'graphql';
import { rfc2822Utc } from '../core/dates';

/** Default and largest page of a listing (`limit`). */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** Query limits: a query beyond them answers a GraphQL error before anything runs. */
export const LIMITS = {
  /** Deepest selection (introspection included: the standard introspection query is 15 deep). */
  depth: 15,
  /**
   * Static cost of a selection (graphql-armor cost-limit: objects 2, scalars 1, x1.5 per
   * level): a full docs listing costs ~37, a full me ~87, all root fields at once ~330;
   * the client contract's `me { founder admin superuser member { <full Group> } }` ~2100.
   */
  cost: 5_000,
  /** Aliases per operation (one alias can re-run a whole listing). */
  aliases: 20,
  /** Tokens per document (bounds parsing work before validation). */
  tokens: 5_000,
  /** Bytes of a request body. */
  body: 64 * 1024,
} as const;

export function userError(message: string, code = 'BAD_USER_INPUT'): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/**
 * Checks `limit`, `offset` and `after` of a listing (lists are ordered by name: `after` is the
 * name, the `id`, of the last item of the previous page); bad values are a GraphQL error that says why.
 */
export function page(args: { limit?: number | null; offset?: number | null; after?: string | null }): {
  limit: number;
  offset: number;
  after: string | null;
} {
  const limit = args.limit ?? DEFAULT_LIMIT;
  const offset = args.offset ?? 0;
  if (limit < 0 || limit > MAX_LIMIT) throw userError(`limit must be between 0 and ${MAX_LIMIT} (got ${limit})`);
  if (offset < 0) throw userError(`offset must not be negative (got ${offset})`);
  return { limit, offset, after: args.after ?? null };
}

/** The `limit` (default: all, up to MAX_LIMIT) items after `offset` of a list read whole (groups, tokens, webhooks). */
export function slicePage<T>(items: T[], args: { limit?: number | null; offset?: number | null }): T[] {
  const { limit, offset } = page({ limit: args.limit ?? MAX_LIMIT, offset: args.offset });
  return items.slice(offset, offset + limit);
}

export type TagType = 'system' | 'user' | 'category';

/** A stored tag (`fav`, `+mine`, `=finance`) as the API shows it: id as written, bare name, kind. */
export function tagInfo(tag: string): { id: string; name: string; type: TagType } {
  if (tag.startsWith('+')) return { id: tag, name: tag.slice(1), type: 'user' };
  if (tag.startsWith('=')) return { id: tag, name: tag.slice(1), type: 'category' };
  return { id: tag, name: tag, type: 'system' };
}

/** An optional text entry: null when unset or empty. */
export const textOrNull = (value: string | null | undefined): string | null => (value ? value : null);

/** `column IN (values)` with the values bound as one JSON array (D1 binds at most 100 parameters). */
export function inJson(column: SQLWrapper, values: readonly (number | string)[]): SQL {
  return sql`${column} in (select value from json_each(${JSON.stringify(values)}))`;
}

/**
 * A stored ISO 8601 time as the client contract prints it, by the core's formatter
 * (src/core/dates.ts `rfc2822Utc`: `Fri, 29 Nov 2024 09:39:33 UTC`); GraphQL dates are
 * nullable, so null for null, empty or an unparsable value instead of an error.
 */
export function rfc2822(iso: string | null | undefined): string | null {
  if (!iso) return null;
  try {
    return rfc2822Utc(iso);
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
}

/** `@username` mentions in a message (distinct, in order of appearance). */
export function mentionsIn(text: string): string[] {
  // A set, not `includes` on the list: thousands of distinct mentions would be quadratic.
  const out = new Set<string>();
  for (const m of text.matchAll(/(?:^|[^\w@~+/])@([a-z0-9_]{1,64})(?![\w~])/g)) out.add(m[1]!);
  return [...out];
}
