/**
 * The resource as a folder: its root listing, rename or copy (PATCH), delete; the folders
 * its entry paths imply (`config/`); and fixed folders an area serves (`stats/`).
 */
import { eq } from 'drizzle-orm';
import * as z from 'zod';
import { text } from '../examples';
import { resources } from '../../db/schema';
import { deleteBlobs } from '../entries';
import { badRequest } from '../errors';
import { jsonResponse, mediaType, noContent, readJson, readText } from '../http';
import { listingItemSchema, listingResponse, listingResponses, listingSchema } from '../listing';
import { resourceName } from '../names';
import { OWNER_ACCESS, permList } from '../perms';
import { batchWithEvent } from '../events';
import { resourceEventOf } from './events';
import { folderItems, listingItem, resourceItem } from './listing-items';
import type { ResourceKind, ResourceRoutes } from './kind';
import { requireAccess } from './load';
import { callerTagsQuery, copyResource, renameResource } from './store';
import { once } from '../once';

const patchJson = once(() => z.object({ name: z.string(), copy: z.boolean().optional() }));

/** GET, PATCH (rename or copy) and DELETE of the resource itself. */
export function folderRoutes(routes: ResourceRoutes, kind: ResourceKind): void {
  const own = `/v1/${kind.collection}`;
  routes.get('', {
    summary: `List the entries of a ${kind.noun}`,
    need: 'r',
    preload: { listing: true },
    responses: {
      200: {
        description: "Folder listing (X-NVM-Permissions carries the caller's permissions)",
        type: 'application/json',
        schema: listingSchema,
      },
    },
    handler: async (rc) => {
      const items = await folderItems(rc, '');
      return listingResponse(rc.url, items, { 'X-NVM-Permissions': permList(rc.access).join(', ') });
    },
  });
  routes.patch('', {
    summary: `Rename (text/plain new name) or copy (JSON {name, copy: true}) a ${kind.noun}`,
    need: 'r',
    // What a copy carries over is read with the resource: entries, the caller's tags, area rows.
    preload: {
      listing: true,
      rows: callerTagsQuery,
      ...(kind.copyRead ? { extra: [kind.copyRead] } : {}),
    },
    body: {
      type: 'text/plain',
      description: 'The new name; or application/json {name, copy}',
      schema: () => text('q3_report_final'),
    },
    responses: {
      200: { description: 'Renamed', type: 'application/json', schema: listingItemSchema },
      201: { description: 'Copied', type: 'application/json', schema: listingItemSchema },
    },
    handler: async (rc) => {
      let name: string;
      let copy = false;
      if (mediaType(rc.req) === 'application/json') {
        const parsed = patchJson().safeParse(await readJson(rc.req));
        if (!parsed.success) throw badRequest('expected JSON {name: string, copy: boolean}');
        ({ name } = parsed.data);
        copy = parsed.data.copy ?? false;
      } else {
        name = await readText(rc.req, 1024);
      }
      resourceName(name, `${kind.noun} name`);
      if (copy)
        return jsonResponse(resourceItem(kind, own, await copyResource(rc, name), OWNER_ACCESS), { status: 201 });
      requireAccess(rc, 'owner');
      if (name === rc.resource.name) return jsonResponse(resourceItem(kind, own, rc.resource, rc.access));
      return jsonResponse(resourceItem(kind, own, await renameResource(rc, name), rc.access));
    },
  });
  routes.delete('', {
    summary: `Delete a ${kind.noun}`,
    need: 'd',
    responses: { 204: { description: 'Deleted' } },
    handler: async (rc) => {
      await kind.deleting?.(rc.env, rc.resource);
      // The row and its *.deleted event in one batch.
      await batchWithEvent(
        rc.env,
        rc.db,
        rc.exec,
        [rc.db.delete(resources).where(eq(resources.id, rc.resource.id))],
        resourceEventOf(rc.env, kind, rc.owner, rc.resource, 'deleted'),
      );
      rc.exec.waitUntil(deleteBlobs(rc.env, rc.resource.id));
      return noContent();
    },
  });
}

/** The folders entry paths imply (`config` for `config/type`), each a listing. */
export function derivedFolderRoutes(routes: ResourceRoutes, kind: ResourceKind): void {
  for (const dir of derivedFolders(kind)) {
    routes.get(`/${dir}`, {
      summary: `List ${dir}/ of a ${kind.noun}`,
      need: 'r',
      preload: { listing: true },
      responses: listingResponses,
      handler: async (rc) => listingResponse(rc.url, await folderItems(rc, `${dir}/`)),
    });
  }
}

function derivedFolders(kind: ResourceKind): string[] {
  const dirs = new Set<string>();
  for (const e of kind.entries) {
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs];
}

/** GET `/<folder>`: a fixed folder of read-only files (e.g. `stats/` holding `runs`). */
export function fixedFolderRoute(r: ResourceRoutes, folder: string, files: string[]): void {
  r.get(`/${folder}`, {
    summary: `List ${folder}/`,
    need: 'r',
    responses: listingResponses,
    handler: async (rc) =>
      listingResponse(
        rc.url,
        files.map((f) =>
          listingItem(
            rc,
            f,
            `${rc.base}/${folder}/${f}`,
            'file',
            ['GET'],
            rc.resource.created_on,
            rc.resource.last_modified,
          ),
        ),
      ),
  });
}
