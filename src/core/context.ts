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

/**
 * Where a D1 session starts: a bookmark (the session reads at least what that bookmark
 * saw), `first-unconstrained` (the first read may go to any replica) or `first-primary`
 * (the first query goes to the primary: what it reads is current).
 */
export type SessionStart = D1SessionConstraint | D1SessionBookmark;

/** The part of a D1 database a session offers (prepare and batch), as drizzle uses it. */
export type D1Client = Pick<D1Database, 'prepare' | 'batch'>;

/** A prepared statement that counts each execution as one round trip of its session. */
class CountedStatement implements D1PreparedStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    private readonly session: DbSession,
  ) {}
  bind(...values: unknown[]): CountedStatement {
    return new CountedStatement(this.inner.bind(...values), this.session);
  }
  first<T = unknown>(colName: string): Promise<T | null>;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  first<T>(column?: string): Promise<T | null> {
    this.session.flush();
    this.session.roundTrips++;
    return column === undefined ? this.inner.first<T>() : this.inner.first<T>(column);
  }
  run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    this.session.flush();
    this.session.roundTrips++;
    return this.inner.run<T>();
  }
  all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    this.session.flush();
    this.session.roundTrips++;
    return this.inner.all<T>();
  }
  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  raw<T>(options?: { columnNames?: boolean }): Promise<[string[], ...T[]] | T[]> {
    this.session.flush();
    this.session.roundTrips++;
    return options?.columnNames ? this.inner.raw<T>({ columnNames: true }) : this.inner.raw<T>();
  }
}

const innerOf = (s: D1PreparedStatement) => (s instanceof CountedStatement ? s.inner : s);

/**
 * One D1 session (the Sessions API, `env.DB.withSession`): every query of a request, a
 * scheduled tick, an inbound message or a Durable Object's work runs in one, so reads may
 * be served by a nearby replica while the session stays sequentially consistent (it never
 * reads older data than it has already seen or written). Counts its D1 round trips: each
 * statement executed (first/run/all/raw) and each batch is one. A statement may ride with
 * the session's next batch (`ride`): two pieces of work, one round trip.
 */
export class DbSession {
  /** D1 round trips made so far. */
  roundTrips = 0;
  readonly db: Db;
  private readonly d1: D1DatabaseSession;
  /** The statement waiting to go first in the next batch, and how its result is handed back. */
  private rider: { stmt: D1PreparedStatement; settle: (result: Promise<D1Result>) => void } | null = null;

  constructor(env: Env, start: SessionStart = 'first-primary') {
    this.d1 = env.DB.withSession(start);
    const client: D1Client = {
      prepare: (query: string) => new CountedStatement(this.d1.prepare(query), this),
      batch: <T = unknown>(statements: D1PreparedStatement[]) => {
        this.roundTrips++;
        const inner = statements.map(innerOf);
        const rider = this.rider;
        this.rider = null;
        if (!rider) return this.d1.batch<T>(inner);
        const both = this.d1.batch<T>([rider.stmt, ...inner]);
        rider.settle(both.then((results) => results[0]! as D1Result));
        return both.then((results) => results.slice(1));
      },
    };
    this.db = drizzle(client as D1Database);
  }

  /**
   * Sends `stmt` first in the session's next batch (one round trip and one transaction for both: an Idempotency-Key's
   * claim with the reads of the route's checks); any other query, or `flush`, sends it alone first. Answers its result.
   */
  ride(stmt: D1PreparedStatement): Promise<D1Result> {
    this.flush();
    return new Promise((settle) => (this.rider = { stmt: innerOf(stmt), settle }));
  }

  /** Sends a statement still waiting to ride (alone: no batch came). */
  flush(): void {
    const rider = this.rider;
    if (!rider) return;
    this.rider = null;
    this.roundTrips++;
    rider.settle(rider.stmt.all());
  }

  /** The session's latest bookmark: null until a query ran. */
  bookmark(): string | null {
    return this.d1.getBookmark();
  }
}

/**
 * A fresh D1 session's database for work outside a request (scheduled ticks, inbound
 * mail, Durable Objects, tests). It starts at the primary: such work reads what it is
 * about to act on. Requests get theirs from Api.fetch (requestSession in core/session.ts).
 */
export function dbFor(env: Env, start: SessionStart = 'first-primary'): Db {
  return new DbSession(env, start).db;
}

/** The raw D1 client behind a db (its session's, counted), for hand-written statements. */
export function d1Of(db: Db): D1Client {
  return (db as Db & { $client: D1Client }).$client;
}
