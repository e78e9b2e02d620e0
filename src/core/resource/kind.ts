/**
 * Resources: documents, grids, mails and jobs are all folders of entries owned by a user
 * and shared through sharing entries. This module holds what they have in common and
 * generates their common routes from a `ResourceKind` description, under both the
 * caller's own paths (`/v1/vis/docs/:doc`) and the owner's paths as seen by a share
 * grantee (`/v1/users/:owner/vis/docs/:doc`). Areas add their own routes with `extend`.
 */
import { and, asc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z, type ZodType } from 'zod';
import { resources, shares, tags, users, type Resource, type ResourceKindName, type User } from '../../db/schema';
import type { Api, RouteSpec, Scope } from '../api';
import { nowIso } from '../clock';
import type { Ctx } from '../context';
import { base64url, randomBytes } from '../crypto';
import { clearEntry, copyEntryStatements, d1Chunks, deleteBlobs, entriesQuery, entryQuery, entryValue, entryValues, listEntries, listEntriesQuery, readEntry, writeEntry, type StoredEntry } from '../entries';
import { badRequest, conflict, forbidden, notFound } from '../errors';
import { DEFAULT_BODY_LIMIT, jsonResponse, mediaType, noContent, readJson, readText, textResponse } from '../http';
import { fileActions, filePerms, type ListingItem, listingItemSchema, listingResponse, listingResponses, listingSchema, type Verb } from '../listing';
import { appendLog, logInsert, logResponse, readLog } from '../log';
import { resourceName } from '../names';
import { accessFromGrants, OWNER_ACCESS, permList, type Access, type Perm, type ShareGrant } from '../perms';
import { groupRefQuery, parseShareEntry } from '../sharing';

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
  writeStatements?: (rc: ResourceCtx, value: string | null) => Promise<{ statements: BatchItem<'sqlite'>[]; after?: () => Promise<void> }>;
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
  /** Files the area serves itself, listed in the resource root, with their access (`own`: per caller, any reader writes). */
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
  /** The statements storing those rows (copyRead's) for the copy, joined to the copy's one batch; may copy blobs first. */
  copyWrites?: (from: ResourceCtx, to: Resource, rows: unknown[]) => Promise<BatchItem<'sqlite'>[]>;
  /** Entries of a copy computed from its copied entries (path -> value), stored in the copy's batch (a grid's parse names its id). */
  copyDerived?: (to: Resource, values: Map<string, string>) => Record<string, string>;
  /** Runs before the resource row is deleted. */
  deleting?: (rc: ResourceCtx) => Promise<void>;
}

/** Area routes below a resource: `path` is relative (`/assets/:asset`). */
export interface ResourceRouteSpec<S extends ZodType | undefined = undefined> extends Omit<RouteSpec<S, ResourceCtx>, 'auth' | 'handler' | 'tag'> {
  /** What the caller needs: r/w/d/x, or `owner`. Without read access the resource is 404. */
  need: Perm | 'owner';
  /** Anonymous callers may use the route on public resources (document assets). */
  anonymous?: boolean;
  /** Reads batched with the resource's own (rc.preloaded): one D1 round trip instead of several. */
  preload?: Preload;
  handler: RouteSpec<S, ResourceCtx>['handler'];
}

/** Routes below one resource (`r.get('/assets/:asset', ...)`): each handler gets the loaded resource after the access check. */
export type ResourceRoutes = Scope<ResourceCtx, ResourceScoped>;
/** What a resource route adds to a route spec (ResourceRouteSpec less the route's own). */
export type ResourceScoped = Pick<ResourceRouteSpec, 'need' | 'anonymous' | 'preload'>;

const shortnameOf = () => base64url(randomBytes(6)).toLowerCase().replace(/[^a-z0-9]/g, 'x');

export async function findUser(ctx: Pick<Ctx, 'db' | 'caller'>, username: string): Promise<User | null> {
  if (ctx.caller?.username === username) return ctx.caller;
  return (await ctx.db.select().from(users).where(eq(users.username, username)).get()) ?? null;
}

/**
 * Loads the resource a request names, with the caller's access. A resource the caller
 * may not read answers 404, as does a missing one: existence is never revealed.
 * One D1 round trip: the owner, the resource with the caller's share grants and whatever
 * the route preloads are read in one batch, each finding the resource by the same
 * condition (the caller's own resources need no owner row and no grants).
 */
