/**
 * Mail assets (images and fonts the content embeds): R2 objects under the mail's blob
 * prefix, at most MAX_ASSETS per mail, with the document asset rules of the spec.
 */
import { blobPrefix } from '../core/entries';
import { badRequest, conflict, notFound, unsupportedType } from '../core/errors';
import { MiB, readBytes, mediaType } from '../core/http';
import type { ResourceCtx } from '../core/resources';

export const MAX_ASSETS = 25;
export const ASSET_LIMIT = 5 * MiB;
export const ASSET_NAME = /^[a-z0-9][a-z0-9-]*(\.[a-z0-9]+)?$/;
export const ASSET_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml', 'image/webp', 'font/woff', 'font/woff2', 'font/ttf', 'font/otf'];

const assetKey = (resourceId: number, name: string) => `${blobPrefix(resourceId)}assets/${name}`;

export function checkAssetName(name: string): string {
  if (name.length > 64 || !ASSET_NAME.test(name)) throw badRequest(`invalid asset name '${name}': must match ${ASSET_NAME.source}, at most 64 characters`);
  return name;
}

export async function listAssets(env: Env, resourceId: number): Promise<R2Object[]> {
  const page = await env.BLOBS.list({ prefix: `${blobPrefix(resourceId)}assets/`, limit: 1000 });
  return page.objects;
}

export const assetName = (o: R2Object) => o.key.slice(o.key.lastIndexOf('/') + 1);

export async function putAsset(rc: ResourceCtx, name: string): Promise<boolean> {
  checkAssetName(name);
  const type = mediaType(rc.req);
  if (!ASSET_TYPES.includes(type)) throw unsupportedType(`asset Content-Type must be one of ${ASSET_TYPES.join(', ')}`);
  const bytes = await readBytes(rc.req, ASSET_LIMIT);
  const existing = await listAssets(rc.env, rc.resource.id);
  const replacing = existing.some((o) => assetName(o) === name);
  if (!replacing && existing.length >= MAX_ASSETS) throw conflict(`a mail holds at most ${MAX_ASSETS} assets: delete one first`);
  await rc.env.BLOBS.put(assetKey(rc.resource.id, name), bytes, { httpMetadata: { contentType: type } });
  return !replacing;
}

export async function getAsset(env: Env, resourceId: number, name: string): Promise<R2ObjectBody | null> {
  return ASSET_NAME.test(name) ? env.BLOBS.get(assetKey(resourceId, name)) : null;
}

export async function deleteAsset(env: Env, resourceId: number, name: string): Promise<void> {
  const key = assetKey(resourceId, checkAssetName(name));
  if (!(await env.BLOBS.head(key))) throw notFound(`no asset ${name}`);
  await env.BLOBS.delete(key);
}

/** Etags of the named assets (missing ones as `-`): what the content key embeds. */
export async function assetTags(env: Env, resourceId: number, names: string[]): Promise<string[]> {
  return Promise.all(names.map(async (n) => `${n}:${(await env.BLOBS.head(assetKey(resourceId, n)))?.etag ?? '-'}`));
}

/** Copies every asset of one mail to another (PATCH copy). */
export async function copyAssets(env: Env, from: number, to: number): Promise<void> {
  for (const o of await listAssets(env, from)) {
    const body = await env.BLOBS.get(o.key);
    if (body) await env.BLOBS.put(assetKey(to, assetName(o)), await body.arrayBuffer(), { httpMetadata: body.httpMetadata });
  }
}
