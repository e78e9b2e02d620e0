/**
 * What a resource kind is (documents, grids, mails, jobs): its entries, folders and hooks,
 * and the context a route below one resource gets.
 */
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { ZodType } from 'zod';
import type { Resource, ResourceKindName, User } from '../../db/schema';
import type { RouteSpec, Scope } from '../api';
import type { Ctx } from '../context';
import type { StoredAuthorship, StoredEntry } from '../entries';
import type { Access, Perm } from '../perms';
import type { CompositionPath, Reference } from './paths';

/** A resource loaded for a request, with the caller's access to it. */
export interface ResourceCtx extends Ctx {
  resource: Resource;
  owner: User;
  access: Access;
  kind: ResourceKind;
  /** Path of the resource as the caller addressed it (`/v1/vis/docs/x` or `/v1/users/o/vis/docs/x`). */
  base: string;
  /** What the route asked to have read with the resource (ResourceRouteSpec.preload). */
  preloaded?: Preloaded;
}

/** Reads a route may ask for in the resource's own D1 round trip. */
export interface Preload {
  /** Every text entry of the resource (values in R2 fetched after). */
  entries?: true;
  /** The caller's row as D1 has it now (the auth cache may be seconds stale). */
  caller?: true;
  /** The stored entries with sizes and dates (listEntries), for folder listings. */
  listing?: true;
  /** A query of the route's own; `resourceId` is SQL naming the resource's id. Its rows land in `preloaded.rows`. */
  rows?: (ctx: Ctx, resourceId: SQL) => BatchItem<'sqlite'>;
  /** Further queries of the route's own, as `rows`; their rows land in `preloaded.extra`, in order. */
  extra?: ((ctx: Ctx, resourceId: SQL) => BatchItem<'sqlite'>)[];
}

export interface Preloaded {
  entries?: Map<string, string>;
  /** Who each of `entries` lends the rights of (its writer, vouched references), read with them. */
  authorship?: Map<string, StoredAuthorship>;
  caller?: User;
  listing?: StoredEntry[];
  rows?: unknown[];
  extra?: unknown[][];
}

export interface EntrySpec {
  /** Path below the resource: `content`, `config/type`. */
  path: string;
  /** `rw` read and write; `r` read-only (computed or system-written); `w` write-only. */
  access: 'rw' | 'r' | 'w';
  /** What the entry reads as when never written (or cleared). */
  default?: string;
  /**
   * What a value reads like: the example of its GET and POST bodies in the OpenAPI
   * document (examples.ts). Without it, the default when that is not empty.
   */
  example?: string;
  /** Largest body accepted, in bytes (413 above it). */
  limit?: number;
  /** Rejects a value with a message (400), or throws an HttpError of its own. */
  validate?: (value: string, rc: ResourceCtx) => string | void | Promise<string | void>;
  /** A computed read-only value. */
  compute?: (rc: ResourceCtx) => string | Promise<string>;
  /** Runs after a write or a clear (value null), e.g. to re-parse. */
  afterWrite?: (rc: ResourceCtx, value: string | null) => Promise<void>;
  /** Log lines of a write or a clear (value null), stored in the write's batch before the generic one. */
  logLines?: (rc: ResourceCtx, value: string | null) => string[];
  /** Reads a write or a clear asks for with the resource (rc.preloaded), e.g. for `validate`. */
  writePreload?: Preload;
  /**
   * Statements joining the batch of a write or a clear (value null), e.g. what is derived
   * from the value; `after` runs once the batch has. With them the log line joins the batch
   * too, and `afterWrite` (if any) only checks or settles: it logs nothing.
   */
  writeStatements?: (
    rc: ResourceCtx,
    value: string | null,
  ) => Promise<{ statements: BatchItem<'sqlite'>[]; after?: () => Promise<void> }>;
  /**
   * What a value names, resolved when it is used along composition path `path` with the
   * rights of the owner and the writer (composition.ts): when someone other than the owner
   * writes the entry, each added one must be readable by the writer (400, references.ts).
   */
  references?: {
    path: CompositionPath;
    of: (value: string, rc: ResourceCtx) => Reference[] | Promise<Reference[]>;
  };
  /** Where a second path names the same entry (`subject` = `config/subject`). */
  aliases?: string[];
  summary?: string;
}

export interface ResourceKind {
  kind: ResourceKindName;
  /** Collection path below /v1 (`vis/docs`). */
  collection: string;
  /** Path parameter naming one resource (`doc`). */
  param: string;
  /** The word users see in messages (`document`). */
  noun: string;
  entries: EntrySpec[];
  /** Folders the area serves itself, listed in the resource root (or in their parent folder: `config/env`). */
  folders?: string[];
  /**
   * Files the area serves itself, listed in the resource root, with their access (`own`: per caller, any reader
   * writes).
   */
  files?: { name: string; access: 'rw' | 'r' | 'w' | 'own' }[];
  /** Keep a `log` of what happened to the resource (served at <resource>/log). */
  log?: boolean;
  /** Canonical url of a resource, when it has one. */
  url?: (env: Env, owner: string, name: string) => string;
  /** Entries not carried over by a copy. */
  copyExcludes?: (path: string) => boolean;
  /** Area data beyond entries to carry over by a copy (assets, ...). */
  copied?: (from: ResourceCtx, to: Resource) => Promise<void>;
  /** A read of the area's rows a copy carries over, batched with the resource's load (PATCH). */
  copyRead?: (ctx: Ctx, resourceId: SQL) => BatchItem<'sqlite'>;
  /**
   * The statements storing those rows (copyRead's) for the copy, joined to the copy's one batch; may copy blobs first.
   */
  copyWrites?: (from: ResourceCtx, to: Resource, rows: unknown[]) => Promise<BatchItem<'sqlite'>[]>;
  /**
   * Entries of a copy computed from its copied entries (path -> value), stored in the copy's batch (a grid's parse
   * names its id).
   */
  copyDerived?: (to: Resource, values: Map<string, string>) => Record<string, string>;
  /**
   * Runs before the resource row is deleted (by its DELETE route, or with its owner's account): what the area keeps
   * outside D1 and R2 (Durable Object storage).
   */
  deleting?: (env: Env, resource: Resource) => Promise<void>;
}

/** Area routes below a resource: `path` is relative (`/assets/:asset`). */
interface ResourceRouteSpec<S extends ZodType | undefined = undefined> extends Omit<
  RouteSpec<S, ResourceCtx>,
  'auth' | 'handler' | 'tag'
> {
  /** What the caller needs: r/w/d/x, or `owner`. Without read access the resource is 404. */
  need: Perm | 'owner';
  /** Anonymous callers may use the route on public resources (document assets). */
  anonymous?: boolean;
  /** Reads batched with the resource's own (rc.preloaded): one D1 round trip instead of several. */
  preload?: Preload;
  handler: RouteSpec<S, ResourceCtx>['handler'];
}

/**
 * Routes below one resource (`r.get('/assets/:asset', ...)`): each handler gets the loaded resource after the access
 * check.
 */
export type ResourceRoutes = Scope<ResourceCtx, ResourceScoped>;
/** What a resource route adds to a route spec (ResourceRouteSpec less the route's own). */
export type ResourceScoped = Pick<ResourceRouteSpec, 'need' | 'anonymous' | 'preload'>;