export async function loadResource(ctx: Ctx, kind: ResourceKind, name = ctx.params[kind.param]!, preload: Preload = {}): Promise<ResourceCtx> {
  const ownerName = ctx.params.owner ?? ctx.caller?.username;
  const missing = () => notFound(`no such ${kind.noun}: ${name}`);
  if (!ownerName) throw missing();
  const caller = ctx.caller;
  const own = caller?.username === ownerName;
  const ownerId = own ? caller!.id : sql`(select ${users.id} from ${users} where ${users.username} = ${ownerName})`;
  const named = and(eq(resources.owner_id, ownerId), eq(resources.kind, kind.kind), eq(resources.name, name));
  const id = sql`(select ${resources.id} from ${resources} where ${named})`;
  const batch: BatchItem<'sqlite'>[] = [];
  const add = (q: BatchItem<'sqlite'>) => batch.push(q) - 1;
  const at = {
    resource: add(
      ctx.db
        .select({ ...getTableColumns(resources), grants: own ? sql<string>`'[]'` : grantsColumn(caller?.id ?? -1) })
        .from(resources)
        .where(named),
    ),
    owner: own ? -1 : add(ctx.db.select().from(users).where(eq(users.username, ownerName))),
    caller: preload.caller ? add(ctx.db.select().from(users).where(eq(users.id, caller?.id ?? -1))) : -1,
    entries: preload.entries ? add(entriesQuery(ctx.db, id)) : -1,
    listing: preload.listing ? add(listEntriesQuery(ctx.db, id)) : -1,
    rows: preload.rows ? add(preload.rows(ctx, id)) : -1,
    extra: (preload.extra ?? []).map((q) => add(q(ctx, id))),
  };
  const results = (await ctx.db.batch(batch as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown[][];
  const owner = own ? caller! : (results[at.owner]![0] as User | undefined);
  const row = results[at.resource]![0] as (Resource & { grants: string }) | undefined;
  if (!owner || !row) throw missing();
  const { grants, ...resource } = row;
  const access = own || caller?.id === resource.owner_id ? OWNER_ACCESS : accessFromGrants(resource.kind, JSON.parse(grants) as ShareGrant[]);
  if (!access.r) throw missing();
  let preloaded: Preloaded | undefined;
  if (batch.length > (own ? 1 : 2)) {
    preloaded = {
      ...(preload.caller ? { caller: (results[at.caller]![0] as User | undefined) ?? caller ?? undefined } : {}),
      ...(preload.entries ? { entries: await entryValues(ctx.env, results[at.entries] as StoredEntry[]) } : {}),
      ...(preload.listing ? { listing: results[at.listing] as StoredEntry[] } : {}),
      ...(preload.rows ? { rows: results[at.rows] } : {}),
      ...(preload.extra ? { extra: at.extra.map((i) => results[i]!) } : {}),
    };
  }
  const base = ctx.params.owner ? `/v1/users/${owner.username}/${kind.collection}/${name}` : `/v1/${kind.collection}/${name}`;
  return { ...ctx, resource, owner, access, kind, base, ...(preloaded ? { preloaded } : {}) };
}

/** Throws 403 when the caller (who can see the resource) lacks `need`. */
export function requireAccess(rc: ResourceCtx, need: Perm | 'owner'): void {
  const ok = need === 'owner' ? rc.access.owner : rc.access[need];
  if (ok) return;
  const what = { r: 'read', w: 'change', d: 'delete', x: 'execute', owner: 'do this with' }[need];
  throw forbidden(`you may not ${what} this ${rc.kind.noun}`);
}

/**
 * A listing item inside a resource. A file's permissions are what the caller can do to it
 * (a read-only entry is `r` even for the owner); a folder carries the caller's permissions
 * on the resource.
 */
export function listingItem(rc: Pick<ResourceCtx, 'access'>, name: string, uri: string, type: 'dir' | 'file', actions: Verb[], created: string, modified: string): ListingItem {
  return { name, uri, type, permissions: type === 'file' ? filePerms(actions) : permList(rc.access), actions, created_on: created, last_modified: modified };
}

function resourceActions(a: Access): Verb[] {
  const out: Verb[] = ['GET'];
  if (a.r) out.push('PATCH'); // copy needs read; rename needs ownership (checked on use)
  if (a.d) out.push('DELETE');
  return out;
}

function resourceItem(kind: ResourceKind, uriBase: string, r: Pick<Resource, 'name' | 'created_on' | 'last_modified'>, a: Access): ListingItem {
  return {
    name: r.name,
    uri: `${uriBase}/${r.name}`,
    type: 'dir',
    permissions: permList(a),
    actions: resourceActions(a),
    created_on: r.created_on,
    last_modified: r.last_modified,
  };
}

/** What a collection listing reads of each resource (less to carry for a thousand rows). */
const listedColumns = { name: resources.name, created_on: resources.created_on, last_modified: resources.last_modified };

/** SQL condition: the caller (id, -1 for anonymous) may read the resource row through a share. */
export function readableThroughShare(callerId: number): SQL {
  return sql`exists (select 1 from shares s left join members m on m.group_id = s.group_id and m.user_id = ${callerId} and m.state = 'active'
                    where s.resource_id = ${resources.id} and (s.group_id is null or m.user_id is not null))`;
}

/**
 * SQL column: the caller's share grants on the resource row as a JSON array of
 * {group_id, perms, role} (role null unless an active member), for accessFromGrants.
 */
function grantsColumn(callerId: number): SQL<string> {
  return sql<string>`(select json_group_array(json_object('group_id', s.group_id, 'perms', s.perms, 'role', m.role)) from shares s
                      left join members m on m.group_id = s.group_id and m.user_id = ${callerId} and m.state = 'active'
                      where s.resource_id = ${resources.id})`;
}

/**
 * Resources of one kind owned by `ownerId` that the caller may read: all of them for the
 * owner (`own`), else those shared with the caller (publicly or through a group).
 */
export function visibleWhere(ctx: Pick<Ctx, 'caller'>, kind: ResourceKindName, ownerId: number | SQL, own = false): SQL {
  return and(eq(resources.owner_id, ownerId), eq(resources.kind, kind), own ? undefined : readableThroughShare(ctx.caller?.id ?? -1))!;
}

/** Resources of `owner` of this kind that the caller may read through a share, with their grants (withAccess). */
function visibleWithAccessQuery(ctx: Ctx, kind: ResourceKind, ownerId: number | SQL) {
  return ctx.db
    .select({ ...getTableColumns(resources), grants: grantsColumn(ctx.caller?.id ?? -1) })
    .from(resources)
    .where(visibleWhere(ctx, kind.kind, ownerId))
    .orderBy(asc(resources.name));
}

/** The rows of visibleWithAccessQuery with what each grants the caller. */
function withAccess(rows: (Resource & { grants: string })[]): { resource: Resource; access: Access }[] {
  return rows.map(({ grants, ...resource }) => ({ resource, access: accessFromGrants(resource.kind, JSON.parse(grants) as ShareGrant[]) }));
}

/** Resources of `owner` of this kind that the caller may read through a share. */
export async function visibleResources(ctx: Ctx, kind: ResourceKind, ownerId: number): Promise<Resource[]> {
  return ctx.db.select().from(resources).where(visibleWhere(ctx, kind.kind, ownerId)).orderBy(asc(resources.name));
}

async function createResource(ctx: Ctx, kind: ResourceKind, owner: User, name: string): Promise<Resource> {
  const now = nowIso();
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await ctx.db
        .insert(resources)
        .values({ kind: kind.kind, owner_id: owner.id, name, shortname: shortnameOf(), created_on: now, last_modified: now })
        .returning()
        .get();
      return row;
    } catch (err) {
      const exists = await ctx.db
        .select({ id: resources.id })
        .from(resources)
        .where(and(eq(resources.owner_id, owner.id), eq(resources.kind, kind.kind), eq(resources.name, name)))
        .get();
      if (exists) throw conflict(`${kind.noun} '${name}' already exists`);
      if (attempt >= 3) throw err; // shortname collisions are astronomically rare
    }
  }
}

