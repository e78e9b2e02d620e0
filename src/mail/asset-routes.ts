/** assets/ of an e-mail: list, download, upload or replace, remove (rules in assets.ts). */
import { notFound } from '../core/errors';
import { jsonResponse, noContent, USER_BYTES_HEADERS } from '../core/http';
import { listingResponse } from '../core/listing';
import { appendLog } from '../core/log';
import { listingItem, type ResourceCtx } from '../core/resource';
import { assetName, deleteAsset, getAsset, listAssets, putAsset } from './assets';

export async function assetListing(rc: ResourceCtx): Promise<Response> {
  const actions = rc.access.w ? (['GET', 'POST', 'DELETE'] as const) : (['GET'] as const);
  const items = (await listAssets(rc.env, rc.resource.id)).map((o) =>
    listingItem(rc, assetName(o), `${rc.base}/assets/${assetName(o)}`, 'file', [...actions], o.uploaded.toISOString(), o.uploaded.toISOString()),
  );
  return listingResponse(items);
}

export async function assetDownload(rc: ResourceCtx): Promise<Response> {
  const obj = await getAsset(rc.env, rc.resource.id, rc.params.asset!);
  if (!obj) throw notFound(`no asset ${rc.params.asset}`);
  return new Response(obj.body, {
    headers: { 'Content-Type': obj.httpMetadata?.contentType ?? 'application/octet-stream', 'X-NVM-Type': 'file', ETag: obj.httpEtag, ...USER_BYTES_HEADERS },
  });
}

export async function assetUpload(rc: ResourceCtx): Promise<Response> {
  const created = await putAsset(rc, rc.params.asset!);
  await appendLog(rc.db, rc.resource.id, `asset ${rc.params.asset} ${created ? 'uploaded' : 'replaced'}`);
  return created ? jsonResponse({ status: 201, message: `uploaded ${rc.params.asset}` }, { status: 201 }) : noContent();
}

export async function assetRemoval(rc: ResourceCtx): Promise<Response> {
  await deleteAsset(rc.env, rc.resource.id, rc.params.asset!);
  await appendLog(rc.db, rc.resource.id, `asset ${rc.params.asset} removed`);
  return noContent();
}
