/** Accounts: creating and updating users, checking passwords, issuing tokens. */
import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import * as z from 'zod';
import { tokens, users, type User } from '../db/schema';
import { forgetUser, hashToken, newToken } from '../core/auth';
import { now as nowMs, nowIso } from '../core/clock';
import type { Db } from '../core/context';
import { hashPassword, randomBytes, timingSafeEqual, toHex } from '../core/crypto';
import { expiredTokens, tokenIdleDays, type TokenScope } from '../core/tokens';
import { once } from '../core/once';

export interface UserFields {
  password?: string;
  email?: string | null;
  email_verified?: boolean;
  account?: 'user' | 'organisation';
  plan?: 'free' | 'premium';
  profile_public?: boolean;
  timezone?: string;
  name?: string;
  bio?: string;
}

/** Creates the user, or updates the given fields. Answers whether it was created. */
export async function upsertUser(db: Db, username: string, f: UserFields): Promise<{ created: boolean; user: User }> {
  const now = nowIso();
  const existing = await db.select().from(users).where(eq(users.username, username)).get();
  const set: Partial<typeof users.$inferInsert> & { last_modified: string } = { last_modified: now };
  if (f.password !== undefined) {
    const salt = toHex(randomBytes(16));
    set.password_salt = salt;
    set.password_hash = await hashPassword(f.password, salt);
  }
  if (f.email !== undefined) set.email = f.email;
  if (f.email_verified !== undefined) set.email_verified = f.email_verified;
  if (f.account !== undefined) set.account = f.account;
  if (f.plan !== undefined) set.plan = f.plan;
  if (f.profile_public !== undefined) set.profile_public = f.profile_public;
  if (f.timezone !== undefined) set.timezone = f.timezone;
  if (f.name !== undefined) set.name = f.name;
  if (f.bio !== undefined) set.bio = f.bio;
  if (existing) {
    // A new password revokes every token of the account, in the update's own batch (the
    // operator's reset is how a leaked or forgotten token is shut out).
    const update = db.update(users).set(set).where(eq(users.id, existing.id)).returning();
    const [rows] =
      f.password !== undefined
        ? await db.batch([update, db.delete(tokens).where(eq(tokens.user_id, existing.id))])
        : [await update];
    const user = rows[0]!;
    forgetUser(user.id);
    return { created: false, user };
  }
  const user = await db
    .insert(users)
    .values({ username, password_hash: set.password_hash!, password_salt: set.password_salt!, created_on: now, ...set })
    .returning()
    .get();
  return { created: true, user };
}

// Checked against when the username is unknown, so both paths cost one PBKDF2.
const DUMMY_SALT = '00'.repeat(16);

/** The account read by username (batched by the caller), when `password` is its password. */
export async function passwordMatches(user: User | undefined, password: string): Promise<User | null> {
  const hash = await hashPassword(password, user?.password_salt ?? DUMMY_SALT);
  if (!user || !timingSafeEqual(hash, user.password_hash)) return null;
  return user;
}

/** Live tokens an account may hold: signing in again beyond it answers 409 (POST /v1/logout frees one). */
export const MAX_TOKENS_PER_ACCOUNT = 100;

/** What a sign-in asks of its token besides the account: name, description, lifetime and scope. */
export interface TokenRequest {
  name: string;
  description: string;
  /** Days until it expires; undefined: no expiry of its own (idle expiry still applies). */
  expiresInDays?: number;
  scope: TokenScope;
}

/**
 * Issues a token unless the account already holds MAX_TOKENS_PER_ACCOUNT live ones (null
 * then): the account's expired tokens are deleted first and the count and the insert are
 * one statement, all in one batch, so concurrent sign-ins cannot pass the cap. `also` runs
 * in the same batch (clearing the failed sign-ins).
 */
export async function issueToken(
  db: Db,
  env: Env,
  user: User,
  t: TokenRequest,
  also: BatchItem<'sqlite'>[] = [],
): Promise<{ token: string; expires_on: string | null } | null> {
  const token = newToken();
  const at = nowMs();
  const expiresOn = t.expiresInDays === undefined ? null : new Date(at + t.expiresInDays * 86_400_000).toISOString();
  // The columns of `tokens` in their order (id null: the next id; last_used_on null: not used yet).
  const insert = db.insert(tokens).select(
    sql`select null, ${user.id}, ${await hashToken(token)}, ${t.name}, ${t.description}, ${new Date(at).toISOString()},
               null, ${expiresOn}, ${t.scope}
          where (select count(*) from ${tokens} where ${tokens.user_id} = ${user.id}) < ${MAX_TOKENS_PER_ACCOUNT}`,
  );
  const [, done] = await db.batch([expiredTokens(db, user.id, tokenIdleDays(env), at), insert, ...also] as [
    ReturnType<typeof expiredTokens>,
    typeof insert,
    ...BatchItem<'sqlite'>[],
  ]);
  return done.meta.changes > 0 ? { token, expires_on: expiresOn } : null;
}

/** The account as the API shows it (GET /v1/admin/profile, PUT /v1/ops/users/:user). */
export const profileSchema = once(() =>
  z
    .object({
      username: z.string(),
      email: z.string(),
      email_verified: z.boolean(),
      account: z.enum(['user', 'organisation']),
      plan: z.enum(['free', 'premium']),
      profile_public: z.boolean(),
    })
    .meta({
      id: 'Account',
      description: 'An account as the API shows it to its owner and the operator',
      example: {
        username: 'alice',
        email: 'alice@example.com',
        email_verified: true,
        account: 'user',
        plan: 'free',
        profile_public: false,
      },
    }),
);

export function profileOf(u: User) {
  return {
    username: u.username,
    email: u.email ?? '',
    email_verified: u.email_verified,
    account: u.account,
    plan: u.plan,
    profile_public: u.profile_public,
  };
}