const patchJson = z.object({ name: z.string(), copy: z.boolean().optional() });

/**
 * Routes below one resource of `kind`, registered under both the owner's path and the
 * share grantee's path; each handler gets the loaded resource after the access check.
 * Another area may add routes to a kind it does not own (rendering adds files/doc.pdf).
 */
export function resourceRouter(api: Api, kind: ResourceKind): ResourceRoutes {
  return api.scope<ResourceCtx, ResourceScoped>({
    prefixes: [`/v1/${kind.collection}/:${kind.param}`, `/v1/users/:owner/${kind.collection}/:${kind.param}`],
    tag: kind.collection,
    auth: (spec) => (spec.anonymous ? 'optional' : 'user'),
    enter: async (ctx, spec) => {
      const rc = await loadResource(ctx, kind, undefined, spec.preload);
      requireAccess(rc, spec.need);
      return rc;
    },
  });
}

/** GET `/<folder>`: a fixed folder of read-only files (e.g. `stats/` holding `runs`). */
export function fixedFolderRoute(r: ResourceRoutes, folder: string, files: string[]): void {
  r.get(`/${folder}`, {
    summary: `List ${folder}/`,
    need: 'r',
    responses: listingResponses,
    handler: async (rc) =>
      listingResponse(files.map((f) => listingItem(rc, f, `${rc.base}/${folder}/${f}`, 'file', ['GET'], rc.resource.created_on, rc.resource.last_modified))),
  });
}

