/**
 * Pages of a listing: `?limit` and an opaque `?cursor`, and a `Link: <…>; rel="next"` header
 * (RFC 8288) while more remain. A cursor names the key of the last item answered (keyset
 * paging), so items added while a client pages neither repeat nor shift what follows.
 * Without `limit` or `cursor` a listing answers as it always has, up to PAGE_MAX items.
 */
import { base64url, fromBase64url } from './crypto';
import { badRequest } from './errors';

/** The most items one answer carries, with or without `?limit`. */
export const PAGE_MAX = 1000;

/** A key part: what the listing is ordered by (a name, a time, an id). */
export type KeyPart = string | number;
/** The types of a listing's key parts, in order: what its cursors must hold. */
export type KeyShape = readonly ('string' | 'number')[];
/** A listing keyed by a row id (deliveries, the outbox). */
export const BY_ID: KeyShape = ['number'];

export interface PageRequest {
  /** How many items to answer. */
  limit: number;
  /** The key of the last item of the previous page; null on the first page. */
  after: KeyPart[] | null;
  /** Whether the client asked for a page (limit or cursor): listings then use their paging order. */
  paged: boolean;
}

/** A page: its items and the cursor of the next page (null when none remain). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

export function encodeCursor(key: readonly KeyPart[]): string {
  return base64url(new TextEncoder().encode(JSON.stringify(key)));
}

const refused = () => badRequest('cursor: not one this listing answered (pass the Link header of the previous page)');

/** The key parts a cursor holds, of any shape; not one a listing answered is a 400. */
function parseCursor(cursor: string): unknown[] {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw refused();
  let key: unknown;
  try {
    key = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(fromBase64url(cursor)));
  } catch {
    throw refused();
  }
  if (!Array.isArray(key)) throw refused();
  return key;
}

/** `key` as a key of `shape` (a 400 when it is not one). */
function checkShape(key: unknown[], shape: KeyShape): KeyPart[] {
  if (
    key.length !== shape.length ||
    !key.every((k, i) => typeof k === shape[i] && (typeof k !== 'number' || Number.isSafeInteger(k)))
  )
    throw refused();
  return key as KeyPart[];
}

/** The key a cursor names, of the listing's `shape`; a cursor this listing did not answer is a 400. */
export function decodeCursor(cursor: string, shape: KeyShape): KeyPart[] {
  return checkShape(parseCursor(cursor), shape);
}

/**
 * The page a request asks for: `limit` from 1 to `max` (default `fallback`), `cursor` a key of
 * the listing's `shape`. Anything else is a 400 naming the parameter.
 */
export function pageRequest(url: URL, shape: KeyShape, fallback = PAGE_MAX, max = PAGE_MAX): PageRequest {
  return requestOf(url, (cursor) => decodeCursor(cursor, shape), fallback, max);
}

function requestOf(url: URL, decode: (cursor: string) => KeyPart[], fallback: number, max: number): PageRequest {
  const rawLimit = url.searchParams.get('limit');
  const rawCursor = url.searchParams.get('cursor');
  let limit = fallback;
  if (rawLimit !== null) {
    limit = /^\d{1,7}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= max)) throw badRequest(`limit: a whole number from 1 to ${max}`);
  }
  const after = rawCursor === null ? null : decode(rawCursor);
  return { limit, after, paged: rawLimit !== null || rawCursor !== null };
}

/** The first `limit` items, for a reader that takes no paging query (GraphQL's lists). */
export const firstPage = (limit = PAGE_MAX): PageRequest => ({ limit, after: null, paged: false });

/** Cuts rows read with `limit + 1` to the page, and names the next page's cursor by the last item's key. */
export function pageOf<T>(rows: T[], page: PageRequest, keyOf: (row: T) => KeyPart[]): Page<T> {
  if (rows.length <= page.limit) return { items: rows, next: null };
  const items = rows.slice(0, page.limit);
  return { items, next: encodeCursor(keyOf(items[items.length - 1]!)) };
}

