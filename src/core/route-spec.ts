/**
 * What a route is declared with: its method, who may call it, its OpenAPI description (zod
 * schemas for params, body and responses) and its handler. Declared once, a route is both
 * served (route-handler.ts) and documented (openapi.ts). Every schema is declared as what
 * builds it (`Schema`), built at its first use (once.ts): the table itself builds none.
 */
import type { z, ZodType } from 'zod';
import type { Ctx } from './context';
import type { EdgeRoute } from './edge-cache';

export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

/**
 * Who may call a route: a signed-in user, anyone (caller may be null), the operator (OPS_TOKEN), or nobody checked
 * here.
 */
export type Auth = 'user' | 'optional' | 'ops' | 'none';

/** A zod schema as a route declares it: the function that builds it (once.ts `built`). */
type Schema<T extends ZodType = ZodType> = () => T;

export interface ResponseSpec {
  description: string;
  /** Media type of the body; omit for bodiless responses. */
  type?: string;
  schema?: Schema;
}

export interface RouteSpec<S extends ZodType | undefined = undefined, C extends Ctx = Ctx> {
  summary: string;
  tag: string;
  auth: Auth;
  /**
   * The route only reads though its method is not GET (the GraphQL API's POST): a token of
   * scope `read` may call it. Every other non-GET route answers such a token 403.
   */
  reads?: true;
  /** A JSON body validated before the handler runs (available as ctx.body). */
  json?: Schema<NonNullable<S>>;
  /** Any other body the handler reads itself, described for the OpenAPI document. */
  body?: { type: string; description?: string; schema?: Schema };
  query?: Schema<z.ZodObject>;
  responses: Record<number, ResponseSpec>;
  /**
   * The route acts (triggers, sends, creates): a request that sends `Idempotency-Key` is answered once and its answer
   * replayed to a retry (core/idempotency.ts). `true`: keys of the signed-in caller, a body of at most 1 MiB.
   */
  idempotent?: true | Idempotency<S>;
  /**
   * What the route checks before it acts, and only reads (a scope's: it loads what the path names and refuses a caller
   * who may not use it); what it answers is the handler's context. An idempotent route runs it beside the claim of its
   * key.
   */
  enter?: (ctx: Ctx) => Promise<Ctx>;
  /**
   * The edge (core/edge-cache.ts): `cache`, a GET whose anonymous answers may be stored (a public read, the same for
   * every anonymous reader); `keep`, a route that changes nothing such an answer shows (no purge). Any other route that
   * is not a GET purges what its request touched.
   */
  edge?: EdgeRoute;
  handler: (ctx: C & { body: S extends ZodType ? z.infer<S> : undefined }) => Response | Promise<Response>;
}

/** How an idempotent route counts its keys, when not as `true` does. */
interface Idempotency<S extends ZodType | undefined = undefined> {
  /**
   * The account whose key it is (null: none, the request is answered as without a key), from the validated request: a
   * route without a signed-in caller (POST /v1/token: the user named in the body). Default: the caller.
   */
  account?: (ctx: Ctx & { body: S extends ZodType ? z.infer<S> : undefined }) => Promise<number | null>;
  /** The most of a body the route reads (default 1 MiB): the body is read whole before the route, to compare it. */
  bodyLimit?: number;
}

/** A route as the table lists it: its declaration less the handler (what the schema tests and docs/ROUTES.md read). */
export interface DeclaredRoute {
  method: Method;
  path: string;
  spec: Omit<RouteSpec<ZodType | undefined>, 'handler'>;
  /** The source file that declared the route (only when the Api records sources: docs/ROUTES.md). */
  file?: string;
  /** The area table (src/<area>/routes.ts) that mounted it (likewise). */
  table?: string;
}