/** Registers the common routes of a resource kind, then the area's own via `extend`. */
export function resourceRoutes(api: Api, kind: ResourceKind, extend?: (r: ResourceRoutes) => void): void {
  const tag = kind.collection;
  const own = `/v1/${kind.collection}`;
  const shared = `/v1/users/:owner/${kind.collection}`;
  const P = `:${kind.param}`;
  const log = (rc: ResourceCtx, message: string) => (kind.log ? appendLog(rc.db, rc.resource.id, message) : Promise.resolve());

  // Collection
  api.get(own, {
    summary: `List the caller's ${kind.noun}s`,
    tag,
    auth: 'user',
    responses: listingResponses,
    handler: async (ctx) => {
      const rows = await ctx.db
        .select(listedColumns)
        .from(resources)
        .where(and(eq(resources.owner_id, ctx.caller!.id), eq(resources.kind, kind.kind)))
        .orderBy(asc(resources.name));
      return listingResponse(rows.map((r) => resourceItem(kind, own, r, OWNER_ACCESS)));
    },
  });
  api.get(shared, {
    summary: `List a user's ${kind.noun}s visible to the caller`,
    tag,
    auth: 'optional',
    responses: listingResponses,
    handler: async (ctx) => {
      const ownerName = ctx.params.owner!;
      if (ctx.caller?.username === ownerName) {
        const owner = ctx.caller;
        const uriBase = `/v1/users/${owner.username}/${kind.collection}`;
        const rows = await ctx.db.select(listedColumns).from(resources).where(and(eq(resources.owner_id, owner.id), eq(resources.kind, kind.kind))).orderBy(asc(resources.name));
        return listingResponse(rows.map((r) => resourceItem(kind, uriBase, r, OWNER_ACCESS)));
      }
      // The owner and what the caller sees of theirs in one D1 round trip.
      const ownerId = sql`(select ${users.id} from ${users} where ${users.username} = ${ownerName})`;
      const [owners, rows] = await ctx.db.batch([ctx.db.select().from(users).where(eq(users.username, ownerName)), visibleWithAccessQuery(ctx, kind, ownerId)]);
      const owner = owners[0];
      if (!owner) throw notFound(`no such user: ${ctx.params.owner}`);
      const uriBase = `/v1/users/${owner.username}/${kind.collection}`;
      return listingResponse(withAccess(rows).map(({ resource, access }) => resourceItem(kind, uriBase, resource, access)));
    },
  });
  api.put(`${own}/${P}`, {
    summary: `Create a ${kind.noun}`,
    tag,
    auth: 'user',
    responses: {
      201: { description: 'Created', type: 'application/json', schema: listingItemSchema },
      409: { description: 'Already exists' },
    },
    handler: async (ctx) => {
      const name = resourceName(ctx.params[kind.param]!, `${kind.noun} name`);
      const r = await createResource(ctx, kind, ctx.caller!, name);
      if (kind.log) await appendLog(ctx.db, r.id, `${kind.noun} created`);
      return jsonResponse(resourceItem(kind, own, r, OWNER_ACCESS), { status: 201 });
    },
  });

  const routes = resourceRouter(api, kind);

  // The resource folder
  routes.get('', {
    summary: `List the entries of a ${kind.noun}`,
    need: 'r',
    preload: { listing: true },
    responses: { 200: { description: 'Folder listing (X-NVM-Permissions carries the caller\'s permissions)', type: 'application/json', schema: listingSchema } },
    handler: async (rc) => {
      const items = await folderItems(rc, '');
      return listingResponse(items, { 'X-NVM-Permissions': permList(rc.access).join(', ') });
    },
  });
  routes.patch('', {
    summary: `Rename (text/plain new name) or copy (JSON {name, copy: true}) a ${kind.noun}`,
    need: 'r',
    // What a copy carries over is read with the resource: entries, the caller's tags, area rows.
    preload: {
      listing: true,
      rows: (ctx: Ctx, id: SQL) => ctx.db.select().from(tags).where(and(eq(tags.resource_id, id), eq(tags.user_id, ctx.caller?.id ?? -1))),
      ...(kind.copyRead ? { extra: [kind.copyRead] } : {}),
    },
    body: { type: 'text/plain', description: 'The new name; or application/json {name, copy}' },
    responses: {
      200: { description: 'Renamed', type: 'application/json', schema: listingItemSchema },
      201: { description: 'Copied', type: 'application/json', schema: listingItemSchema },
    },
    handler: async (rc) => {
      let name: string;
      let copy = false;
      if (mediaType(rc.req) === 'application/json') {
        const parsed = patchJson.safeParse(await readJson(rc.req));
        if (!parsed.success) throw badRequest('expected JSON {name: string, copy: boolean}');
        ({ name } = parsed.data);
        copy = parsed.data.copy ?? false;
      } else {
        name = await readText(rc.req, 1024);
      }
      resourceName(name, `${kind.noun} name`);
      if (copy) return copyResource(rc, name);
      requireAccess(rc, 'owner');
      if (name === rc.resource.name) return jsonResponse(resourceItem(kind, own, rc.resource, rc.access));
      // The rename and its log line in one batch: a taken name fails the unique index and stores nothing.
      const update = rc.db.update(resources).set({ name, last_modified: nowIso() }).where(eq(resources.id, rc.resource.id)).returning();
      let updated: Resource | undefined;
      try {
        updated = kind.log ? (await rc.db.batch([update, logInsert(rc.db, rc.resource.id, `renamed from ${rc.resource.name} to ${name}`)]))[0][0] : (await update)[0];
      } catch (err) {
        const exists = await rc.db
          .select({ id: resources.id })
          .from(resources)
          .where(and(eq(resources.owner_id, rc.owner.id), eq(resources.kind, kind.kind), eq(resources.name, name)))
          .get();
        if (exists) throw conflict(`${kind.noun} '${name}' already exists`);
        throw err;
      }
      if (!updated) throw notFound(`no such ${kind.noun}: ${rc.resource.name}`);
      return jsonResponse(resourceItem(kind, own, updated, rc.access));
    },
  });
  routes.delete('', {
    summary: `Delete a ${kind.noun}`,
    need: 'd',
    responses: { 204: { description: 'Deleted' } },
    handler: async (rc) => {
      await kind.deleting?.(rc);
      await rc.db.delete(resources).where(eq(resources.id, rc.resource.id));
      rc.exec.waitUntil(deleteBlobs(rc.env, rc.resource.id));
      return noContent();
    },
  });

  // Text entries, their folders and aliases
  for (const spec of kind.entries) entryRoutes(routes, kind, spec, log);
  for (const dir of derivedFolders(kind)) {
    routes.get(`/${dir}`, {
      summary: `List ${dir}/ of a ${kind.noun}`,
      need: 'r',
      preload: { listing: true },
      responses: listingResponses,
      handler: async (rc) => listingResponse(await folderItems(rc, `${dir}/`)),
    });
  }

  // Sharing
  routes.get('/shared', {
    summary: 'List sharing entries',
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const rows = await rc.db.select().from(shares).where(eq(shares.resource_id, rc.resource.id)).orderBy(asc(shares.entry));
      const actions: Verb[] = rc.access.owner ? ['GET', 'DELETE'] : ['GET'];
      return listingResponse(rows.map((s) => listingItem(rc, s.entry, `${rc.base}/shared/${s.entry}`, 'file', actions, s.created_on, s.created_on)));
    },
  });
  routes.put('/shared/:entry', {
    summary: 'Share: public, @user~group, +org~group or +org, with an optional ~perms suffix',
    need: 'owner',
    // The owner is the caller: read their row fresh, the auth cache may hold an old profile_public.
    preload: { caller: true },
    responses: { 201: { description: 'Shared' }, 403: { description: 'Public share while the owner profile is private' }, 409: { description: 'Already shared' } },
    handler: async (rc) => {
      const ref = parseShareEntry(rc.params.entry!);
      if (!ref.groupRef && !(rc.preloaded?.caller ?? rc.owner).profile_public) {
        throw forbidden('sharing with public requires a public profile: set it with POST /v1/admin/profile/public yes (profile_public is false)');
      }
      // The group and an existing share read together; the share and its log line written together.
      const [groupRows, existing] = await rc.db.batch([
        groupRefQuery(rc.db, ref),
        rc.db.select({ e: shares.entry }).from(shares).where(and(eq(shares.resource_id, rc.resource.id), eq(shares.entry, ref.entry))),
      ]);
      if (ref.groupRef && !groupRows[0]) throw notFound(`no such group: ${ref.groupRef}`);
      if (existing[0]) throw conflict(`already shared: ${ref.entry}`);
      const insert = rc.db.insert(shares).values({ resource_id: rc.resource.id, entry: ref.entry, group_id: groupRows[0]?.id ?? null, perms: ref.perms, created_on: nowIso() });
      if (kind.log) await rc.db.batch([insert, logInsert(rc.db, rc.resource.id, `shared with ${ref.entry}`)]);
      else await insert;
      return jsonResponse({ status: 201, message: `shared with ${ref.entry}` }, { status: 201 });
    },
  });
  routes.delete('/shared/:entry', {
    summary: 'Revoke a sharing entry',
    need: 'owner',
    responses: { 204: { description: 'Revoked' } },
    handler: async (rc) => {
      const entry = rc.params.entry!;
      const gone = await rc.db.delete(shares).where(and(eq(shares.resource_id, rc.resource.id), eq(shares.entry, entry))).returning().get();
      if (!gone) throw notFound(`not shared with ${entry}`);
      await log(rc, `sharing with ${entry} revoked`);
      return noContent();
    },
  });

  // Tags (the caller's own)
  routes.get('/tags', {
    summary: "List the caller's tags on this resource",
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const rows = await rc.db
        .select()
        .from(tags)
        .where(and(eq(tags.resource_id, rc.resource.id), eq(tags.user_id, rc.caller!.id)))
        .orderBy(asc(tags.tag));
      return listingResponse(rows.map((t) => listingItem(rc, t.tag, `${rc.base}/tags/${t.tag}`, 'file', ['GET', 'DELETE'], t.created_on, t.created_on)));
    },
  });
  routes.put('/tags/:tag', {
    summary: 'Add a tag: fav, like, ignore, wip, archived, +name or =name',
    need: 'r',
    responses: { 201: { description: 'Tagged' }, 409: { description: 'Already tagged' } },
    handler: async (rc) => {
      const tag = checkTag(rc.params.tag!);
      try {
        await rc.db.insert(tags).values({ resource_id: rc.resource.id, user_id: rc.caller!.id, tag, created_on: nowIso() });
      } catch {
        throw conflict(`already tagged ${tag}`);
      }
      return jsonResponse({ status: 201, message: `tagged ${tag}` }, { status: 201 });
    },
  });
  routes.delete('/tags/:tag', {
    summary: 'Remove a tag',
    need: 'r',
    responses: { 204: { description: 'Removed' } },
    handler: async (rc) => {
      const gone = await rc.db
        .delete(tags)
        .where(and(eq(tags.resource_id, rc.resource.id), eq(tags.user_id, rc.caller!.id), eq(tags.tag, rc.params.tag!)))
        .returning()
        .get();
      if (!gone) throw notFound(`no tag ${rc.params.tag}`);
      return noContent();
    },
  });

  if (kind.log) {
    routes.get('/log', {
      summary: `What happened to the ${kind.noun}: text, or JSON entries with Accept: application/json`,
      need: 'r',
      responses: { 200: { description: 'Log', type: 'text/plain' } },
      handler: async (rc) => logResponse(rc.req, await readLog(rc.db, rc.resource.id)),
    });
  }

  extend?.(routes);
}

