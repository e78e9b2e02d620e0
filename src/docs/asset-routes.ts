/** The routes of a document's assets (assets/, assets/<asset>): list, upload, download, remove. */
import { and, asc, eq } from 'drizzle-orm';
import { nowIso } from '../core/clock';
import { badRequest, notFound } from '../core/errors';
import { jsonResponse, noContent, readUpload, USER_BYTES_HEADERS } from '../core/http';
import { fileActions, listingItemSchema, listingResponse, listingResponses } from '../core/listing';
import { appendLog } from '../core/log';
import { checkKeyName } from '../core/names';
import { permList } from '../core/perms';
import { listingItem, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { ASSET_LIMIT, ASSET_RULE, assetKey, assetNameProblem, etagMatches, type AssetRow } from './assets';
import { docAssets } from './schema';

function assetItem(rc: ResourceCtx, a: AssetRow) {
  return listingItem(
    rc,
    a.name,
    `${rc.base}/assets/${a.name}`,
    'file',
    fileActions(permList(rc.access)),
    a.created_on,
    a.last_modified,
  );
}

export function assetRoutes(r: ResourceRoutes): void {
  r.get('/assets', {
    summary: "List a document's assets",
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const rows = await rc.db
        .select()
        .from(docAssets)
        .where(eq(docAssets.resource_id, rc.resource.id))
        .orderBy(asc(docAssets.name));
      return listingResponse(
        rc.url,
        rows.map((a) => assetItem(rc, a)),
      );
    },
  });

  r.post('/assets/:asset', {
    summary: 'Upload or replace an asset (PNG, JPEG, GIF, SVG, WebP, WOFF, WOFF2, TTF, OTF; at most 5 MiB)',
    need: 'w',
    body: { type: 'application/octet-stream', description: 'The raw file; Content-Type must be its type' },
    responses: {
      200: { description: 'Replaced', type: 'application/json', schema: listingItemSchema },
      201: { description: 'Uploaded', type: 'application/json', schema: listingItemSchema },
      400: { description: 'Bad name, or the bytes do not match the Content-Type' },
      413: { description: 'Larger than 5 MiB' },
      415: { description: 'Content-Type not allowed' },
    },
    handler: async (rc) => {
      const name = rc.params.asset!;
      const problem = assetNameProblem(name);
      if (problem) throw badRequest(problem);
      const { bytes, type } = await readUpload(rc.req, ASSET_LIMIT, 'assets');
      const existed = await rc.db
        .select({ created_on: docAssets.created_on })
        .from(docAssets)
        .where(and(eq(docAssets.resource_id, rc.resource.id), eq(docAssets.name, name)))
        .get();
      await rc.env.BLOBS.put(assetKey(rc.resource.id, name), bytes, { httpMetadata: { contentType: type } });
      const now = nowIso();
      const row = await rc.db
        .insert(docAssets)
        .values({
          resource_id: rc.resource.id,
          name,
          content_type: type,
          size: bytes.byteLength,
          created_on: now,
          last_modified: now,
        })
        .onConflictDoUpdate({
          target: [docAssets.resource_id, docAssets.name],
          set: { content_type: type, size: bytes.byteLength, last_modified: now },
        })
        .returning()
        .get();
      await appendLog(
        rc.db,
        rc.resource.id,
        `asset ${name} ${existed ? 'replaced' : 'uploaded'} (${type}, ${bytes.byteLength} bytes)`,
      );
      return jsonResponse(assetItem(rc, row), { status: existed ? 200 : 201 });
    },
  });

  r.get('/assets/:asset', {
    summary: 'Download an asset (public documents: no token needed)',
    need: 'r',
    anonymous: true,
    edge: 'cache',
    responses: {
      200: { description: 'The bytes with their type', type: 'application/octet-stream' },
      304: { description: 'Not modified' },
    },
    handler: async (rc) => {
      const name = checkKeyName(rc.params.asset!, ASSET_RULE);
      const obj = await rc.env.BLOBS.get(assetKey(rc.resource.id, name));
      if (!obj) throw notFound(`no such asset: ${name}`);
      const headers = new Headers({
        'Content-Type': obj.httpMetadata?.contentType ?? 'application/octet-stream',
        'X-NVM-Type': 'file',
        ETag: obj.httpEtag,
        'Cache-Control': 'no-cache',
        // SVG may carry script: never let an asset run in the API's origin.
        ...USER_BYTES_HEADERS,
      });
      if (etagMatches(rc.req.headers.get('If-None-Match'), obj.httpEtag)) {
        await obj.body.cancel();
        return new Response(null, { status: 304, headers });
      }
      headers.set('Content-Length', String(obj.size));
      return new Response(obj.body, { status: 200, headers });
    },
  });

  r.delete('/assets/:asset', {
    summary: 'Remove an asset',
    need: 'w',
    responses: { 204: { description: 'Removed' } },
    handler: async (rc) => {
      const name = checkKeyName(rc.params.asset!, ASSET_RULE);
      const gone = await rc.db
        .delete(docAssets)
        .where(and(eq(docAssets.resource_id, rc.resource.id), eq(docAssets.name, name)))
        .returning()
        .get();
      if (!gone) throw notFound(`no such asset: ${name}`);
      await rc.env.BLOBS.delete(assetKey(rc.resource.id, name));
      await appendLog(rc.db, rc.resource.id, `asset ${name} removed`);
      return noContent();
    },
  });
}
