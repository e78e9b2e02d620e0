/**
 * The stored profile of a group, organisation or org group: its profile fields, picture
 * records and options as rows of group_entries keyed by path (`name`, `picture/image`,
 * `options/public`), the picture bytes in R2. The routes over it are in profile-routes.ts.
 */
import { and, eq, like } from 'drizzle-orm';
import { nowIso } from '../core/clock';
import type { Db } from '../core/context';
import { notFound } from '../core/errors';
import { USER_BYTES_HEADERS } from '../core/http';
import { groups, users, type Group } from '../db/schema';
import type { OptionName, Picture } from './model';
import { groupEntries } from './schema';

export const pictureKey = (groupId: number, which: Picture) => `g/${groupId}/picture/${which}`;

export async function readRow(db: Db, groupId: number, path: string) {
  return (
    (await db
      .select()
      .from(groupEntries)
      .where(and(eq(groupEntries.group_id, groupId), eq(groupEntries.path, path)))
      .get()) ?? null
  );
}

export async function upsertRow(
  db: Db,
  groupId: number,
  path: string,
  value: string | null,
  contentType: string | null,
  size: number,
): Promise<void> {
  const now = nowIso();
  await db
    .insert(groupEntries)
    .values({ group_id: groupId, path, value, content_type: contentType, size, created_on: now, last_modified: now })
    .onConflictDoUpdate({
      target: [groupEntries.group_id, groupEntries.path],
      set: { value, content_type: contentType, size, last_modified: now },
    });
}

/** Rows whose path starts with `prefix` (`picture/`, `options/`). */
export async function rowsUnder(db: Db, groupId: number, prefix: string) {
  return db
    .select()
    .from(groupEntries)
    .where(and(eq(groupEntries.group_id, groupId), like(groupEntries.path, `${prefix}%`)));
}

export async function deleteRow(db: Db, groupId: number, path: string): Promise<void> {
  await db.delete(groupEntries).where(and(eq(groupEntries.group_id, groupId), eq(groupEntries.path, path)));
}

export async function optionIsOn(db: Db, groupId: number, option: OptionName): Promise<boolean> {
  return (await readRow(db, groupId, `options/${option}`))?.value === 'yes';
}

export async function setOption(db: Db, groupId: number, option: OptionName, on: boolean): Promise<void> {
  if (on) await upsertRow(db, groupId, `options/${option}`, 'yes', null, 3);
  else await deleteRow(db, groupId, `options/${option}`);
}

/** The plan of the organisation account behind an org or org group (fresh from D1). */
export async function orgPlan(db: Db, group: Group): Promise<'free' | 'premium'> {
  const orgId = group.kind === 'org' ? group.id : group.parent_id!;
  const row = await db
    .select({ plan: users.plan })
    .from(groups)
    .innerJoin(users, eq(users.id, groups.owner_id))
    .where(eq(groups.id, orgId))
    .get();
  return row?.plan ?? 'free';
}

/** Answers a stored picture with its content type, or 404 when none is set. */
export async function servePicture(env: Env, db: Db, group: Group, which: Picture): Promise<Response> {
  const row = await readRow(db, group.id, `picture/${which}`);
  const obj = row ? await env.BLOBS.get(pictureKey(group.id, which)) : null;
  if (!row || !obj) throw notFound(`no ${which} is set`);
  return new Response(obj.body, {
    headers: {
      'Content-Type': row.content_type ?? 'application/octet-stream',
      'Content-Length': String(row.size),
      'X-NVM-Type': 'file',
      ...USER_BYTES_HEADERS,
    },
  });
}