export const SYSTEM_TAGS = ['fav', 'like', 'ignore', 'wip', 'archived'];
const TAG_RE = /^[+=][a-z0-9][a-z0-9_-]{0,63}$/;

export function checkTag(tag: string): string {
  if (SYSTEM_TAGS.includes(tag) || TAG_RE.test(tag)) return tag;
  throw badRequest(`invalid tag '${tag}': use ${SYSTEM_TAGS.join(', ')}, +name (user tag) or =name (category tag)`);
}

function derivedFolders(kind: ResourceKind): string[] {
  const dirs = new Set<string>();
  for (const e of kind.entries) {
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs];
}

/** The listing of a folder (`''` = the resource root, `config/` = its config folder). */
export async function folderItems(rc: ResourceCtx, prefix: string): Promise<ListingItem[]> {
  const { kind, resource } = rc;
  const stored = new Map((rc.preloaded?.listing ?? (await listEntries(rc.db, resource.id))).map((e) => [e.path, e]));
  const items = new Map<string, ListingItem>();
  const perms = permList(rc.access);
  const add = (name: string, type: 'dir' | 'file', actions: Verb[], created = resource.created_on, modified = resource.last_modified) => {
    if (!items.has(name)) items.set(name, listingItem(rc, name, `${rc.base}/${prefix}${name}`, type, actions, created, modified));
  };
  for (const e of kind.entries) {
    if (!e.path.startsWith(prefix)) continue;
    const rest = e.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash >= 0) add(rest.slice(0, slash), 'dir', ['GET']);
    else {
      const s = stored.get(e.path);
      add(rest, 'file', fileActions(perms, e.access), s?.created_on, s?.last_modified);
    }
  }
  // Area folders are listed in their parent folder (`config/env` in `config/`).
  for (const d of kind.folders ?? []) if (d.startsWith(prefix) && !d.slice(prefix.length).includes('/')) add(d.slice(prefix.length), 'dir', ['GET']);
  if (prefix === '') {
    // A per-caller file (`own`) is the caller's own: reading the resource is enough to change it.
    for (const f of kind.files ?? []) add(f.name, 'file', f.access === 'own' ? ['GET', 'POST', 'DELETE'] : fileActions(perms, f.access));
    if (kind.log) add('log', 'file', ['GET']);
    add('shared', 'dir', ['GET']);
    // Tags are the caller's own too: any reader adds them with PUT tags/<tag>.
    add('tags', 'dir', ['GET', 'PUT']);
  }
  return [...items.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function entryRoutes(routes: ResourceRoutes, kind: ResourceKind, spec: EntrySpec, log: (rc: ResourceCtx, m: string) => Promise<void>): void {
  for (const path of [spec.path, ...(spec.aliases ?? [])]) {
    const rel = `/${path}`;
    if (spec.access !== 'w') {
      routes.get(rel, {
        summary: spec.summary ?? `Read ${spec.path}`,
        need: 'r',
        // A stored entry is read with the resource: one D1 round trip.
        ...(spec.compute ? {} : { preload: { rows: (ctx: Ctx, id: SQL) => entryQuery(ctx.db, id, spec.path) } }),
        responses: { 200: { description: 'The value, exactly as written', type: 'text/plain' } },
        handler: async (rc) => {
          const stored = () =>
            rc.preloaded?.rows ? entryValue(rc.env, rc.preloaded.rows[0] as Parameters<typeof entryValue>[1]) : readEntry(rc.env, rc.db, rc.resource.id, spec.path);
          const value = spec.compute ? await spec.compute(rc) : ((await stored()) ?? spec.default ?? '');
          return textResponse(value);
        },
      });
    }
    if (spec.access === 'r') continue;
    routes.post(rel, {
      summary: spec.summary ?? `Write ${spec.path}`,
      need: 'w',
      ...(spec.writePreload ? { preload: spec.writePreload } : {}),
      body: { type: 'text/plain' },
      responses: { 204: { description: 'Written' }, 400: { description: 'Invalid value' }, 413: { description: 'Too large' }, 415: { description: 'Not text/plain' } },
      handler: async (rc) => {
        const limit = spec.limit ?? DEFAULT_BODY_LIMIT;
        const value = await readText(rc.req, limit, `${spec.path} is limited to ${limit} bytes`);
        const problem = await spec.validate?.(value, rc);
        if (problem) throw badRequest(`invalid ${spec.path}: ${problem}`);
        const message = `${spec.path} written (${new TextEncoder().encode(value).byteLength} bytes)`;
        // Without an afterWrite hook (whose own log lines come first), the log line joins the write's batch.
        const logged = kind.log && (!spec.afterWrite || !!spec.writeStatements);
        const lines = [...(spec.logLines?.(rc, value) ?? []), ...(logged ? [message] : [])];
        const derived = await spec.writeStatements?.(rc, value);
        await writeEntry(rc.env, rc.db, rc.resource, spec.path, value, [...(derived?.statements ?? []), ...lines.map((m) => logInsert(rc.db, rc.resource.id, m))]);
        await derived?.after?.();
        await spec.afterWrite?.(rc, value);
        if (!logged) await log(rc, message);
        return noContent();
      },
    });
    routes.delete(rel, {
      summary: `Clear ${spec.path}`,
      need: 'w',
      ...(spec.writePreload ? { preload: spec.writePreload } : {}),
      responses: { 204: { description: 'Cleared' } },
      handler: async (rc) => {
        const logged = kind.log && (!spec.afterWrite || !!spec.writeStatements);
        const lines = [...(spec.logLines?.(rc, null) ?? []), ...(logged ? [`${spec.path} cleared`] : [])];
        const derived = await spec.writeStatements?.(rc, null);
        await clearEntry(rc.env, rc.db, rc.resource, spec.path, [...(derived?.statements ?? []), ...lines.map((m) => logInsert(rc.db, rc.resource.id, m))]);
        await derived?.after?.();
        await spec.afterWrite?.(rc, null);
        if (!logged) await log(rc, `${spec.path} cleared`);
        return noContent();
      },
    });
  }
}

/**
 * Copies a resource into the caller's own collection. All or nothing: if any step fails,
 * the copy's row (its entries, tags and area rows cascade) and its blobs are removed.
 */
async function copyResource(rc: ResourceCtx, name: string): Promise<Response> {
  const { kind } = rc;
  const caller = rc.caller!;
  // The PATCH route preloads what is copied (entries, the caller's tags, area rows) with the resource.
  const pre = rc.preloaded!;
  const copy = await createResource(rc, kind, caller, name);
  try {
    const tagRows = (pre.rows as (typeof tags.$inferSelect)[]).map((t) => ({ ...t, resource_id: copy.id }));
    const derived = kind.copyDerived;
    const statements = [
      ...(await copyEntryStatements(rc.env, rc.db, pre.listing!, copy, kind.copyExcludes, derived && ((values) => derived(copy, values)))),
      ...d1Chunks(tagRows, 4).map((c) => rc.db.insert(tags).values(c)),
      ...(kind.copyWrites ? await kind.copyWrites(rc, copy, pre.extra?.[0] ?? []) : []),
      ...(kind.log ? [logInsert(rc.db, copy.id, `copied from ${rc.owner.username}/${rc.resource.name}`)] : []),
    ];
    // Entries, tags, area rows and the log line: one batch.
    if (statements.length) await rc.db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
    await kind.copied?.(rc, copy);
  } catch (err) {
    await rc.db.delete(resources).where(eq(resources.id, copy.id));
    await deleteBlobs(rc.env, copy.id);
    throw err;
  }
  return jsonResponse(resourceItem(kind, `/v1/${kind.collection}`, copy, OWNER_ACCESS), {
    status: 201,
  });
}

/** Loads several resources' share entries in one query (GraphQL and listings). */
export async function sharesOf(ctx: Ctx, ids: number[]) {
  if (!ids.length) return [];
  return ctx.db.select().from(shares).where(inArray(shares.resource_id, ids));
}
