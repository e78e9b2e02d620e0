/**
 * Serving one request: HEAD as GET without the body, the request's D1 session, the rate
 * limits, tolerant paths, then the router; errors rendered as `{status, message}`, an
 * unknown path 404 and a known path with another method 405. Every answer leaves with
 * EVERY_ANSWER's headers and its request id (core/request-id.ts), whatever produced it.
 */
import type { RouterType } from 'itty-router';
import { authenticate, type Authenticated } from './auth';
import type { DbSession } from './context';
import { cacheRule } from './cache-rule';
import {
  carryPurge,
  edgeHit,
  edgeKey,
  edgeMode,
  edgePurge,
  edgeStore,
  isEdgePath,
  mayPurge,
  mayStore,
  newTrace,
  readBegins,
  withTrace,
} from './edge-cache';
import { HttpError, notFound, toErrorResponse } from './errors';
import { enforceRateLimit } from './ratelimit';
import { requestIdOf, withRequestId } from './request-id';
import type { RouteArgs, RoutedRequest } from './route-handler';
import { requestSession, withSessionHeaders } from './session';

/** The router the Api fills: its routes take RouteArgs. */
export type ApiRouter = RouterType<RoutedRequest, RouteArgs>;

/**
 * Headers of every answer (a route's, /gql's, a static file's, HEAD, 404, 405, an error):
 * `nosniff`, so that a browser never reads an answer as another type than the one it
 * declares (a user's text/plain value run through <script src=…>, a JSON answer read as
 * HTML). Routes set stricter ones of their own (USER_BYTES_HEADERS, page policies).
 */
const EVERY_ANSWER: Readonly<Record<string, string>> = { 'X-Content-Type-Options': 'nosniff' };

/** Serves one request: normalise the path, route it, render errors, 404/405 the rest. */
export async function serveRequest(
  router: ApiRouter,
  req: Request,
  env: Env,
  exec: ExecutionContext,
  edgePaths: readonly RegExp[] = [],
): Promise<Response> {
  const id = requestIdOf(req);
  return withRequestId(id, async () => {
    let res: Response;
    try {
      res = await answer(router, req, env, exec, edgePaths);
    } catch (err) {
      res = toErrorResponse(err);
    }
    const caching = cacheRule(req, res.status, res.headers.get('Cache-Control'));
    return withHeaders(res, { ...EVERY_ANSWER, 'X-Request-Id': id, 'Cache-Control': caching });
  });
}

/** `res` with `headers` set (on a copy when its headers are immutable: a response passed through from a fetch). */
function withHeaders(res: Response, headers: Readonly<Record<string, string>>): Response {
  try {
    for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value);
    return copy;
  }
}

async function answer(
  router: ApiRouter,
  req: Request,
  env: Env,
  exec: ExecutionContext,
  edgePaths: readonly RegExp[],
): Promise<Response> {
  // HEAD is GET without the body (RFC 9110 §9.3.2): same status and headers. A body
  // sent with HEAD is ignored unread (never buffered, never copied into the GET).
  if (req.method === 'HEAD') {
    let res: Response;
    try {
      res = await answer(router, bodiless(req, req.url, 'GET'), env, exec, edgePaths);
    } catch (err) {
      res = toErrorResponse(err);
    }
    await res.body?.cancel();
    return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
  }
  // An anonymous read of a route the edge keeps (core/edge-cache.ts): locally, a stored answer
  // is served before anything else (no D1); a miss reads the primary, whose answer may be stored.
  const mode = edgeMode(env);
  const normalised = normalisePath(req);
  const edgeRead =
    mode !== 'off' && edgeKey(normalised) !== null && isEdgePath(new URL(normalised.url).pathname, edgePaths);
  if (edgeRead && mode === 'local') {
    const hit = await edgeHit(normalised);
    if (hit) return withSessionHeaders(hit, null);
  }
  // D1 session: every query of the request runs in one; its round trips and bookmark are
  // answered in headers (core/session.ts).
  let session: DbSession;
  try {
    session = requestSession(req, env, edgeRead);
  } catch (err) {
    return withSessionHeaders(toErrorResponse(err), null);
  }
  const trace = newTrace();
  if (edgeRead) trace.began = readBegins(session);
  else if (mode !== 'off' && req.method !== 'GET') carryPurge(session, trace);
  let res = await withTrace(trace, () => serve(router, normalised, env, exec, session));
  if (mode !== 'off') {
    try {
      if (edgeRead && mayStore(trace, res.status)) res = await edgeStore(session, env, normalised, res, trace);
      else await edgePurge(session, env, exec, trace, mayPurge(req.method, trace, res.status));
    } catch (err) {
      // The change is made: its answer stands (a stored answer ends with its s-maxage).
      console.error('edge cache', req.method, new URL(req.url).pathname, err);
    }
  }
  return withSessionHeaders(res, session);
}

/** Serves a request whose path is already normalised (normalisePath). */
async function serve(
  router: ApiRouter,
  normalised: Request,
  env: Env,
  exec: ExecutionContext,
  session: DbSession,
): Promise<Response> {
  try {
    // The request's authentication, looked up once: the rate limit keys on the caller's
    // account, and the route gets the same answer (no second lookup).
    let authenticated: Promise<Authenticated | null> | undefined;
    const who = () => (authenticated ??= authenticate(session.db, normalised));
    // Rate limits: before routing; a token lookup only past the address's ceiling.
    await enforceRateLimit(normalised, env, who);

    const path = new URL(normalised.url).pathname;
    // Without OPS_TOKEN the operator interface does not exist: 404 for every method.
    if (!env.OPS_TOKEN && (path === '/v1/ops' || path.startsWith('/v1/ops/'))) throw notFound(`no such route: ${path}`);
    const res: Response | undefined = await router.fetch(normalised, env, exec, session, who);
    if (res) return res;
    const allowed = router.routes
      .filter(([, re]) => re.test(path))
      .flatMap(([m]) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
    if (allowed.length) {
      throw new HttpError(
        405,
        `method ${normalised.method} not allowed here`,
        { allowed },
        { Allow: [...new Set(allowed)].join(', ') },
      );
    }
    throw notFound(`no such route: ${path}`);
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Tolerant paths: repeated slashes collapse and a trailing slash is ignored. */
export function normalisePath(req: Request): Request {
  const url = new URL(req.url);
  const clean = url.pathname.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
  if (clean === url.pathname) return req;
  url.pathname = clean;
  // GET and HEAD may arrive with a body a Request of theirs cannot carry: drop it.
  return req.method === 'GET' || req.method === 'HEAD'
    ? bodiless(req, url.toString(), req.method)
    : new Request(url.toString(), req);
}

/**
 * A copy of a request without its body (for GET and HEAD, which cannot carry one). The
 * incoming body is left alone: never read, never copied (so neither its size nor its
 * state matters and the copy cannot throw on it); the runtime discards it. Cancelling it
 * here made wrangler dev's proxy hang or answer 500 (test/e2e/never-500.test.ts).
 */
function bodiless(req: Request, url: string, method: 'GET' | 'HEAD'): Request {
  return new Request(url, { method, headers: req.headers });
}
