/**
 * What a token may do and until when: its scope (`full`, or `read`: GET/HEAD and the GraphQL
 * read API only), its expiry (chosen at sign-in, or after TOKEN_IDLE_DAYS without use), and
 * its last use, recorded at most once a day so that reads stay reads. Also the shape a
 * token is listed in (GET /v1/tokens, GraphQL `me { tokens }`), never with its secret.
 */
import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { tokens } from '../db/schema';
import { d1Of, type Db } from './context';
import { HttpError, invalidToken } from './errors';
import { pageOf, type KeyShape, type Page, type PageRequest } from './paging';

export const TOKEN_SCOPES = ['full', 'read'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A token as authentication knows it (its row less the user and description). */
export interface TokenInfo {
  id: number;
  hash: string;
  name: string;
  scope: TokenScope;
  created_on: string;
  last_used_on: string | null;
  expires_on: string | null;
}

/** Days without use after which a token expires, unless the deployment sets TOKEN_IDLE_DAYS. */
export const DEFAULT_TOKEN_IDLE_DAYS = 180;
const DAY_MS = 86_400_000;

/** TOKEN_IDLE_DAYS: a positive whole number of days; `0` or `off` turns idle expiry off (null). */
export function tokenIdleDays(env: Pick<Env, 'TOKEN_IDLE_DAYS'>): number | null {
  const raw = env.TOKEN_IDLE_DAYS?.trim();
  if (raw === undefined || raw === '') return DEFAULT_TOKEN_IDLE_DAYS;
  if (raw === '0' || raw.toLowerCase() === 'off') return null;
  const days = Number(raw);
  return Number.isInteger(days) && days > 0 ? days : DEFAULT_TOKEN_IDLE_DAYS;
}

/** The instant before which a token's last use (its creation when never used) counts as idle. */
function idleCutoff(idleDays: number, nowMs: number): string {
  return new Date(nowMs - idleDays * DAY_MS).toISOString();
}

/** Why the token no longer authenticates (a message for the 401), or null while it does. Pure. */
export function expiryOf(
  t: Pick<TokenInfo, 'created_on' | 'last_used_on' | 'expires_on'>,
  idleDays: number | null,
  nowMs: number,
): string | null {
  const now = new Date(nowMs).toISOString();
  if (t.expires_on !== null && t.expires_on <= now) {
    return `token expired on ${t.expires_on}: sign in again (POST /v1/token) for a new one`;
  }
  const lastUse = t.last_used_on ?? t.created_on;
  if (idleDays !== null && lastUse < idleCutoff(idleDays, nowMs)) {
    return `token expired: unused for more than ${idleDays} days (last used ${lastUse}); sign in again (POST /v1/token) for a new one`;
  }
  return null;
}

/**
 * The checks a route makes of the token that authenticated its request: 401 when it has
 * expired, 403 when it is read-only and the route changes something (`reads`: a route
 * that reads though its method is not GET, the GraphQL API's POST). Before anything else
 * the route does, so a read token learns of its scope before any 404 of the route's own.
 */
export function checkToken(t: TokenInfo, env: Env, nowMs: number, method: string, reads: boolean): void {
  const expired = expiryOf(t, tokenIdleDays(env), nowMs);
  if (expired) throw invalidToken(expired);
  if (t.scope === 'read' && method !== 'GET' && method !== 'HEAD' && !reads) {
    throw new HttpError(
      403,
      `this token is read-only (scope read): it may only GET, HEAD and query /gql; ${method} needs a token of scope full`,
    );
  }
}

/** Whether the token's last use must be written now: never written, or last on an earlier (UTC) day. Pure. */
export function useDue(t: Pick<TokenInfo, 'last_used_on'>, nowIso: string): boolean {
  return t.last_used_on === null || t.last_used_on.slice(0, 10) < nowIso.slice(0, 10);
}

/**
 * The statement that records a use: it writes only when the row's day is still earlier, so
 * isolates that each saw the token unused today write it once between them.
 */
export function recordUse(db: Db, id: number, nowIso: string) {
  const today = `${nowIso.slice(0, 10)}T00:00:00.000Z`;
  return db
    .update(tokens)
    .set({ last_used_on: nowIso })
    .where(and(eq(tokens.id, id), or(isNull(tokens.last_used_on), lt(tokens.last_used_on, today))));
}

/** Expired tokens of an account (sign-in deletes them, so they do not count towards the cap). */
export function expiredTokens(db: Db, userId: number, idleDays: number | null, nowMs: number) {
  const now = new Date(nowMs).toISOString();
  const lapsed = lt(tokens.expires_on, now);
  const idle =
    idleDays === null
      ? undefined
      : or(
          lt(tokens.last_used_on, idleCutoff(idleDays, nowMs)),
          and(isNull(tokens.last_used_on), lt(tokens.created_on, idleCutoff(idleDays, nowMs))),
        );
  return db.delete(tokens).where(and(eq(tokens.user_id, userId), idle ? or(lapsed, idle) : lapsed));
}

/** A token as it is listed: never its secret nor its hash. */
export interface ListedToken {
  token_name: string;
  token_description: string;
  created_on: string;
  last_used_on: string | null;
  expires_on: string | null;
  scope: TokenScope;
  /** Whether it has expired (by its date or by idleness); expired tokens stay listed until revoked or replaced. */
  expired: boolean;
}

/** An account's tokens, oldest first. */
/** Tokens page oldest first, keyed by (created_on, id). */
export const TOKENS_KEY: KeyShape = ['string', 'number'];

export async function listTokens(
  db: Db,
  env: Env,
  userId: number,
  nowMs: number,
  page: PageRequest,
): Promise<Page<ListedToken>> {
  const after = page.after;
  const rows = await db
    .select()
    .from(tokens)
    .where(
      and(
        eq(tokens.user_id, userId),
        after ? sql`(${tokens.created_on}, ${tokens.id}) > (${after[0]}, ${after[1]})` : undefined,
      ),
    )
    .orderBy(asc(tokens.created_on), asc(tokens.id))
    .limit(page.limit + 1);
  const idleDays = tokenIdleDays(env);
  const { items, next } = pageOf(rows, page, (r) => [r.created_on, r.id]);
  return {
    next,
    items: items.map((r) => ({
      token_name: r.name,
      token_description: r.description,
      created_on: r.created_on,
      last_used_on: r.last_used_on,
      expires_on: r.expires_on,
      scope: r.scope,
      expired: expiryOf(r, idleDays, nowMs) !== null,
    })),
  };
}

/**
 * Deletes up to `limit` expired tokens of any account (for a scheduled sweep: an account
 * that never signs in again keeps its expired rows otherwise). Answers how many went.
 */
export async function sweepExpiredTokens(db: Db, env: Env, nowMs: number, limit: number): Promise<number> {
  const idleDays = tokenIdleDays(env);
  const now = new Date(nowMs).toISOString();
  const cutoff = idleDays === null ? '' : idleCutoff(idleDays, nowMs); // '' : nothing is older
  const res = await d1Of(db)
    .prepare(
      `DELETE FROM tokens WHERE rowid IN (SELECT rowid FROM tokens
         WHERE expires_on < ?1 OR coalesce(last_used_on, created_on) < ?2 LIMIT ?3)`,
    )
    .bind(now, cutoff, limit)
    .run();
  return res.meta.changes;
}
