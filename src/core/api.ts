/**
 * The route table. Every route is declared once with its OpenAPI description (zod
 * schemas for params, body and responses) and registered both on the itty-router that
 * serves it and on the registry that generates /v1/openapi.json, so a route cannot
 * exist without a schema.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { Router, type RouterType } from 'itty-router';
import { z, type ZodType } from 'zod';
import { authenticate, requireOps } from './auth';
import type { User } from '../db/schema';
import { DbSession, type Ctx } from './context';
import { badRequest, HttpError, notFound, toErrorResponse, unauthorized } from './errors';
import { DEFAULT_BODY_LIMIT, readJson } from './http';
import { enforceRateLimit } from './ratelimit';
import { requestSession, withSessionHeaders } from './session';

export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** Who may call a route: a signed-in user, anyone (caller may be null), the operator (OPS_TOKEN), or nobody checked here. */
export type Auth = 'user' | 'optional' | 'ops' | 'none';

export interface ResponseSpec {
  description: string;
  /** Media type of the body; omit for bodiless responses. */
  type?: string;
  schema?: ZodType;
}

export interface RouteSpec<S extends ZodType | undefined = undefined, C extends Ctx = Ctx> {
  summary: string;
  tag: string;
  auth: Auth;
  /** A JSON body validated before the handler runs (available as ctx.body). */
  json?: S;
  /** Any other body the handler reads itself, described for the OpenAPI document. */
  body?: { type: string; description?: string; schema?: ZodType };
  query?: z.ZodObject;
  responses: Record<number, ResponseSpec>;
  handler: (ctx: C & { body: S extends ZodType ? z.infer<S> : undefined }) => Response | Promise<Response>;
}

const errorBody = z.object({ status: z.number().int(), message: z.string() }).passthrough();

function openApiPath(path: string): string {
  return path.replace(/:(\w+)\+?/g, '{$1}');
}

function paramsSchema(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  if (!names.length) return undefined;
  return z.object(Object.fromEntries(names.map((n) => [n, z.string()])));
}

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

/** A route of a scope: the route spec, less what the scope supplies, plus the scope's own fields `X`. */
export type ScopedSpec<S extends ZodType | undefined, C extends Ctx, X> = Omit<RouteSpec<S, C>, 'tag' | 'auth'> & X;

/**
 * Routes below one or more path prefixes whose handlers get the context the scope builds
 * (a loaded resource, group or run, after its access check). The one way to mount routes:
 * the Api itself is the root (`api.get(path, spec)`, its routes naming their own tag and auth).
 */
export interface Scope<C extends Ctx, X> {
  route<S extends ZodType | undefined = undefined>(method: Method, path: string, spec: ScopedSpec<S, C, X>): void;
  get<S extends ZodType | undefined = undefined>(path: string, spec: ScopedSpec<S, C, X>): void;
  put<S extends ZodType | undefined = undefined>(path: string, spec: ScopedSpec<S, C, X>): void;
  post<S extends ZodType | undefined = undefined>(path: string, spec: ScopedSpec<S, C, X>): void;
  patch<S extends ZodType | undefined = undefined>(path: string, spec: ScopedSpec<S, C, X>): void;
  delete<S extends ZodType | undefined = undefined>(path: string, spec: ScopedSpec<S, C, X>): void;
  /** The same scope with `fixed` given to every route (threads below a resource all need `r`). */
  with<K extends keyof X>(fixed: Pick<X, K>): Scope<C, Omit<X, K>>;
}

/** What makes a scope: where its routes live and how a request enters it. */
export interface ScopeDef<C extends Ctx, X> {
  /** Path prefixes (`/v1/vis/docs/:doc`, `/v1/users/:owner/vis/docs/:doc`); each route is registered under every one `under` picks. */
  prefixes: string[];
  /** Which prefixes a route is registered under (default: all). */
  under?: (spec: X) => string[];
  tag: string;
  /** Who may call a route (default: a signed-in user). */
  auth?: (spec: X) => Auth;
  /** The summary as listed under one prefix (default: unchanged). */
  summary?: (summary: string, prefix: string) => string;
  /** Builds the handler's context: loads what the path names and refuses a caller who may not use it (404/403). */
  enter: (ctx: Ctx, spec: X, prefix: string) => Promise<C>;
}

