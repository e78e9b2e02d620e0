/** Writing resource rows: create (with a fresh shortname), rename and copy. */
import { and, eq, type SQL } from 'drizzle-orm';
import { resources, tags, type Resource, type User } from '../../db/schema';
import { nowIso } from '../clock';
import type { Ctx } from '../context';
import { copyEntryStatements, d1Chunks, deleteBlobs } from '../entries';
import { conflict, notFound } from '../errors';
import { batchWithEvent } from '../events';
import { logInsert } from '../log';
import { newShortname } from '../names';
import { resourceEventOf } from './events';
import type { ResourceCtx, ResourceKind } from './kind';
import { namedResource } from './load';

/**
 * After a failed insert or rename: 409 when the failure was the owner's name already taken by a resource of the kind.
 */
async function refuseTakenName(ctx: Ctx, kind: ResourceKind, ownerId: number, name: string): Promise<void> {
  const exists = await ctx.db
    .select({ id: resources.id })
    .from(resources)
    .where(namedResource(ownerId, kind, name))
    .get();
  if (exists) throw conflict(`${kind.noun} '${name}' already exists`);
}

export async function createResource(ctx: Ctx, kind: ResourceKind, owner: User, name: string): Promise<Resource> {
  const now = nowIso();
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await ctx.db
        .insert(resources)
        .values({
          kind: kind.kind,
          owner_id: owner.id,
          name,
          shortname: newShortname(),
          created_on: now,
          last_modified: now,
        })
        .returning()
        .get();
      return row;
    } catch (err) {
      await refuseTakenName(ctx, kind, owner.id, name);
      if (attempt >= 3) throw err; // shortname collisions are astronomically rare
    }
  }
}

/**
 * Renames the resource. The rename and its log line in one batch: a taken name fails the unique index and stores
 * nothing.
 */
export async function renameResource(rc: ResourceCtx, name: string): Promise<Resource> {
  const { kind } = rc;
  const update = rc.db
    .update(resources)
    .set({ name, last_modified: nowIso() })
    .where(eq(resources.id, rc.resource.id))
    .returning();
  let updated: Resource | undefined;
  try {
    // The row, its log line and its *.updated event (with the name it had) in one batch.
    const [rows] = await batchWithEvent(
      rc.env,
      rc.db,
      rc.exec,
      [update, ...(kind.log ? [logInsert(rc.db, rc.resource.id, `renamed from ${rc.resource.name} to ${name}`)] : [])],
      resourceEventOf(rc.env, kind, rc.owner, { ...rc.resource, name }, 'updated', { renamed_from: rc.resource.name }),
    );
    updated = (rows as Resource[])[0];
  } catch (err) {
    await refuseTakenName(rc, kind, rc.owner.id, name);
    throw err;
  }
  if (!updated) throw notFound(`no such ${kind.noun}: ${rc.resource.name}`);
  return updated;
}

/** What the PATCH route preloads for a copy besides the listing: the caller's tags on the resource (rows). */
export function callerTagsQuery(ctx: Ctx, id: SQL) {
  return ctx.db
    .select()
    .from(tags)
    .where(and(eq(tags.resource_id, id), eq(tags.user_id, ctx.caller?.id ?? -1)));
}

/**
 * Copies a resource into the caller's own collection. All or nothing: if any step fails,
 * the copy's row (its entries, tags and area rows cascade) and its blobs are removed.
 */
export async function copyResource(rc: ResourceCtx, name: string): Promise<Resource> {
  const { kind } = rc;
  const caller = rc.caller!;
  // The PATCH route preloads what is copied (entries, the caller's tags, area rows) with the resource.
  const pre = rc.preloaded!;
  const copy = await createResource(rc, kind, caller, name);
  try {
    const tagRows = (pre.rows as (typeof tags.$inferSelect)[]).map((t) => ({ ...t, resource_id: copy.id }));
    const derived = kind.copyDerived;
    const statements = [
      ...(await copyEntryStatements(
        rc.env,
        rc.db,
        pre.listing!,
        rc.owner.id,
        copy,
        kind.copyExcludes,
        derived && ((values) => derived(copy, values)),
      )),
      ...d1Chunks(tagRows, 4).map((c) => rc.db.insert(tags).values(c)),
      ...(kind.copyWrites ? await kind.copyWrites(rc, copy, pre.extra?.[0] ?? []) : []),
      ...(kind.log ? [logInsert(rc.db, copy.id, `copied from ${rc.owner.username}/${rc.resource.name}`)] : []),
    ];
    // Entries, tags, area rows, the log line and the copy's *.created event: one batch.
    await batchWithEvent(
      rc.env,
      rc.db,
      rc.exec,
      statements,
      resourceEventOf(rc.env, kind, caller, copy, 'created', {
        copied_from: `${rc.owner.username}/${rc.resource.name}`,
      }),
    );
    await kind.copied?.(rc, copy);
  } catch (err) {
    await rc.db.delete(resources).where(eq(resources.id, copy.id));
    await deleteBlobs(rc.env, copy.id);
    throw err;
  }
  return copy;
}
