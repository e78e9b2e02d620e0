/**
 * Profiles and options of groups, organisations and org groups:
 *   profile/name, profile/description, profile/picture/mask   text (POST writes, DELETE clears)
 *   profile/picture/image, profile/picture/banner             images in R2 (PUT creates, POST replaces)
 *   profile/options/<option>                                  yes/no, default no
 * Everyone who sees the profile reads it; founders and admins of the group write it.
 */
import { and, eq, like } from 'drizzle-orm';
import { z } from 'zod';
import { nowIso } from '../core/clock';
import type { Db } from '../core/context';
import { badRequest, conflict, forbidden, notFound, unsupportedType } from '../core/errors';
import { mediaType, noContent, readBytes, readText, readYesNo, textResponse } from '../core/http';
import { fileActions, filePerms, listingResponse, listingResponses, type ListingItem, type Verb } from '../core/listing';
import type { Perm } from '../core/perms';
import { sniffType } from '../core/sniff';
import { groups, users, type Group } from '../db/schema';
import { type GroupCtx, type GroupRoutes } from './context';
import { maskProblem, needsPremium, optionsFor, PICTURE_TYPES, PICTURES, PROFILE_TEXT_LIMITS, type OptionName, type Picture, type ProfileText } from './model';
import { groupEntries } from './schema';

export const pictureKey = (groupId: number, which: Picture) => `g/${groupId}/picture/${which}`;

// ---------------------------------------------------------------- storage

async function readRow(db: Db, groupId: number, path: string) {
  return (await db.select().from(groupEntries).where(and(eq(groupEntries.group_id, groupId), eq(groupEntries.path, path))).get()) ?? null;
}

async function upsertRow(db: Db, groupId: number, path: string, value: string | null, contentType: string | null, size: number): Promise<void> {
  const now = nowIso();
  await db
    .insert(groupEntries)
    .values({ group_id: groupId, path, value, content_type: contentType, size, created_on: now, last_modified: now })
    .onConflictDoUpdate({ target: [groupEntries.group_id, groupEntries.path], set: { value, content_type: contentType, size, last_modified: now } });
}

/** Rows whose path starts with `prefix` (`picture/`, `options/`). */
async function rowsUnder(db: Db, groupId: number, prefix: string) {
  return db.select().from(groupEntries).where(and(eq(groupEntries.group_id, groupId), like(groupEntries.path, `${prefix}%`)));
}

