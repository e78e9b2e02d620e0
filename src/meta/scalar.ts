/**
 * Scalar's standalone browser bundle: a static asset (wrangler.toml [assets]), not part of
 * this Worker's script. scripts/assets.mjs copies it from @scalar/api-reference into
 * public/ at the path it is served at, BUNDLE_PATH.
 */
export const BUNDLE_PATH = '/v1/docs/scalar.js';
/** Keep in step with package.json (the page's cache-busting query). */
export const SCALAR_VERSION = '1.72.1';

/** The bundle's bytes, read from the ASSETS binding (a 4 MB stream, never held in memory). */
export async function scalarBundle(assets: Fetcher, url: URL): Promise<Response> {
  const asset = await assets.fetch(new URL(BUNDLE_PATH, url));
  if (!asset.ok || !asset.body)
    throw new Error(`static asset ${BUNDLE_PATH}: ${asset.status} (is public/ made? node scripts/assets.mjs)`);
  return asset;
}
