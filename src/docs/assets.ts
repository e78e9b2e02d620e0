/**
 * Document assets: images and fonts under assets/<asset>, bytes in R2 at
 * r/<resource id>/assets/<name> (swept with the document), one row each in doc_assets.
 * The declared Content-Type must be one of the nine allowed types and match the bytes.
 */
import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Resource } from '../db/schema';
import { nowIso } from '../core/clock';
import { blobPrefix, d1Chunks } from '../core/entries';
import { badRequest, notFound } from '../core/errors';
import { jsonResponse, MiB, noContent, readUpload, USER_BYTES_HEADERS } from '../core/http';
import { fileActions, listingItemSchema, listingResponse, listingResponses } from '../core/listing';
import { appendLog } from '../core/log';
import { checkKeyName, keyNameProblem, type KeyNameRule } from '../core/names';
import { permList } from '../core/perms';
import type { Ctx } from '../core/context';
import { listingItem, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { docAssets } from './schema';

export const ASSET_LIMIT = 5 * MiB;
export const ASSET_NAME = /^[a-z0-9][a-z0-9-]*(?:\.[a-z0-9]+)?$/;
export const ASSET_NAME_MAX = 64;

/** The rule of an asset name (documents' and mails'): it is part of the asset's R2 key. */
export const ASSET_RULE: KeyNameRule = { pattern: ASSET_NAME, max: ASSET_NAME_MAX, what: 'asset name' };

/** Pure check of an asset name (pattern and 64-character limit). */
export function assetNameProblem(name: string): string | undefined {
  return keyNameProblem(name, ASSET_RULE);
}

/** Pure: whether an If-None-Match header names this ETag (weak comparison; `*` matches). */
export function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || bare(t) === bare(etag));
}

const assetKey = (resourceId: number, name: string) => `${blobPrefix(resourceId)}assets/${name}`;

export type AssetRow = typeof docAssets.$inferSelect;

function assetItem(rc: ResourceCtx, a: AssetRow) {
  return listingItem(rc, a.name, `${rc.base}/assets/${a.name}`, 'file', fileActions(permList(rc.access)), a.created_on, a.last_modified);
}

export function assetRoutes(r: ResourceRoutes): void {
  r.get('/assets', {
    summary: "List a document's assets",
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const rows = await rc.db.select().from(docAssets).where(eq(docAssets.resource_id, rc.resource.id)).orderBy(asc(docAssets.name));
      return listingResponse(rows.map((a) => assetItem(rc, a)));
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
        .values({ resource_id: rc.resource.id, name, content_type: type, size: bytes.byteLength, created_on: now, last_modified: now })
        .onConflictDoUpdate({ target: [docAssets.resource_id, docAssets.name], set: { content_type: type, size: bytes.byteLength, last_modified: now } })
        .returning()
        .get();
      await appendLog(rc.db, rc.resource.id, `asset ${name} ${existed ? 'replaced' : 'uploaded'} (${type}, ${bytes.byteLength} bytes)`);
      return jsonResponse(assetItem(rc, row), { status: existed ? 200 : 201 });
    },
  });

  r.get('/assets/:asset', {
    summary: 'Download an asset (public documents: no token needed)',
    need: 'r',
    anonymous: true,
    responses: { 200: { description: 'The bytes with their type', type: 'application/octet-stream' }, 304: { description: 'Not modified' } },
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

/**
 * An asset's bytes and type, for a document's outputs (whose reader may read the document,
 * so its assets too); null when there is none. Names that break the asset rule have none.
 */
export async function readAsset(env: Env, resourceId: number, name: string): Promise<{ bytes: ArrayBuffer; type: string } | null> {
  if (assetNameProblem(name)) return null;
  const obj = await env.BLOBS.get(assetKey(resourceId, name));
  if (!obj) return null;
  return { bytes: await obj.arrayBuffer(), type: obj.httpMetadata?.contentType ?? 'application/octet-stream' };
}

/** The rows of a document's assets (kind.copyRead: read with the document's load). */
export function assetRowsQuery(ctx: Ctx, resourceId: SQL) {
  return ctx.db.select().from(docAssets).where(eq(docAssets.resource_id, resourceId));
}

/**
 * Copies every asset of a document to its fresh copy (kind.copyWrites): one at a time, each
 * streamed from R2 into R2, so memory stays flat whatever the assets add up to; the rows'
 * inserts join the copy's batch. A failure throws and the core removes the whole copy.
 */
export async function copyAssets(from: ResourceCtx, to: Resource, rows: AssetRow[]): Promise<BatchItem<'sqlite'>[]> {
  const now = nowIso();
  const values: AssetRow[] = [];
  for (const a of rows) {
    const obj = await from.env.BLOBS.get(assetKey(from.resource.id, a.name));
    if (!obj) continue;
    await from.env.BLOBS.put(assetKey(to.id, a.name), obj.body, { httpMetadata: obj.httpMetadata });
    values.push({ ...a, resource_id: to.id, created_on: now, last_modified: now });
  }
  return d1Chunks(values, 6).map((chunk) => from.db.insert(docAssets).values(chunk));
}
