/**
 * The sign-in throttle of POST /v1/token: at most SIGNIN_MAX_FAILURES failed sign-ins per
 * username in SIGNIN_WINDOW_MS, then 429 until the window ends. Counted for every
 * well-formed username, existing or not, and checked before the password, so neither the
 * answer nor its timing tells whether an account exists. A successful sign-in clears the
 * count.
 *
 * The store is a D1 table (signin_failures) rather than the Rate Limiting binding or
 * isolate memory: the binding counts per Cloudflare location and only in 10 or 60 s
 * periods, memory per isolate, and a guesser spreads requests over both. D1 is one count
 * for the whole platform, read in the batch that reads the account (no extra round trip)
 * and written once per failure.
 */
import { eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../core/context';
import { signinFailures } from './schema';

export const SIGNIN_MAX_FAILURES = 10;
export const SIGNIN_WINDOW_MS = 15 * 60_000;

export interface FailureRow {
  window_start: number;
  failures: number;
}

/** Pure: seconds until `username` may try again (0: now). */
export function lockedForSeconds(row: FailureRow | undefined, now: number): number {
  if (!row || row.failures < SIGNIN_MAX_FAILURES) return 0;
  const left = row.window_start + SIGNIN_WINDOW_MS - now;
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

/** The failure count of a username (batched with the account's read). */
export const failuresQuery = (db: Db, username: string) =>
  db
    .select({ window_start: signinFailures.window_start, failures: signinFailures.failures })
    .from(signinFailures)
    .where(eq(signinFailures.username, username));

/** Counts one failure: a new window when the last one is over. Sweeps expired rows in the same batch. */
export async function recordFailure(db: Db, username: string, now: number): Promise<void> {
  const expired = now - SIGNIN_WINDOW_MS;
  await db.batch([
    db.delete(signinFailures).where(lt(signinFailures.window_start, expired)),
    db
      .insert(signinFailures)
      .values({ username, window_start: now, failures: 1 })
      .onConflictDoUpdate({
        target: signinFailures.username,
        // Both expressions read the row as it was (SQLite UPDATE semantics).
        set: {
          failures: sql`case when ${signinFailures.window_start} <= ${expired} then 1 else ${signinFailures.failures} + 1 end`,
          window_start: sql`case when ${signinFailures.window_start} <= ${expired} then ${now} else ${signinFailures.window_start} end`,
        },
      }),
  ]);
}

/** Clears the count of a username after a successful sign-in (batched with the token's insert). */
export const clearFailures = (db: Db, username: string) =>
  db.delete(signinFailures).where(eq(signinFailures.username, username));
