/**
 * The route table. Every route is declared once with its OpenAPI description
 * (route-spec.ts) and registered both on the itty-router that serves it (route-handler.ts,
 * serve.ts) and in the table the OpenAPI document /v1/openapi.json is generated from
 * (openapi.ts), so a route cannot exist without a schema. Routes below a prefix are mounted through scopes (scope.ts).
 */
import { Router } from 'itty-router';
import type { ZodType } from 'zod';
import type { Ctx } from './context';
import { openApiDocument, type DocumentInfo } from './openapi';
import { routeHandler } from './route-handler';
import type { DeclaredRoute, Method, RouteSpec } from './route-spec';
import { declarationSite } from './route-source';
import { scopeOn, type Scope, type ScopeDef } from './scope';
import { serveRequest, type ApiRouter } from './serve';

export type { Auth, Method, ResponseSpec, RouteSpec } from './route-spec';
export type { Scope, ScopeDef } from './scope';

export interface ApiOptions {
  /**
   * Record in each table entry the file that declared the route and the area table that mounted it (docs/ROUTES.md;
   * costs a stack trace per route).
   */
  recordSources?: boolean;
}

export class Api {
  readonly router: ApiRouter = Router();
  /** Every route, in registration order (the router's order: the first match answers). */
  readonly table: DeclaredRoute[] = [];
  /** The patterns of the GET routes whose anonymous answers the edge keeps (core/edge-cache.ts). */
  readonly edgePaths: RegExp[] = [];

  constructor(private readonly options: ApiOptions = {}) {}

  route<S extends ZodType | undefined = undefined>(method: Method, path: string, spec: RouteSpec<S>): void {
    this.table.push({ method, path, spec, ...(this.options.recordSources ? declarationSite() : {}) });
    this.router[method](path, routeHandler(spec));
    if (method === 'get' && spec.edge === 'cache') this.edgePaths.push(this.router.routes.at(-1)![1]);
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
    return scopeOn<C, X>((method, path, spec) => this.route(method, path, spec), def);
  }

  /** Serves one request (serve.ts). */
  fetch(req: Request, env: Env, exec: ExecutionContext): Promise<Response> {
    return serveRequest(this.router, req, env, exec, this.edgePaths);
  }

  /**
   * The OpenAPI document of the table (openapi.ts), built on each call; without `info`, no server and no introduction
   * (what /v1/openapi.json serves: meta/reference-routes.ts).
   */
  openApiDocument(info?: DocumentInfo): object {
    return openApiDocument(this.table, info);
  }
}
