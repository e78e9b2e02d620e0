/**
 * Gathers what a document's rendering depends on (entries, variables, assets) and builds
 * its page. What the content names (variables of other documents, author profiles)
 * resolves with the rights of the document's owner and of the content's writer, at the
 * moment of rendering (resolve.ts). Assets are read through the docs area (the reader may
 * read the document, so its assets) when they must be inlined (PDF, PPTX, the page of a
 * private document); see `AssetMode`.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { docAssets } from '../docs/schema';
import { entriesQuery, entryAuthorship, entryValues, lenders } from '../core/entries';
import { HttpError } from '../core/errors';
import { accessTo } from '../core/perms';
import type { ResourceCtx } from '../core/resource';
import { readAsset } from '../docs/assets';
import { docKind } from '../docs/kind';
import { varsFromEntries } from '../docs/vars';
import { composedTooLarge, drawingBytes } from '../markup/composed-size';
import { drawStored } from '../plots/draw';
import { DEFAULT_SIZE } from '../plots/model';
import { hoistStyle } from '../plots/svg-style';
import { assetRefs } from '../markup/markdown';
import { toBase64 } from '../core/crypto';
import { buildPage, type BuiltPage } from '../markup/page';
import { principalsWith } from '../core/resource';
import { resolveContent, type ResolvedPlot } from './resolve';

/** Asset names custom CSS refers to with url(assets/<name>). */
export function cssAssetRefs(css: string): string[] {
  return [...css.matchAll(/url\(\s*(['"]?)(?:\.\/)?assets\/([a-z0-9][a-z0-9-]*(?:\.[a-z0-9]+)?)\1\s*\)/g)].map(
    (m) => m[2]!,
  );
}

/** Path of a document's asset (the documents area serves it; public documents without a token). */
function assetPath(owner: string, doc: string, name: string): string {
  return `/v1/users/${owner}/${docKind.collection}/${doc}/assets/${name}`;
}

/** The document's assets as data: urls. Missing assets are left out (their references stay as written). */
async function inlineAssets(rc: ResourceCtx, names: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await Promise.all(
    [...new Set(names)].map(async (name) => {
      const asset = await readAsset(rc.env, rc.resource.id, name);
      if (!asset) return;
      const type = asset.type.split(';')[0]!.trim();
      out.set(name, `data:${type};base64,${toBase64(new Uint8Array(asset.bytes))}`);
    }),
  );
  return out;
}

/**
 * How a page refers to its assets. `link`: at the asset url (the canonical page of a
 * public document). `inline`: embedded as data: urls (PDF/PPTX, and the canonical page of
 * a private document, whose viewer's browser has no token to fetch them). `key`: by name
 * and version (`doc_assets` last_modified, size, type) without reading any bytes: the
 * page whose hash is the cache key and ETag.
 */
type AssetMode = 'link' | 'inline' | 'key';

/** Builds the document's page in any asset mode; entries and variables are read once. */
export type PageBuilder = (mode: AssetMode) => Promise<BuiltPage>;

/** Pure: the stand-in url of an asset version in `key` pages (a path, so sanitizing keeps it). */
export function assetVersionUrl(a: {
  name: string;
  last_modified: string;
  size: number;
  content_type: string;
}): string {
  return `/asset-version/${a.name}/${encodeURIComponent(`${a.last_modified}|${a.size}|${a.content_type}`)}`;
}

/** The document's entries and who wrote them: read with the document (preload: { entries: true }) or here. */
async function storedEntries(rc: ResourceCtx) {
  if (rc.preloaded?.entries && rc.preloaded.authorship)
    return { values: rc.preloaded.entries, authorship: rc.preloaded.authorship };
  const rows = await entriesQuery(rc.db, rc.resource.id);
  return { values: await entryValues(rc.env, rows), authorship: entryAuthorship(rows) };
}

/**
 * The SVGs of the plots vis blocks show (each with its own scope; its style moved into the
 * page's one style element), by plot.
 */
async function drawPlots(
  plots: ReadonlyMap<string, ResolvedPlot>,
): Promise<{ svgs: Map<string, string>; css: string }> {
  const svgs = new Map<string, string>();
  const css: string[] = [];
  for (const [i, [ref, p]] of [...plots].entries()) {
    const { drawing } = await drawStored(p.values, p.name, { format: 'svg', size: DEFAULT_SIZE, scope: `vis${i}` });
    const { svg, style } = hoistStyle(drawing);
    svgs.set(ref, svg);
    css.push(style);
  }
  return { svgs, css: css.join('') };
}

export async function documentPages(rc: ResourceCtx): Promise<PageBuilder> {
  const { values: e, authorship } = await storedEntries(rc);
  const content = e.get('content') ?? '';
  const customCss = e.get('config/custom/custom.css') ?? '';
  // The content's references resolve with the owner's rights and its writer's (doc.content).
  const { vars, colors, profiles, plots, plotUses, bytes } = await resolveContent(
    rc,
    [
      {
        path: 'doc.content',
        text: content,
        principals: principalsWith([rc.owner.id], lenders(authorship.get('content'), rc.owner.id)),
      },
    ],
    varsFromEntries(e),
  );
  const drawn = await drawPlots(plots);
  const tooLarge = composedTooLarge(bytes + drawingBytes(plotUses, drawn.svgs), 'the page');
  if (tooLarge) throw new HttpError(413, tooLarge);
  const names = [...new Set([...assetRefs(content), ...cssAssetRefs(customCss)])];
  const build = (asset: (name: string) => string | null) =>
    buildPage({
      content,
      title: e.get('name') || rc.resource.name,
      type: e.get('config/type') ?? '',
      theme: e.get('config/theme') ?? '',
      customCss,
      vars,
      varColors: colors,
      asset,
      profiles,
      plots: drawn.svgs,
      plotCss: drawn.css,
    });
  return async (mode) => {
    if (mode === 'link') return build((name) => assetPath(rc.owner.username, rc.resource.name, name));
    if (mode === 'inline') {
      const inlined = await inlineAssets(rc, names);
      return build((name) => inlined.get(name) ?? null);
    }
    const rows = names.length
      ? await rc.db
          .select()
          .from(docAssets)
          .where(and(eq(docAssets.resource_id, rc.resource.id), inArray(docAssets.name, names)))
          .all()
      : [];
    const versions = new Map(rows.map((a) => [a.name, assetVersionUrl(a)]));
    return build((name) => versions.get(name) ?? null);
  };
}

/** Whether the document is shared with `public` (its canonical page may then link assets). */
export async function isPublic(rc: ResourceCtx): Promise<boolean> {
  return (await accessTo(rc.db, null, rc.resource)).r;
}
