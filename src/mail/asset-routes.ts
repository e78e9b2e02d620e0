/** assets/ of an e-mail: list, download, upload or replace, remove (rules in assets.ts). */
import { notFound } from '../core/errors';
import { jsonResponse, noContent, USER_BYTES_HEADERS } from '../core/http';
import { listingResponse, listingResponses } from '../core/listing';
import { appendLog } from '../core/log';
import { listingItem, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { assetName, deleteAsset, getAsset, listAssets, putAsset } from './assets';

async function assetListing(rc: ResourceCtx): Promise<Response> {
  const actions = rc.access.w ? (['GET', 'POST', 'DELETE'] as const) : (['GET'] as const);
  const items = (await listAssets(rc.env, rc.resource.id)).map((o) =>
    listingItem(
      rc,
      assetName(o),
      `${rc.base}/assets/${assetName(o)}`,
      'file',
      [...actions],
      o.uploaded.toISOString(),
      o.uploaded.toISOString(),
    ),
  );
  return listingResponse(rc.url, items);
}

async function assetDownload(rc: ResourceCtx): Promise<Response> {
  const obj = await getAsset(rc.env, rc.resource.id, rc.params.asset!);
  if (!obj) throw notFound(`no asset ${rc.params.asset}`);
  return new Response(obj.body, {
    headers: {
      'Content-Type': obj.httpMetadata?.contentType ?? 'application/octet-stream',
      'X-NVM-Type': 'file',
      ETag: obj.httpEtag,
      ...USER_BYTES_HEADERS,
    },
  });
}

async function assetUpload(rc: ResourceCtx): Promise<Response> {
  const created = await putAsset(rc, rc.params.asset!);
  await appendLog(rc.db, rc.resource.id, `asset ${rc.params.asset} ${created ? 'uploaded' : 'replaced'}`);
  return created ? jsonResponse({ status: 201, message: `uploaded ${rc.params.asset}` }, { status: 201 }) : noContent();
}

async function assetRemoval(rc: ResourceCtx): Promise<Response> {
  await deleteAsset(rc.env, rc.resource.id, rc.params.asset!);
  await appendLog(rc.db, rc.resource.id, `asset ${rc.params.asset} removed`);
  return noContent();
}

export function assetRoutes(r: ResourceRoutes): void {
  r.get('/assets', {
    summary: 'List the assets of an e-mail',
    need: 'r',
    responses: listingResponses,
    handler: assetListing,
  });
  r.get('/assets/:asset', {
    summary: 'Download an asset',
    need: 'r',
    responses: { 200: { description: 'The asset', type: 'application/octet-stream' } },
    handler: assetDownload,
  });
  r.post('/assets/:asset', {
    summary:
      'Upload or replace an asset (PNG, JPEG, GIF, SVG, WebP, WOFF, WOFF2, TTF, OTF; at most 5 MiB, 25 per e-mail)',
    need: 'w',
    body: { type: 'application/octet-stream', description: 'The raw file with its Content-Type' },
    responses: {
      201: { description: 'Uploaded' },
      204: { description: 'Replaced' },
      409: { description: '25 assets already' },
      413: { description: 'Too large' },
      415: { description: 'Type not allowed' },
    },
    handler: assetUpload,
  });
  r.delete('/assets/:asset', {
    summary: 'Remove an asset',
    need: 'w',
    responses: { 204: { description: 'Removed' } },
    handler: assetRemoval,
  });
}
