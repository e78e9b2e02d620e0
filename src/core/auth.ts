/**
 * Authentication: opaque bearer tokens stored as SHA-256 hashes; the operator token
 * (OPS_TOKEN secret) compared in constant time.
 */
import { eq } from 'drizzle-orm';
import { tokens, users, type User } from '../db/schema';
import { BoundedCache } from './bounded-cache';
import { now, nowIso } from './clock';
import { dbFor, type Ctx, type Db } from './context';
import { base64url, randomBytes, sha256Hex, timingSafeEqual } from './crypto';
import { HttpError, notFound } from './errors';
import { checkToken, recordUse, useDue, type TokenInfo } from './tokens';

/** A request's authentication: the account and the token it was sent with. */
export interface Authenticated {
  user: User;
  token: TokenInfo;
}

export function bearerToken(req: Request): string | null {
  const header = req.headers.get('Authorization');
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

export function newToken(): string {
  return base64url(randomBytes(32));
}

export const hashToken = (token: string) => sha256Hex(token);

/**
 * Token lookups are cached in the isolate for a few seconds: at the edge a D1 round trip
 * costs far more than the request it authenticates. Logout and account updates evict
 * their entries here at once; other isolates see them within AUTH_CACHE_MS.
 */
const AUTH_CACHE_MS = 10_000;
const AUTH_CACHE_MAX = 10_000;
const authCache = new BoundedCache<string, { auth: Authenticated; expires: number }>({ maxEntries: AUTH_CACHE_MAX });

export function forgetToken(hash: string): void {
  authCache.delete(hash);
}

export function forgetUser(userId: number): void {
  authCache.deleteWhere((e) => e.auth.user.id === userId);
}

/**
 * The account and token a bearer token belongs to, or null when absent or unknown. An
 * expired or read-only token is still answered here: the route decides (usableToken).
 */
export async function authenticate(db: Db, req: Request): Promise<Authenticated | null> {
  const token = bearerToken(req);
  if (!token || token.length > 256) return null;
  const hash = await hashToken(token);
  const cached = authCache.get(hash);
  if (cached && cached.expires > Date.now()) return cached.auth;
  const auth = await lookupToken(db, hash);
  if (auth) {
    authCache.set(hash, { auth, expires: Date.now() + AUTH_CACHE_MS });
  } else authCache.delete(hash);
  return auth;
}

async function lookupToken(db: Db, hash: string): Promise<Authenticated | null> {
  const rows = await db
    .select({
      user: users,
      token: {
        id: tokens.id,
        hash: tokens.token_hash,
        name: tokens.name,
        scope: tokens.scope,
        created_on: tokens.created_on,
        last_used_on: tokens.last_used_on,
        expires_on: tokens.expires_on,
      },
    })
    .from(tokens)
    .innerJoin(users, eq(tokens.user_id, users.id))
    .where(eq(tokens.token_hash, hash))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The user of a request's token once the route may act for it (checkToken: 401 when
 * expired, 403 when read-only for a route that writes). Records the token's use at most
 * once a day, after the answer (waitUntil, its own D1 session): the request's round trips
 * stay what they were.
 */
export function usableToken(
  auth: Authenticated,
  env: Env,
  exec: ExecutionContext,
  method: string,
  reads: boolean,
): User {
  checkToken(auth.token, env, now(), method, reads);
  const at = nowIso();
  if (useDue(auth.token, at)) {
    auth.token.last_used_on = at; // the cached entry too: this isolate does not write it again today
    exec.waitUntil(
      recordUse(dbFor(env), auth.token.id, at)
        .run()
        .catch((err: unknown) => console.error('recording a token use failed', err)),
    );
  }
  return auth.user;
}

/** The operator interface exists only when OPS_TOKEN is set (404 otherwise, not 401). */
export function requireOps(env: Env, req: Request): void {
  const secret = env.OPS_TOKEN;
  // Api.fetch already answers 404 for /v1/ops/* without OPS_TOKEN; this guards any other caller.
  if (!secret) throw notFound('no such route');
  const token = bearerToken(req);
  if (!token || !timingSafeEqual(token, secret))
    throw new HttpError(401, 'operator token required', {}, { 'WWW-Authenticate': 'Bearer' });
}

/** The caller as D1 has it now (the auth cache may be seconds stale in other isolates): account type, plan, profile. */
export async function freshCaller(ctx: Pick<Ctx, 'db' | 'caller'>): Promise<User> {
  return (await ctx.db.select().from(users).where(eq(users.id, ctx.caller!.id)).get()) ?? ctx.caller!;
}
