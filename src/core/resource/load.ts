/** Loading the resource a request names, with the caller's access to it (404 when they may not read it). */
import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { resources, users, type Resource, type User } from '../../db/schema';
import type { Ctx } from '../context';
import { entriesQuery, entryAuthorship, entryValues, listEntriesQuery, type StoredEntry } from '../entries';
import { forbidden, notFound } from '../errors';
import { touchesOwner } from '../edge-cache';
import { OWNER_ACCESS, type Perm } from '../perms';
import type { Preload, Preloaded, ResourceCtx, ResourceKind } from './kind';
import { grantedAccess, grantsColumn } from './visibility';

export async function findUser(ctx: Pick<Ctx, 'db' | 'caller'>, username: string): Promise<User | null> {
  if (ctx.caller?.username === username) return ctx.caller;
  const user = (await ctx.db.select().from(users).where(eq(users.username, username)).get()) ?? null;
  touchesOwner(user?.id);
  return user;
}

/** SQL condition: the resource of this kind named `name` of the owner (names are unique per owner and kind). */
export function namedResource(ownerId: number | SQL, kind: ResourceKind, name: string): SQL {
  return and(eq(resources.owner_id, ownerId), eq(resources.kind, kind.kind), eq(resources.name, name))!;
}

/**
 * Loads the resource a request names, with the caller's access. A resource the caller
 * may not read answers 404, as does a missing one: existence is never revealed.
 * One D1 round trip: the owner, the resource with the caller's share grants and whatever
 * the route preloads are read in one batch, each finding the resource by the same
 * condition (the caller's own resources need no owner row and no grants).
 */
export async function loadResource(
  ctx: Ctx,
  kind: ResourceKind,
  name = ctx.params[kind.param]!,
  preload: Preload = {},
): Promise<ResourceCtx> {
  const ownerName = ctx.params.owner ?? ctx.caller?.username;
  const missing = () => notFound(`no such ${kind.noun}: ${name}`);
  if (!ownerName) throw missing();
  const caller = ctx.caller;
  const own = caller?.username === ownerName;
  const ownerId = own ? caller!.id : sql`(select ${users.id} from ${users} where ${users.username} = ${ownerName})`;
  const named = namedResource(ownerId, kind, name);
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
    caller: preload.caller
      ? add(
          ctx.db
            .select()
            .from(users)
            .where(eq(users.id, caller?.id ?? -1)),
        )
      : -1,
    entries: preload.entries ? add(entriesQuery(ctx.db, id)) : -1,
    listing: preload.listing ? add(listEntriesQuery(ctx.db, id)) : -1,
    rows: preload.rows ? add(preload.rows(ctx, id)) : -1,
    extra: (preload.extra ?? []).map((q) => add(q(ctx, id))),
  };
  const results = (await ctx.db.batch(batch as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown[][];
  const owner = own ? caller! : (results[at.owner]![0] as User | undefined);
  const row = results[at.resource]![0] as (Resource & { grants: string }) | undefined;
  touchesOwner(owner?.id);
  if (!owner || !row) throw missing();
  const { grants, ...resource } = row;
  const access = own || caller?.id === resource.owner_id ? OWNER_ACCESS : grantedAccess(resource.kind, grants);
  if (!access.r) throw missing();
  let preloaded: Preloaded | undefined;
  if (batch.length > (own ? 1 : 2)) {
    preloaded = {
      ...(preload.caller ? { caller: (results[at.caller]![0] as User | undefined) ?? caller ?? undefined } : {}),
      ...(preload.entries
        ? {
            entries: await entryValues(ctx.env, results[at.entries] as StoredEntry[]),
            authorship: entryAuthorship(results[at.entries] as StoredEntry[]),
          }
        : {}),
      ...(preload.listing ? { listing: results[at.listing] as StoredEntry[] } : {}),
      ...(preload.rows ? { rows: results[at.rows] } : {}),
      ...(preload.extra ? { extra: at.extra.map((i) => results[i]!) } : {}),
    };
  }
  const base = ctx.params.owner
    ? `/v1/users/${owner.username}/${kind.collection}/${name}`
    : `/v1/${kind.collection}/${name}`;
  return { ...ctx, resource, owner, access, kind, base, ...(preloaded ? { preloaded } : {}) };
}

/**
 * The resource a public path names (`/u/:user/<letter>/:name`, `/v1/u/:user/...`): `:user`
 * is its owner, loaded as if named by the owner's path.
 */
export function loadUserPath(ctx: Ctx, kind: ResourceKind, name?: string, preload?: Preload): Promise<ResourceCtx> {
  return loadResource({ ...ctx, params: { ...ctx.params, owner: ctx.params.user! } }, kind, name, preload);
}

/** Throws 403 when the caller (who can see the resource) lacks `need`. */
export function requireAccess(rc: ResourceCtx, need: Perm | 'owner'): void {
  const ok = need === 'owner' ? rc.access.owner : rc.access[need];
  if (ok) return;
  const what = { r: 'read', w: 'change', d: 'delete', x: 'execute', owner: 'do this with' }[need];
  throw forbidden(`you may not ${what} this ${rc.kind.noun}`);
}