function scopeOf<C extends Ctx, X>(route: <S extends ZodType | undefined>(method: Method, path: string, spec: ScopedSpec<S, C, X>) => void): Scope<C, X> {
  return {
    route,
    get: (path, spec) => route('get', path, spec),
    put: (path, spec) => route('put', path, spec),
    post: (path, spec) => route('post', path, spec),
    patch: (path, spec) => route('patch', path, spec),
    delete: (path, spec) => route('delete', path, spec),
    with: <K extends keyof X>(fixed: Pick<X, K>) =>
      scopeOf<C, Omit<X, K>>((method, path, spec) => route(method, path, { ...fixed, ...spec } as unknown as ScopedSpec<ZodType | undefined, C, X>)),
  };
}

export class Api {
  readonly registry = new OpenAPIRegistry();
  readonly router: RouterType = Router();
  /** [method, path] of every route, in registration order (used by the schema test). */
  readonly table: { method: Method; path: string; spec: RouteSpec<ZodType | undefined, Ctx> }[] = [];

  constructor() {
    this.registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  }

  route<S extends ZodType | undefined = undefined>(method: Method, path: string, spec: RouteSpec<S>): void {
    const responses: RouteConfig['responses'] = {};
    for (const [code, r] of Object.entries(spec.responses)) {
      responses[code] = {
        description: r.description,
        ...(r.type ? { content: { [r.type]: { schema: r.schema ?? (r.type === 'application/json' ? z.unknown() : z.string()) } } } : {}),
      };
    }
    responses.default = { description: 'Error', content: { 'application/json': { schema: errorBody } } };
    const body = spec.json
      ? { content: { 'application/json': { schema: spec.json } }, required: true }
      : spec.body
        ? { description: spec.body.description, content: { [spec.body.type]: { schema: spec.body.schema ?? z.string() } }, required: true }
        : undefined;
    this.registry.registerPath({
      method,
      path: openApiPath(path),
      summary: spec.summary,
      tags: [spec.tag],
      // A token is required (user, ops) or optional (an empty requirement: anonymous allowed).
      ...(spec.auth === 'user' || spec.auth === 'ops' ? { security: [{ bearer: [] }] } : spec.auth === 'optional' ? { security: [{ bearer: [] }, {}] } : {}),
      request: { params: paramsSchema(path), query: spec.query, ...(body ? { body } : {}) },
      responses,
    });
    this.table.push({ method, path, spec: spec as unknown as RouteSpec<ZodType | undefined, Ctx> });

    const run = async (req: Request & { params: Record<string, string> }, env: Env, exec: ExecutionContext, session?: DbSession, who?: () => Promise<User | null>) => {
      const db = (session ?? new DbSession(env)).db;
      if (spec.auth === 'ops') requireOps(env, req);
      const caller = spec.auth === 'none' || spec.auth === 'ops' ? null : await (who ? who() : authenticate(db, req));
      if (spec.auth === 'user' && !caller) throw unauthorized();
      const ctx = {
        req,
        env,
        exec,
        url: new URL(req.url),
        params: decodeParams(req.params),
        caller,
        db,
        body: undefined as unknown,
      };
      if (spec.json) {
        const parsed = spec.json.safeParse(await readJson(req, DEFAULT_BODY_LIMIT));
        if (!parsed.success) throw badRequest(describeZodError(parsed.error));
        ctx.body = parsed.data;
      }
      return spec.handler(ctx as never);
    };
    (this.router as unknown as Record<Method, (p: string, h: typeof run) => void>)[method](path, run);
  }

  get<S extends ZodType | undefined = undefined>(path: string, spec: RouteSpec<S>) {
    this.route('get', path, spec);
  }
  put<S extends ZodType | undefined = undefined>(path: string, spec: RouteSpec<S>) {
    this.route('put', path, spec);
  }
  post<S extends ZodType | undefined = undefined>(path: string, spec: RouteSpec<S>) {
    this.route('post', path, spec);
  }
  patch<S extends ZodType | undefined = undefined>(path: string, spec: RouteSpec<S>) {
    this.route('patch', path, spec);
  }
  delete<S extends ZodType | undefined = undefined>(path: string, spec: RouteSpec<S>) {
    this.route('delete', path, spec);
  }