/** Compares keys part by part (numbers as numbers, strings by code unit, as SQLite's BINARY collation). */
export function compareKeys(a: readonly KeyPart[], b: readonly KeyPart[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * A page of items already in memory, ordered by `keyOf` ascending. Unpaged (no limit, no cursor)
 * and within PAGE_MAX, the items answer as given, in their own order.
 */
export function pageItems<T>(items: T[], page: PageRequest, keyOf: (item: T) => KeyPart[]): Page<T> {
  if (!page.paged && items.length <= page.limit) return { items, next: null };
  const keyed = items.map((item) => ({ item, key: keyOf(item) })).sort((a, b) => compareKeys(a.key, b.key));
  const after = page.after;
  const start = after ? keyed.findIndex((k) => compareKeys(k.key, after) > 0) : 0;
  const rest = start < 0 ? [] : keyed.slice(start, start + page.limit + 1);
  return pageOf(
    rest.map((k) => k.item),
    page,
    keyOf,
  );
}

/**
 * A listing in two parts answered one after the other, each keyset-paged in its own order (a job's runs kept in D1,
 * then the days retention rolled up): a cursor names the part of the last item answered (0 or 1) and that item's key
 * within it, of that part's shape. A page reads at most `limit + 1` rows of each part: two index ranges, one batch.
 */
export type PartShapes = readonly [KeyShape, KeyShape];

/** A page of a listing in two parts: its items of each part, and the cursor of the next page (null when none remain). */
export interface PartsPage<A, B> {
  first: A[];
  second: B[];
  next: string | null;
}

/** The page a request asks for of a listing in `parts`, as pageRequest (`after`: the part, then the key). */
export function partsPageRequest(url: URL, parts: PartShapes, fallback = PAGE_MAX, max = PAGE_MAX): PageRequest {
  return requestOf(
    url,
    (cursor) => {
      const [part, ...key] = parseCursor(cursor);
      if (part !== 0 && part !== 1) throw refused();
      return [part, ...checkShape(key, parts[part])];
    },
    fallback,
    max,
  );
}

/**
 * Where a page of a listing in two parts reads each: after this key of the part, from its start (null), or, for the
 * first, not at all ('past': the cursor is in the second).
 */
export function partsAfter(page: PageRequest): { first: KeyPart[] | null | 'past'; second: KeyPart[] | null } {
  const [part, ...key] = page.after ?? [];
  if (part === undefined) return { first: null, second: null };
  return part === 0 ? { first: key, second: null } : { first: 'past', second: key };
}

/**
 * The page of a listing in two parts, from the rows read of each (up to `limit + 1` from where partsAfter says, none
 * of a part it says is past): the first part's rows, then the second's, cut to the page, and the next cursor.
 */
export function pageOfParts<A, B>(
  page: PageRequest,
  first: A[],
  second: B[],
  keyOf: readonly [(row: A) => KeyPart[], (row: B) => KeyPart[]],
): PartsPage<A, B> {
  const rows: ({ part: 0; row: A } | { part: 1; row: B })[] = [
    ...first.map((row) => ({ part: 0 as const, row })),
    ...second.map((row) => ({ part: 1 as const, row })),
  ];
  const { items, next } = pageOf(rows, page, (r) => (r.part === 0 ? [0, ...keyOf[0](r.row)] : [1, ...keyOf[1](r.row)]));
  return {
    first: items.flatMap((r) => (r.part === 0 ? [r.row] : [])),
    second: items.flatMap((r) => (r.part === 1 ? [r.row] : [])),
    next,
  };
}

/** The `Link` header of a page with more after it: the request's own URL with the next cursor. */
export function nextLink(url: URL, next: string | null): Record<string, string> {
  if (next === null) return {};
  const link = new URL(url);
  link.searchParams.set('cursor', next);
  return { Link: `<${link.href}>; rel="next"` };
}
