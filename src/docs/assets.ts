/**
 * Document assets: images and fonts under assets/<asset>, bytes in R2 at
 * r/<resource id>/assets/<name> (swept with the document), one row each in doc_assets.
 * The declared Content-Type must be one of the nine allowed types and match the bytes.
 */
import { eq, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Resource } from '../db/schema';
import { nowIso } from '../core/clock';
import { blobPrefix, d1Chunks } from '../core/entries';
import { MiB } from '../core/http';
import { keyNameProblem, type KeyNameRule } from '../core/names';
import type { Ctx } from '../core/context';
import type { ResourceCtx } from '../core/resource';
import { docAssets } from './schema';

export const ASSET_LIMIT = 5 * MiB;
const ASSET_NAME = /^[a-z0-9][a-z0-9-]*(?:\.[a-z0-9]+)?$/;
const ASSET_NAME_MAX = 64;

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

export const assetKey = (resourceId: number, name: string) => `${blobPrefix(resourceId)}assets/${name}`;

export type AssetRow = typeof docAssets.$inferSelect;

/**
 * An asset's bytes and type, for a document's outputs (whose reader may read the document,
 * so its assets too); null when there is none. Names that break the asset rule have none.
 */
export async function readAsset(
  env: Env,
  resourceId: number,
  name: string,
): Promise<{ bytes: ArrayBuffer; type: string } | null> {
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
