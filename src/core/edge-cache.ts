/**
 * Anonymous public reads served from the edge. A route flagged `edge: 'cache'` (public pages,
 * the read-only alias, a public document's PDF and PPTX, plot files, grid pages) answers a GET
 * without a token and without a query string `public, max-age=0, s-maxage=60` with a
 * `Cache-Tag` per account whose content the answer read (`o<account id>`): the resource's
 * owner and the owner of every reference it drew (core/resource/composition.ts, perms.ts and
 * load.ts note each one here). An answer that read what no tag follows (a group, a reference
 * that did not resolve: it may resolve later) is not stored.
 *
 * Every other request that may change something (any method but GET and HEAD, unless its
 * route says `edge: 'keep'`) purges the tags of the accounts it touched — its caller, the
 * accounts its path names (`:user`, `:owner`, `:org`), the owner of every resource it loaded —
 * before it answers. A store and a purge meet in D1 (migration 0032): a read stores its url
 * under its accounts only when none of them was purged since it began (so a read that raced
 * a change never keeps what it read), and a purge removes those rows and purges only what
 * they say is stored.
 *
 * Where the answers live (EDGE_CACHE):
 * - `workers`: Workers Cache in front of the Worker (`[cache] enabled`): a hit never reaches
 *   the Worker; a purge is `ctx.cache.purge({ tags })`, global, repeated once 5 s later for a
 *   store that landed after it;
 * - `local`: `caches.default`, looked up before anything else (no D1): what `wrangler dev` and
 *   the tests run (Workers Cache is not emulated locally); a purge deletes the stored urls.
 *   Never in production: the Cache API keeps entries in one data centre;
 * - `off` (or unset): nothing is stored, public pages answer `private, no-cache` as before.
 * docs/SCALING.md, "Caching", has the table and the purge list.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { d1Of, type D1Client, type DbSession } from './context';

/** The rule of a stored anonymous answer: browsers revalidate, the edge keeps it a minute at most. */
export const EDGE_RULE = 'public, max-age=0, s-maxage=60';
export const EDGE_MAX_AGE_MS = 60_000;
/** The second purge of Workers Cache, for an answer the cache stored after the first. */
const REPURGE_MS = 5_000;

export type EdgeMode = 'off' | 'workers' | 'local';

export function edgeMode(env: { EDGE_CACHE?: string }): EdgeMode {
  return env.EDGE_CACHE === 'workers' || env.EDGE_CACHE === 'local' ? env.EDGE_CACHE : 'off';
}

/** What a route does to the edge: its anonymous answers are stored, or it changes nothing they show. */
export type EdgeRoute = 'cache' | 'keep';

/** What one request read and touched, noted as it runs. */
export interface EdgeTrace {
  /** The route that answered noted itself (a 404 of the router, a refused token: nothing ran). */
  routed: boolean;
  route: EdgeRoute | null;
  owners: Set<number>;
  /** Accounts the path names, by name (resolved in the purge). */
  names: Set<string>;
  /** The answer read something no tag follows: never stored. */
  untracked: boolean;
  /** When the read began, by the primary's clock (the time of its first D1 batch): set for a read the edge may keep. */
  began: Promise<number> | null;
  /** What the request's purge removed: the urls stored under the accounts it touched. */
  removed: StoredRow[];
}

interface StoredRow {
  owner_id: number;
  key: string;
}

const current = new AsyncLocalStorage<EdgeTrace>();

/** The data centre's cache of the Cache API (mode `local`); typed here: the DOM's CacheStorage has no `default`. */
interface LocalCache {
  match(req: Request): Promise<Response | undefined>;
  put(key: string, res: Response): Promise<void>;
  delete(key: string): Promise<boolean>;
}
const localCache = (): LocalCache => (caches as unknown as { default: LocalCache }).default;

export function newTrace(): EdgeTrace {
  return {
    routed: false,
    route: null,
    owners: new Set(),
    names: new Set(),
    untracked: false,
    began: null,
    removed: [],
  };
}

