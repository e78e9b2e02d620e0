/**
 * Profiles and options of groups, organisations and org groups (stored by profile.ts):
 *   profile/name, profile/description, profile/picture/mask   text (POST writes, DELETE clears)
 *   profile/picture/image, profile/picture/banner             images in R2 (PUT creates, POST replaces)
 *   profile/options/<option>                                  yes/no, default no
 * Everyone who sees the profile reads it; founders and admins of the group write it.
 */
import { badRequest, conflict, forbidden, notFound, unsupportedType } from '../core/errors';
import { text, yesNoText } from '../core/examples';
import { mediaType, noContent, readBytes, readText, readYesNo, textResponse } from '../core/http';
import {
  fileActions,
  filePerms,
  listingResponse,
  listingResponses,
  type EntryType,
  type ListingItem,
  type Verb,
} from '../core/listing';
import { sniffType } from '../core/sniff';
import { type GroupCtx, type GroupRoutes } from './context';
import { groupEntry } from './group-listing';
import {
  maskProblem,
  needsPremium,
  optionsFor,
  PICTURE_TYPES,
  PICTURES,
  PROFILE_TEXT_LIMITS,
  type OptionName,
  type Picture,
  type ProfileText,
} from './model';
import {
  deleteRow,
  optionIsOn,
  orgPlan,
  pictureKey,
  readRow,
  rowsUnder,
  servePicture,
  setOption,
  upsertRow,
} from './profile';

/**
 * An entry below profile/: a file allows what its actions do; dated by its row when it has one, else like the group.
 */
function item(
  gc: GroupCtx,
  name: string,
  type: EntryType,
  actions: Verb[],
  row?: { created_on: string; last_modified: string },
): ListingItem {
  const entry = groupEntry(gc.group, gc.view);
  return {
    name,
    uri: `${gc.base}/profile/${name}`,
    ...entry,
    type,
    permissions: type === 'file' ? filePerms(actions) : entry.permissions,
    actions,
    created_on: row?.created_on ?? entry.created_on,
    last_modified: row?.last_modified ?? entry.last_modified,
  };
}

/** The verbs of a text file below profile/ for this caller (write for founders and admins). */
const textActions = (gc: GroupCtx) => fileActions(groupEntry(gc.group, gc.view).permissions);

const TEXT_FIELDS: { path: ProfileText; need: 'profile' | 'description'; summary: string; example: string }[] = [
  { path: 'name', need: 'profile', summary: 'Display name', example: 'Analysts' },
  {
    path: 'description',
    need: 'description',
    summary: 'Description (markdown)',
    example: 'The analysts of **Acme**: dashboards and the weekly numbers.',
  },
  { path: 'picture/mask', need: 'profile', summary: 'Avatar crop as x,y,r', example: '120,80,64' },
];

function profileFolderRoute(g: GroupRoutes): void {
  g.get('/profile', {
    summary: 'Profile folder',
    need: 'profile',
    auth: 'optional',
    responses: listingResponses,
    handler: async (gc) => {
      const rows = await rowsUnder(gc.db, gc.group.id, '');
      const file = (p: string) =>
        item(
          gc,
          p,
          'file',
          textActions(gc),
          rows.find((r) => r.path === p),
        );
      return listingResponse(gc.url, [
        file('name'),
        ...(gc.view.description ? [file('description')] : []),
        item(gc, 'picture', 'dir', ['GET']),
        item(gc, 'options', 'dir', ['GET']),
      ]);
    },
  });
}

