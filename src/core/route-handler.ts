/**
 * What the router runs for one declared route: the auth check the route names, the
 * handler's context (decoded params, caller, database session) and its JSON body
 * validated against the route's schema, then the route's handler.
 */
import * as z from 'zod';
import type { ZodType } from 'zod';
import { authenticate, bearerToken, requireOps, usableToken, type Authenticated } from './auth';
import { DbSession } from './context';
import { noteRoute } from './edge-cache';
import { badRequest, invalidToken, unauthorized } from './errors';
import { DEFAULT_BODY_LIMIT, readBytes, readJson } from './http';
import { idempotencyKeyOf, idempotently } from './idempotency';
import { built } from './once';
import type { RouteSpec } from './route-spec';

/**
 * The arguments the router passes on to every route (Api.fetch: env, exec, the request's session, its authentication).
 */
export type RouteArgs = [
  env: Env,
  exec: ExecutionContext,
  session?: DbSession,
  who?: () => Promise<Authenticated | null>,
];

/** A request as the router hands it to a route: with the raw path params. */
export type RoutedRequest = Request & { params: Record<string, string> };

function decodeParams(raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    try {
      out[k] = decodeURIComponent(v); // `+` stays `+`: never a space in a path
    } catch {
      throw badRequest(`malformed path segment '${v}'`);
    }
  }
  return out;
}

/** The router's handler of one route. */
export function routeHandler<S extends ZodType | undefined>(spec: RouteSpec<S>) {
  return async (req: RoutedRequest, ...[env, exec, session, who]: RouteArgs): Promise<Response> => {
    const dbSession = session ?? new DbSession(env);
    const db = dbSession.db;
    if (spec.auth === 'ops') requireOps(env, req);
    const auth = spec.auth === 'none' || spec.auth === 'ops' ? null : await (who ? who() : authenticate(db, req));
    // The token's expiry and scope are checked before anything of the route's own (its 404s too).
    const caller = auth ? usableToken(auth, env, exec, req.method, spec.reads === true) : null;
    if (spec.auth === 'user' && !caller)
      throw bearerToken(req)
        ? invalidToken('invalid token: it is unknown or was revoked (sign in again: POST /v1/token)')
        : unauthorized();
    const params = decodeParams(req.params);
    noteRoute(spec.edge ?? (spec.reads ? 'keep' : null), caller?.id ?? null, params);
    const ctx = {
      req: req as Request,
      env,
      exec,
      url: new URL(req.url),
      params,
      caller,
      db,
      body: undefined as unknown,
    };
    // Idempotency-Key: the body is read first, whole (it is compared with the first request's), then handed on.
    const key = spec.idempotent ? idempotencyKeyOf(req) : null;
    const options = typeof spec.idempotent === 'object' ? spec.idempotent : {};
    let bytes = new Uint8Array(0);
    if (key !== null && req.body) {
      bytes = (await readBytes(req, options.bodyLimit ?? DEFAULT_BODY_LIMIT)) as Uint8Array<ArrayBuffer>;
      // oxlint-disable-next-line unicorn/no-invalid-fetch-options -- the method is req's, and a request with a body is not a GET
      ctx.req = new Request(req, { body: bytes });
    }
    if (spec.json) {
      const parsed = built(spec.json).safeParse(await readJson(ctx.req, DEFAULT_BODY_LIMIT));
      if (!parsed.success) throw badRequest(describeZodError(parsed.error));
      ctx.body = parsed.data;
    }
    const enter = () => (spec.enter ? spec.enter(ctx) : Promise.resolve(ctx));
    const account = key === null ? null : options.account ? await options.account(ctx as never) : (caller?.id ?? null);
    if (key === null || account === null) return spec.handler((await enter()) as never);
    const route = `${req.method} ${ctx.url.pathname}${ctx.url.search}`;
    const defer = (work: Promise<unknown>) => exec.waitUntil(work);
    return idempotently(dbSession, defer, { key, account, route, body: bytes }, enter, async (c) =>
      spec.handler(c as never),
    );
  };
}

function describeZodError(err: z.ZodError): string {
  return err.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
