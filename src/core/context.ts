/** The per-request context every handler receives. */
import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import type { User } from '../db/schema';

export type Db = DrizzleD1Database<Record<string, never>>;

export interface Ctx {
  req: Request;
  env: Env;
  exec: ExecutionContext;
  url: URL;
  /** Decoded path parameters (`+`, `@`, `~` arrive literally). */
  params: Record<string, string>;
  /** The authenticated caller, null for anonymous requests on public routes. */
  caller: User | null;
  db: Db;
}

/** A Ctx whose route requires a signed-in caller. */
export interface UserCtx extends Ctx {
  caller: User;
}

const dbs = new WeakMap<D1Database, Db>();

export function dbFor(env: Env): Db {
  let db = dbs.get(env.DB);
  if (!db) {
    db = drizzle(env.DB);
    dbs.set(env.DB, db);
  }
  return db;
}