function textFieldRoutes(g: GroupRoutes): void {
  for (const f of TEXT_FIELDS) {
    const rel = `/profile/${f.path}`;
    g.get(rel, {
      summary: `Read the profile's ${f.summary.toLowerCase()}`,
      need: f.need,
      auth: 'optional',
      responses: { 200: { description: 'The value', type: 'text/plain', schema: () => text(f.example) } },
      handler: async (gc) =>
        textResponse((await readRow(gc.db, gc.group.id, f.path))?.value ?? (f.path === 'name' ? gc.group.slug : '')),
    });
    g.post(rel, {
      summary: `Write the profile's ${f.summary.toLowerCase()} (founder or admin)`,
      need: 'manage',
      body: { type: 'text/plain', schema: () => text(f.example) },
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
}

/** Stores an uploaded picture after checking its declared and sniffed type (201 created, 204 replaced). */
async function storePicture(gc: GroupCtx, which: Picture, createOnly: boolean): Promise<Response> {
  const limit = PICTURES[which];
  const type = mediaType(gc.req);
  if (!(PICTURE_TYPES as readonly string[]).includes(type)) {
    throw unsupportedType(
      `a picture must be sent as one of ${PICTURE_TYPES.join(', ')}; got ${type || 'no Content-Type'}`,
    );
  }
  const bytes = await readBytes(gc.req, limit, `the ${which} may be at most ${limit / 1024 / 1024} MiB`);
  if (!bytes.byteLength) throw badRequest(`empty body: send the ${which} as the request body`);
  const sniffed = sniffType(bytes);
  if (sniffed !== type)
    throw unsupportedType(`the body is not a ${type} image${sniffed ? ` (it looks like ${sniffed})` : ''}`);
  const path = `picture/${which}`;
  if (createOnly && (await readRow(gc.db, gc.group.id, path)))
    throw conflict(`the ${which} already exists: POST replaces it`);
  await gc.env.BLOBS.put(pictureKey(gc.group.id, which), bytes, { httpMetadata: { contentType: type } });
  await upsertRow(gc.db, gc.group.id, path, null, type, bytes.byteLength);
  return new Response(null, { status: createOnly ? 201 : 204 });
}

function pictureRoutes(g: GroupRoutes): void {
  g.get('/profile/picture', {
    summary: 'Picture folder: image, banner, mask',
    need: 'profile',
    auth: 'optional',
    responses: listingResponses,
    handler: async (gc) => {
      const rows = await rowsUnder(gc.db, gc.group.id, 'picture/');
      return listingResponse(
        gc.url,
        (['image', 'banner', 'mask'] as const).map((p) => {
          const row = rows.find((r) => r.path === `picture/${p}`);
          const actions: Verb[] =
            p === 'mask'
              ? textActions(gc)
              : [...(row ? (['GET'] as Verb[]) : []), ...(gc.view.manage ? (['PUT', 'POST', 'DELETE'] as Verb[]) : [])];
          return item(gc, `picture/${p}`, 'file', actions, row);
        }),
      );
    },
  });

  for (const which of Object.keys(PICTURES) as Picture[]) {
    const rel = `/profile/picture/${which}`;
    const body = {
      type: 'image/png',
      description: `PNG, JPEG, GIF or WebP, at most ${PICTURES[which] / 1024 / 1024} MiB`,
    };
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
      handler: (gc) => storePicture(gc, which, true),
    });
    g.post(rel, {
      summary: `Upload or replace the ${which} (founder or admin)`,
      need: 'manage',
      body,
      responses: { 204: { description: 'Stored' } },
      handler: (gc) => storePicture(gc, which, false),
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
}

/** The option a path names, among those of the group's kind; 404 otherwise. */
function optionName(gc: GroupCtx): OptionName {
  const name = gc.params.option!;
  const known = optionsFor(gc.group.kind);
  if (!(known as string[]).includes(name))
    throw notFound(`no such option '${name}': options here are ${known.join(', ')}`);
  return name as OptionName;
}

function optionRoutes(g: GroupRoutes): void {
  g.get('/profile/options', {
    summary: 'Options folder',
    need: 'see',
    auth: 'optional',
    responses: listingResponses,
    handler: async (gc) => {
      const rows = await rowsUnder(gc.db, gc.group.id, 'options/');
      return listingResponse(
        gc.url,
        optionsFor(gc.group.kind).map((o) =>
          item(
            gc,
            `options/${o}`,
            'file',
            gc.view.manage ? ['GET', 'POST'] : ['GET'],
            rows.find((r) => r.path === `options/${o}`),
          ),
        ),
      );
    },
  });

  g.get('/profile/options/:option', {
    summary: 'Read an option: yes or no',
    need: 'see',
    auth: 'optional',
    responses: { 200: { description: 'yes or no', type: 'text/plain', schema: yesNoText } },
    handler: async (gc) => textResponse((await optionIsOn(gc.db, gc.group.id, optionName(gc))) ? 'yes' : 'no'),
  });

  g.post('/profile/options/:option', {
    summary: 'Set an option to yes or no (founder or admin; show_* on orgs need premium)',
    need: 'manage',
    body: { type: 'text/plain', schema: yesNoText },
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

export function profileRoutes(g: GroupRoutes): void {
  profileFolderRoute(g);
  textFieldRoutes(g);
  pictureRoutes(g);
  optionRoutes(g);
}
