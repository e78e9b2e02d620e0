/**
 * Scopes: routes below one or more path prefixes whose handlers get the context the scope
 * builds (a loaded resource, group or run, after its access check). The one way to mount
 * routes: the Api itself is the root (`api.get(path, spec)`, its routes naming their own
 * tag and auth); `api.scope(def)` makes the others.
 */
import type { ZodType } from 'zod';
import type { Ctx } from './context';
import type { Auth, Method, RouteSpec } from './route-spec';

/** A route of a scope: the route spec, less what the scope supplies, plus the scope's own fields `X`. */
type ScopedSpec<S extends ZodType | undefined, C extends Ctx, X> = Omit<RouteSpec<S, C>, 'tag' | 'auth' | 'enter'> & X;

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
  /**
   * Path prefixes (`/v1/vis/docs/:doc`, `/v1/users/:owner/vis/docs/:doc`); each route is registered under every one
   * `under` picks.
   */
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

/** How a scope registers a route: the root's (Api.route) or an enclosing scope's. */
type Register<C extends Ctx, X> = <S extends ZodType | undefined>(
  method: Method,
  path: string,
  spec: ScopedSpec<S, C, X>,
) => void;

/**
 * A route's fields with what `with` fixed put back: the whole `X` (`Pick<X, K> & Omit<X, K>`, which TS does not reduce
 * to `X`).
 */
function withFixed<S extends ZodType | undefined, C extends Ctx, X, K extends keyof X>(
  fixed: Pick<X, K>,
  spec: ScopedSpec<S, C, Omit<X, K>>,
): ScopedSpec<S, C, X> {
  return { ...fixed, ...spec } as ScopedSpec<S, C, X>;
}

function scopeOf<C extends Ctx, X>(route: Register<C, X>): Scope<C, X> {
  return {
    route,
    get: (path, spec) => route('get', path, spec),
    put: (path, spec) => route('put', path, spec),
    post: (path, spec) => route('post', path, spec),
    patch: (path, spec) => route('patch', path, spec),
    delete: (path, spec) => route('delete', path, spec),
    with: <K extends keyof X>(fixed: Pick<X, K>) =>
      scopeOf<C, Omit<X, K>>((method, path, spec) => route(method, path, withFixed(fixed, spec))),
  };
}

/** The scope `def` makes on the root `register` (Api.route). */
export function scopeOn<C extends Ctx, X>(
  register: <S extends ZodType | undefined>(method: Method, path: string, spec: RouteSpec<S>) => void,
  def: ScopeDef<C, X>,
): Scope<C, X> {
  return scopeOf<C, X>((method, path, spec) => {
    const { handler, ...rest } = spec as ScopedSpec<ZodType | undefined, C, X> & {
      handler: (c: C) => Response | Promise<Response>;
    };
    for (const prefix of def.under?.(spec as X) ?? def.prefixes) {
      register(method, prefix + path, {
        ...(rest as Omit<RouteSpec<ZodType | undefined>, 'handler' | 'tag' | 'auth'>),
        summary: def.summary ? def.summary(spec.summary, prefix) : spec.summary,
        tag: def.tag,
        auth: def.auth?.(spec as X) ?? 'user',
        enter: (ctx) => def.enter(ctx, spec as X, prefix),
        handler: (ctx) => handler(ctx as unknown as C),
      });
    }
  });
}