async function deleteRow(db: Db, groupId: number, path: string): Promise<void> {
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
async function orgPlan(db: Db, group: Group): Promise<'free' | 'premium'> {
  const orgId = group.kind === 'org' ? group.id : group.parent_id!;
  const row = await db.select({ plan: users.plan }).from(groups).innerJoin(users, eq(users.id, groups.owner_id)).where(eq(groups.id, orgId)).get();
  return row?.plan ?? 'free';
}

// ---------------------------------------------------------------- routes

const perms = (gc: GroupCtx): Perm[] => (gc.view.manage ? ['r', 'w'] : ['r']);
const item = (gc: GroupCtx, name: string, type: 'dir' | 'file', actions: Verb[], created = gc.group.created_on, modified = gc.group.last_modified): ListingItem => ({
  name,
  uri: `${gc.base}/profile/${name}`,
  type,
  permissions: type === 'file' ? filePerms(actions) : perms(gc),
  actions,
  created_on: created,
  last_modified: modified,
});
const dirActions: Verb[] = ['GET'];

const TEXT_FIELDS: { path: ProfileText; need: 'profile' | 'description'; summary: string }[] = [
  { path: 'name', need: 'profile', summary: 'Display name' },
  { path: 'description', need: 'description', summary: 'Description (markdown)' },
  { path: 'picture/mask', need: 'profile', summary: 'Avatar crop as x,y,r' },
];

export function profileRoutes(g: GroupRoutes): void {
  const textOk = { description: 'The value', type: 'text/plain' };

  g.get('/profile', {
    summary: 'Profile folder',
    need: 'profile',
    auth: 'optional',
    responses: listingResponses,
    handler: async (gc) => {
      const rows = await rowsUnder(gc.db, gc.group.id, '');
      const at = (p: string) => rows.find((r) => r.path === p);
      const file = (p: string, actions: Verb[]) => item(gc, p, 'file', actions, at(p)?.created_on, at(p)?.last_modified);
      const writable = fileActions(perms(gc));
      return listingResponse([
        file('name', writable),
        ...(gc.view.description ? [file('description', writable)] : []),
        item(gc, 'picture', 'dir', dirActions),
        item(gc, 'options', 'dir', dirActions),
      ]);
    },
  });

  for (const f of TEXT_FIELDS) {
    const rel = `/profile/${f.path}`;
    g.get(rel, {
      summary: `Read the profile's ${f.summary.toLowerCase()}`,
      need: f.need,
      auth: 'optional',
      responses: { 200: textOk },
      handler: async (gc) => textResponse((await readRow(gc.db, gc.group.id, f.path))?.value ?? (f.path === 'name' ? gc.group.slug : '')),
    });
    g.post(rel, {
      summary: `Write the profile's ${f.summary.toLowerCase()} (founder or admin)`,
      need: 'manage',
      body: { type: 'text/plain' },
      responses: { 204: { description: 'Written' } },
      handler: async (gc) => {
        const value = await readText(gc.req, PROFILE_TEXT_LIMITS[f.path]);
        if (f.path === 'picture/mask') {
          const problem = maskProblem(value);
          if (problem) throw badRequest(problem);
        }
        await upsertRow(gc.db, gc.group.id, f.path, value, null, new TextEncoder().encode(value).byteLength);
        return noContent();
      },
    });
    g.delete(rel, {
      summary: `Clear the profile's ${f.summary.toLowerCase()} (founder or admin)`,
      need: 'manage',
      responses: { 204: { description: 'Cleared' } },
      handler: async (gc) => {
        await deleteRow(gc.db, gc.group.id, f.path);
        return noContent();
      },
    });
  }

  g.get('/profile/picture', {
    summary: 'Picture folder: image, banner, mask',
    need: 'profile',
    auth: 'optional',
    responses: listingResponses,
    handler: async (gc) => {
      const rows = await rowsUnder(gc.db, gc.group.id, 'picture/');
      const writable = fileActions(perms(gc));
      return listingResponse(
        (['image', 'banner', 'mask'] as const).map((p) => {
          const row = rows.find((r) => r.path === `picture/${p}`);
          const actions: Verb[] = p === 'mask' ? writable : [...(row ? (['GET'] as Verb[]) : []), ...(gc.view.manage ? (['PUT', 'POST', 'DELETE'] as Verb[]) : [])];
          return item(gc, `picture/${p}`, 'file', actions, row?.created_on, row?.last_modified);
        }),
      );
    },
  });

  for (const which of Object.keys(PICTURES) as Picture[]) {
    const rel = `/profile/picture/${which}`;
    const limit = PICTURES[which];
    const upload = (createOnly: boolean) => async (gc: GroupCtx) => {
      const type = mediaType(gc.req);
      if (!(PICTURE_TYPES as readonly string[]).includes(type)) {
        throw unsupportedType(`a picture must be sent as one of ${PICTURE_TYPES.join(', ')}; got ${type || 'no Content-Type'}`);
      }
      const bytes = await readBytes(gc.req, limit, `the ${which} may be at most ${limit / 1024 / 1024} MiB`);
      if (!bytes.byteLength) throw badRequest(`empty body: send the ${which} as the request body`);
      const sniffed = sniffType(bytes);
      if (sniffed !== type) throw unsupportedType(`the body is not a ${type} image${sniffed ? ` (it looks like ${sniffed})` : ''}`);
      const path = `picture/${which}`;
      if (createOnly && (await readRow(gc.db, gc.group.id, path))) throw conflict(`the ${which} already exists: POST replaces it`);
      await gc.env.BLOBS.put(pictureKey(gc.group.id, which), bytes, { httpMetadata: { contentType: type } });
      await upsertRow(gc.db, gc.group.id, path, null, type, bytes.byteLength);
      return new Response(null, { status: createOnly ? 201 : 204 });
    };
    const body = { type: 'image/png', description: `PNG, JPEG, GIF or WebP, at most ${limit / 1024 / 1024} MiB` };
    g.get(rel, {
      summary: `Download the ${which}`,
      need: 'profile',
      auth: 'optional',
      responses: { 200: { description: 'The image', type: 'image/*' } },
      handler: (gc) => servePicture(gc.env, gc.db, gc.group, which),
    });
    g.put(rel, {
      summary: `Upload the ${which} (founder or admin; 409 when one exists)`,
      need: 'manage',
      body,
      responses: { 201: { description: 'Created' } },
      handler: upload(true),
    });
    g.post(rel, {
      summary: `Upload or replace the ${which} (founder or admin)`,
      need: 'manage',
      body,
      responses: { 204: { description: 'Stored' } },
      handler: upload(false),
    });
    g.delete(rel, {
      summary: `Remove the ${which} (founder or admin)`,
      need: 'manage',
      responses: { 204: { description: 'Removed' } },
      handler: async (gc) => {
        await deleteRow(gc.db, gc.group.id, `picture/${which}`);
        await gc.env.BLOBS.delete(pictureKey(gc.group.id, which));
        return noContent();
      },
    });
  }

  g.get('/profile/options', {
    summary: 'Options folder',
    need: 'see',
    auth: 'optional',
    responses: listingResponses,
    handler: async (gc) => {
      const rows = await rowsUnder(gc.db, gc.group.id, 'options/');
      return listingResponse(
        optionsFor(gc.group.kind).map((o) => {
          const row = rows.find((r) => r.path === `options/${o}`);
          return item(gc, `options/${o}`, 'file', gc.view.manage ? ['GET', 'POST'] : ['GET'], row?.created_on, row?.last_modified);
        }),
      );
    },
  });

  const optionName = (gc: GroupCtx): OptionName => {
    const name = gc.params.option!;
    const known = optionsFor(gc.group.kind);
    if (!(known as string[]).includes(name)) throw notFound(`no such option '${name}': options here are ${known.join(', ')}`);
    return name as OptionName;
  };

  g.get('/profile/options/:option', {
    summary: 'Read an option: yes or no',
    need: 'see',
    auth: 'optional',
    responses: { 200: { description: 'yes or no', type: 'text/plain' } },
    handler: async (gc) => textResponse((await optionIsOn(gc.db, gc.group.id, optionName(gc))) ? 'yes' : 'no'),
  });

  g.post('/profile/options/:option', {
    summary: 'Set an option to yes or no (founder or admin; show_* on orgs need premium)',
    need: 'manage',
    body: { type: 'text/plain', schema: z.enum(['yes', 'no']) },
    responses: { 204: { description: 'Set' } },
    handler: async (gc) => {
      const option = optionName(gc);
      const on = await readYesNo(gc.req);
      if (on && needsPremium(gc.group.kind, option) && (await orgPlan(gc.db, gc.group)) !== 'premium') {
        throw forbidden(`the option ${option} of organisations and their groups needs a premium plan`);
      }
      await setOption(gc.db, gc.group.id, option, on);
      return noContent();
    },
  });
}

/** Answers a stored picture with its content type, or 404 when none is set. */
export async function servePicture(env: Env, db: Db, group: Group, which: Picture): Promise<Response> {
  const row = await readRow(db, group.id, `picture/${which}`);
  const obj = row ? await env.BLOBS.get(pictureKey(group.id, which)) : null;
  if (!row || !obj) throw notFound(`no ${which} is set`);
  return new Response(obj.body, {
    headers: { 'Content-Type': row.content_type ?? 'application/octet-stream', 'Content-Length': String(row.size), 'X-NVM-Type': 'file', 'X-Content-Type-Options': 'nosniff' },
  });
}
