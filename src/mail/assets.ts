/**
 * Mail assets (images and fonts the content embeds): R2 objects under the mail's blob
 * prefix, at most MAX_ASSETS per mail, with the document asset rules of the spec.
 */
import { blobPrefix } from '../core/entries';
import { badRequest, conflict, notFound } from '../core/errors';
import { readUpload } from '../core/http';
import type { ResourceCtx } from '../core/resource';
import { ASSET_LIMIT, assetNameProblem } from '../docs/assets';

const MAX_ASSETS = 25;

const assetKey = (resourceId: number, name: string) => `${blobPrefix(resourceId)}assets/${name}`;

function checkAssetName(name: string): string {
  const problem = assetNameProblem(name);
  if (problem) throw badRequest(problem);
  return name;
}

export async function listAssets(env: Env, resourceId: number): Promise<R2Object[]> {
  const page = await env.BLOBS.list({ prefix: `${blobPrefix(resourceId)}assets/`, limit: 1000 });
  return page.objects;
}

export const assetName = (o: R2Object) => o.key.slice(o.key.lastIndexOf('/') + 1);

export async function putAsset(rc: ResourceCtx, name: string): Promise<boolean> {
  checkAssetName(name);
  const { bytes, type } = await readUpload(rc.req, ASSET_LIMIT, 'assets');
  const existing = await listAssets(rc.env, rc.resource.id);
  const replacing = existing.some((o) => assetName(o) === name);
  if (!replacing && existing.length >= MAX_ASSETS)
    throw conflict(`a mail holds at most ${MAX_ASSETS} assets: delete one first`);
  await rc.env.BLOBS.put(assetKey(rc.resource.id, name), bytes, { httpMetadata: { contentType: type } });
  return !replacing;
}

export async function getAsset(env: Env, resourceId: number, name: string): Promise<R2ObjectBody | null> {
  // A name that breaks the rule cannot exist (and would make a key R2 refuses).
  return assetNameProblem(name) ? null : env.BLOBS.get(assetKey(resourceId, name));
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
    if (body)
      await env.BLOBS.put(assetKey(to, assetName(o)), await body.arrayBuffer(), { httpMetadata: body.httpMetadata });
  }
}