/** The primary's clock in ms, read in SQL: reads and purges compare times of one clock, whatever machine runs them. */
const D1_NOW = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`;

/**
 * When a read begins: the primary's clock, read in the request's first D1 batch (it rides
 * along: no round trip of its own). A purge at or after it may have changed what was read.
 */
export function readBegins(session: DbSession): Promise<number> {
  const stmt = d1Of(session.db).prepare(`SELECT ${D1_NOW} AS t`);
  return session.ride(stmt).then((r) => (r.results[0] as { t: number }).t);
}

export const withTrace = <T>(trace: EdgeTrace, serve: () => T): T => current.run(trace, serve);

/** The request read (or changes) content of this account. */
export function touchesOwner(id: number | null | undefined): void {
  if (id != null) current.getStore()?.owners.add(id);
}

/** The request read something no account's tag follows: its answer is not stored. */
export function readsUntracked(): void {
  const t = current.getStore();
  if (t) t.untracked = true;
}

/** Path parameters that name an account. */
const ACCOUNT_PARAMS = ['user', 'owner', 'org'] as const;

/** The route that answers notes itself, its caller and the accounts its path names. */
export function noteRoute(route: EdgeRoute | null, callerId: number | null, params: Record<string, string>): void {
  const t = current.getStore();
  if (!t) return;
  t.routed = true;
  t.route = route;
  if (callerId != null) t.owners.add(callerId);
  for (const p of ACCOUNT_PARAMS) if (params[p]) t.names.add(params[p]);
}

/** The key a request's answer is stored under, null when none may be: a query string, a token, another method. */
export function edgeKey(req: Request): string | null {
  if (req.method !== 'GET' || req.headers.has('Authorization')) return null;
  const url = new URL(req.url);
  if (url.search) return null;
  return `${url.origin}${url.pathname}`;
}

/** Whether `path` is one of the routes whose anonymous answers are stored. */
export const isEdgePath = (path: string, routes: readonly RegExp[]): boolean => routes.some((re) => re.test(path));

/** The tags of an answer: one per account it read. */
export const edgeTags = (owners: Iterable<number>): string[] => [...owners].sort((a, b) => a - b).map((o) => `o${o}`);

/** Whether a routed answer may be stored (pure): a 200 of a cache route, read entirely from accounts with tags. */
export function mayStore(trace: EdgeTrace, status: number): boolean {
  return trace.routed && trace.route === 'cache' && status === 200 && !trace.untracked && trace.owners.size > 0;
}

/** Whether a request purges (pure): it reached a route that may change something, and did not fail on its input. */
export function mayPurge(method: string, trace: EdgeTrace, status: number): boolean {
  if (method === 'GET' || method === 'HEAD' || !trace.routed || trace.route === 'keep') return false;
  return status < 400 || status >= 500;
}

/** A stored answer, if the local cache holds one for this request (mode `local`; no D1). */
export async function edgeHit(req: Request): Promise<Response | null> {
  const key = edgeKey(req);
  if (!key) return null;
  return (await localCache().match(new Request(key, { headers: req.headers }))) ?? null;
}

/**
 * Stores an anonymous answer under its accounts' tags, when none of them was purged since
 * the read began; answers the response with its rule and tags, or unchanged (then `private,
 * no-cache` as before: the page's own rule).
 */
export async function edgeStore(
  session: DbSession,
  env: Env,
  req: Request,
  res: Response,
  trace: EdgeTrace,
): Promise<Response> {
  const key = edgeKey(req);
  if (!key || !trace.began) return res;
  const owners = [...trace.owners];
  const tagged = new Response(res.body, res);
  tagged.headers.set('Cache-Control', EDGE_RULE);
  tagged.headers.set('Cache-Tag', edgeTags(owners).join(','));
  tagged.headers.delete('Set-Cookie');
  const local = edgeMode(env) === 'local';
  // Local: stored first, so that a purge which deletes the row also finds the entry.
  if (local) await localCache().put(key, tagged.clone());
  session.flush();
  const began = await trace.began;
  const { results: stored } = await d1Of(session.db)
    .prepare(
      `INSERT INTO edge_cache (owner_id, key, stored_on)
       SELECT value, ?1, ${D1_NOW} FROM json_each(?2)
       WHERE NOT EXISTS (SELECT 1 FROM edge_purges
         WHERE owner_id IN (SELECT value FROM json_each(?2)) AND purged_on >= ?3)
       ON CONFLICT (owner_id, key) DO UPDATE SET stored_on = excluded.stored_on
       RETURNING owner_id`,
    )
    .bind(key, JSON.stringify(owners), began)
    .all<{ owner_id: number }>();
  if (stored.length === owners.length) return tagged;
  // A purge came between the read and now: what was read may be gone.
  if (local) await localCache().delete(key);
  tagged.headers.set('Cache-Control', 'private, no-cache');
  tagged.headers.delete('Cache-Tag');
  return tagged;
}

/** Workers Cache's purge (the ExecutionContext's `cache`, where `[cache] enabled`). */
interface WorkersCache {
  purge(options: { tags: string[] }): Promise<unknown>;
}

/**
 * The purge of a request that may change something, carried last in each of its D1 batches
 * (core/context.ts): in the transaction of the change itself, at no round trip of its own. It
 * marks the accounts the request touched purged now (a read in flight keeps nothing) and
 * removes their stored rows, which name what to drop once the request is done.
 */
export function carryPurge(session: DbSession, trace: EdgeTrace): void {
  const d1 = d1Of(session.db);
  session.carry({
    statements: () => purgeStatements(d1, trace),
    results: (results) => void trace.removed.push(...((results[1]?.results ?? []) as StoredRow[])),
  });
}

function purgeStatements(d1: D1Client, trace: EdgeTrace): D1PreparedStatement[] {
  if (!trace.routed || trace.route === 'keep' || (!trace.owners.size && !trace.names.size)) return [];
  const ids = JSON.stringify([...trace.owners]);
  const names = JSON.stringify([...trace.names].flatMap((n) => [n, n.toLowerCase()]));
  // The accounts: the ids noted, and those the path names (?1: ids, ?2: names).
  const accounts = `SELECT value FROM json_each(?1)
    UNION SELECT id FROM users WHERE username IN (SELECT value FROM json_each(?2))`;
  return [
    d1
      .prepare(
        `INSERT INTO edge_purges (owner_id, purged_on) SELECT value, ${D1_NOW} FROM (${accounts}) WHERE true
         ON CONFLICT (owner_id) DO UPDATE SET purged_on = excluded.purged_on`,
      )
      .bind(ids, names),
    d1.prepare(`DELETE FROM edge_cache WHERE owner_id IN (${accounts}) RETURNING owner_id, key`).bind(ids, names),
  ];
}

/**
 * Ends a request's purge before it answers: the purge runs alone when its last D1 work did
 * not carry it (`purges`: the request may have changed something), then what the removed
 * rows name is dropped (local: the stored urls; Workers Cache: their accounts' tags, again 5 s
 * later for an answer the cache stored after the first).
 */
export async function edgePurge(
  session: DbSession,
  env: Env,
  exec: ExecutionContext,
  trace: EdgeTrace,
  purges: boolean,
): Promise<void> {
  if (purges) await session.carryNow();
  const removed = trace.removed;
  if (!removed.length) return;
  if (edgeMode(env) === 'local') {
    await Promise.all([...new Set(removed.map((r) => r.key))].map((k) => localCache().delete(k)));
    return;
  }
  const cache = (exec as ExecutionContext & { cache?: WorkersCache }).cache;
  if (!cache) return;
  const tags = edgeTags(new Set(removed.map((r) => r.owner_id)));
  await cache.purge({ tags }).catch((err) => console.error('edge purge failed', tags.join(','), err));
  exec.waitUntil(
    new Promise((resolve) => setTimeout(resolve, REPURGE_MS))
      .then(() => cache.purge({ tags }))
      .catch((err) => console.error('edge purge failed', tags.join(','), err)),
  );
}