  /** Routes below `def.prefixes`, each handler given the context `def.enter` builds. */
  scope<C extends Ctx, X>(def: ScopeDef<C, X>): Scope<C, X> {
    return scopeOf<C, X>((method, path, spec) => {
      const { handler, ...rest } = spec as ScopedSpec<ZodType | undefined, C, X> & { handler: (c: C) => Response | Promise<Response> };
      for (const prefix of def.under?.(spec as X) ?? def.prefixes) {
        this.route(method, prefix + path, {
          ...(rest as Omit<RouteSpec<ZodType | undefined>, 'handler' | 'tag' | 'auth'>),
          summary: def.summary ? def.summary(spec.summary, prefix) : spec.summary,
          tag: def.tag,
          auth: def.auth?.(spec as X) ?? 'user',
          handler: async (ctx) => handler(await def.enter(ctx, spec as X, prefix)),
        });
      }
    });
  }

  /** Serves one request: normalise the path, route it, render errors, 404/405 the rest. */
  async fetch(req: Request, env: Env, exec: ExecutionContext): Promise<Response> {
    // HEAD is GET without the body (RFC 9110 §9.3.2): same status and headers. A body
    // sent with HEAD is ignored unread (never buffered, never copied into the GET).
    if (req.method === 'HEAD') {
      let res: Response;
      try {
        res = await this.fetch(bodiless(req, req.url, 'GET'), env, exec);
      } catch (err) {
        res = toErrorResponse(err);
      }
      await res.body?.cancel();
      return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    // D1 session: every query of the request runs in one (reads may go to a replica); its round trips and
    // bookmark are answered in headers (core/session.ts).
    let session: DbSession;
    try {
      session = requestSession(req, env);
    } catch (err) {
      return withSessionHeaders(toErrorResponse(err), null);
    }
    return withSessionHeaders(await this.serve(req, env, exec, session), session);
  }

  private async serve(req: Request, env: Env, exec: ExecutionContext, session: DbSession): Promise<Response> {
    try {
      // The request's authentication, looked up once: the rate limit keys on the caller's
      // account, and the route gets the same answer (no second lookup).
      let authenticated: Promise<User | null> | undefined;
      const who = () => (authenticated ??= authenticate(session.db, req));
      // Rate limits: before routing; a token lookup only past the address's ceiling.
      await enforceRateLimit(req, env, who);

      const normalised = normalisePath(req);
      const path = new URL(normalised.url).pathname;
      // Without OPS_TOKEN the operator interface does not exist: 404 for every method.
      if (!env.OPS_TOKEN && (path === '/v1/ops' || path.startsWith('/v1/ops/'))) throw notFound(`no such route: ${path}`);
      const res: Response | undefined = await this.router.fetch(normalised, env, exec, session, who);
      if (res) return res;
      const allowed = this.router.routes.filter(([, re]) => re.test(path)).flatMap(([m]) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
      if (allowed.length) {
        throw new HttpError(405, `method ${req.method} not allowed here`, { allowed }, { Allow: [...new Set(allowed)].join(', ') });
      }
      throw notFound(`no such route: ${path}`);
    } catch (err) {
      return toErrorResponse(err);
    }
  }

  openApiDocument(): object {
    return new OpenApiGeneratorV31(this.registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: { title: 'Edge platform API', version: '1' },
    });
  }
}

/** Tolerant paths: repeated slashes collapse and a trailing slash is ignored. */
export function normalisePath(req: Request): Request {
  const url = new URL(req.url);
  const clean = url.pathname.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
  if (clean === url.pathname) return req;
  url.pathname = clean;
  // GET and HEAD may arrive with a body a Request of theirs cannot carry: drop it.
  return req.method === 'GET' || req.method === 'HEAD' ? bodiless(req, url.toString(), req.method) : new Request(url.toString(), req);
}

/**
 * A copy of a request without its body (for GET and HEAD, which cannot carry one). The
 * incoming body is left alone: never read, never copied (so neither its size nor its
 * state matters and the copy cannot throw on it); the runtime discards it. Cancelling it
 * here made wrangler dev's proxy hang or answer 500 (test/e2e/never-500.test.ts).
 */
export function bodiless(req: Request, url: string, method: 'GET' | 'HEAD'): Request {
  return new Request(url, { method, headers: req.headers });
}

export function describeZodError(err: z.ZodError): string {
  return err.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
