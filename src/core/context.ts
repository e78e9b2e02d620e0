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

/** Statements a session's batches carry last (built when each batch goes), and where their results go. */
export interface Carrier {
  statements(): D1PreparedStatement[];
  results(results: D1Result[]): void;
}

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
    return this.session.alone(
      this.inner,
      () => (column === undefined ? this.inner.first<T>() : this.inner.first<T>(column)),
      (r) => {
        const row = r.results[0] as Record<string, unknown> | undefined;
        return (row === undefined ? null : column === undefined ? row : (row[column] ?? null)) as T | null;
      },
    );
  }
  run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.session.alone(
      this.inner,
      () => this.inner.run<T>(),
      (r) => r as D1Result<T>,
    );
  }
  all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.session.alone(
      this.inner,
      () => this.inner.all<T>(),
      (r) => r as D1Result<T>,
    );
  }
  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  raw<T>(options?: { columnNames?: boolean }): Promise<[string[], ...T[]] | T[]> {
    this.session.flush();
    this.session.roundTrips++;
    this.session.carriedLast = false;
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
 * the session's next batch (`ride`): two pieces of work, one round trip. Statements may be
 * carried last in every batch (`carry`): the edge's purge of a change, in the change's own
 * transaction (core/edge-cache.ts).
 */
export class DbSession {
  /** D1 round trips made so far. */
  roundTrips = 0;
  readonly db: Db;
  private readonly d1: D1DatabaseSession;
  /** The statement waiting to go first in the next batch, and how its result is handed back. */
  private rider: { stmt: D1PreparedStatement; settle: (result: Promise<D1Result>) => void } | null = null;
  /** What every batch carries last, and where their results go. */
  private carrier: Carrier | null = null;
  /** The last D1 work of the session was a batch that carried the carrier's statements. */
  carriedLast = false;

  constructor(env: Env, start: SessionStart = 'first-primary') {
    this.d1 = env.DB.withSession(start);
    const client: D1Client = {
      prepare: (query: string) => new CountedStatement(this.d1.prepare(query), this),
      batch: <T = unknown>(statements: D1PreparedStatement[]) => {
        this.roundTrips++;
        const carried = this.carrier?.statements().map(innerOf) ?? [];
        const rider = this.rider;
        this.rider = null;
        const first = rider ? 1 : 0;
        const all = this.d1.batch<T>([...(rider ? [rider.stmt] : []), ...statements.map(innerOf), ...carried]);
        rider?.settle(all.then((results) => results[0]! as D1Result));
        return all.then((results) => {
          this.carriedLast = carried.length > 0;
          if (carried.length) this.carrier!.results(results.slice(results.length - carried.length) as D1Result[]);
          return results.slice(first, results.length - carried.length);
        });
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
    this.carriedLast = false;
    rider.settle(rider.stmt.all());
  }

  /**
   * A statement run on its own: one round trip (after a rider still waiting); with the
   * carrier's statements, when there are any, in one batch (its result read from the batch's).
   */
  async alone<T>(stmt: D1PreparedStatement, run: () => Promise<T>, fromBatch: (r: D1Result) => T): Promise<T> {
    this.flush();
    this.roundTrips++;
    const carried = this.carrier?.statements().map(innerOf) ?? [];
    this.carriedLast = carried.length > 0;
    if (!carried.length) return run();
    const [own, ...rest] = await this.d1.batch([stmt, ...carried]);
    this.carrier!.results(rest);
    return fromBatch(own!);
  }

  /** Carries `carrier`'s statements last in every batch from now on. */
  carry(carrier: Carrier): void {
    this.carrier = carrier;
  }

  /** Runs the carried statements in a batch of their own, unless the last D1 work carried them already. */
  async carryNow(): Promise<void> {
    if (this.carriedLast || !this.carrier) return;
    const carried = this.carrier.statements().map(innerOf);
    if (!carried.length) return;
    this.flush();
    this.roundTrips++;
    this.carrier.results(await this.d1.batch(carried));
    this.carriedLast = true;
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
