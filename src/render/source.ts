/**
 * Gathers what a document's rendering depends on (entries, variables, assets) and builds
 * its page. Variables of other documents resolve when the document's owner may read them.
 * Assets are read through the docs area (the reader may read the document, so its assets)
 * when they must be inlined (PDF, PPTX, the page of a private document); see `AssetMode`.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { resources, users, type Resource, type User } from '../db/schema';
import { docAssets } from '../docs/schema';
import type { Db } from '../core/context';
import { entriesQuery, entryValues, readEntries, type StoredEntry } from '../core/entries';
import { accessTo } from '../core/perms';
import { visibleWhere, type ResourceCtx } from '../core/resource';
import { readAsset } from '../docs/assets';
import { docKind } from '../docs/kind';
import { formatVar, varsFromEntries, type DocVar } from '../docs/vars';
import { assetRefs, varRefs, type VarView } from '../markup/markdown';
import { toBase64 } from '../core/crypto';
import { buildPage, type BuiltPage } from '../markup/page';
import { authorProfiles } from './block-data';

/** Asset names custom CSS refers to with url(assets/<name>). */
export function cssAssetRefs(css: string): string[] {
  return [...css.matchAll(/url\(\s*(['"]?)(?:\.\/)?assets\/([a-z0-9][a-z0-9-]*(?:\.[a-z0-9]+)?)\1\s*\)/g)].map(
    (m) => m[2]!,
  );
}

/** Path of a document's asset (the documents area serves it; public documents without a token). */
export function assetPath(owner: string, doc: string, name: string): string {
  return `/v1/users/${owner}/${docKind.collection}/${doc}/assets/${name}`;
}

/** Where variable references are resolved from: the resource whose content holds them and its owner. */
export interface VarScope {
  env: Env;
  db: Db;
  owner: User;
  resource: Resource;
}

/**
 * Resolves the `{/u/<user>/d/<doc>/v/<var>}` references of `content` to formatted values,
 * for documents the owner of `scope.resource` may read (`own`: the variables of that
 * resource when it is itself a document). Unresolved references are left out.
 */
export async function resolveVars(
  scope: VarScope,
  content: string,
  own: DocVar[] = [],
): Promise<{ vars: Map<string, VarView>; colors: Map<string, string> }> {
  const { env, db, owner: me, resource: self } = scope;
  const vars = new Map<string, VarView>();
  const colors = new Map<string, string>();
  const refs = varRefs(content);
  if (!refs.length) return { vars, colors };
  // The variables of every other document the owner may read (none when it may not): one D1 round trip.
  const isSelf = (user: string, doc: string) => self.kind === docKind.kind && user === me.username && doc === self.name;
  const docs = [...new Map(refs.map((r) => [`${r.user}/${r.doc}`, r])).entries()].filter(
    ([, r]) => !isSelf(r.user, r.doc),
  );
  const queries: BatchItem<'sqlite'>[] = docs.map(([, { user, doc }]) => {
    const mine = user === me.username;
    const ownerId = mine ? me.id : sql`(select ${users.id} from ${users} where ${users.username} = ${user})`;
    const named = and(visibleWhere({ caller: me }, docKind.kind, ownerId, mine), eq(resources.name, doc));
    return entriesQuery(db, sql`(select ${resources.id} from ${resources} where ${named})`, 'vars/');
  });
  const rows = queries.length
    ? ((await db.batch(queries as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as StoredEntry[][])
    : [];
  const byDoc = new Map<string, DocVar[]>(
    await Promise.all(docs.map(async ([key], i) => [key, varsFromEntries(await entryValues(env, rows[i]!))] as const)),
  );
  for (const r of refs) if (isSelf(r.user, r.doc)) byDoc.set(`${r.user}/${r.doc}`, own);
  const colorClass = new Map<string, string>();
  for (const ref of refs) {
    const v = byDoc.get(`${ref.user}/${ref.doc}`)?.find((x) => x.name === ref.name);
    if (!v) continue;
    const f = formatVar(v);
    let cls: string | undefined;
    if (f.color) {
      cls = colorClass.get(f.color);
      if (!cls) {
        cls = `var-c${colorClass.size}`;
        colorClass.set(f.color, cls);
        colors.set(cls, f.color);
      }
    }
    vars.set(ref.key, { text: f.text, band: f.band, about: v.about || undefined, colorClass: cls });
  }
  return { vars, colors };
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
export type AssetMode = 'link' | 'inline' | 'key';

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

export async function documentPages(rc: ResourceCtx): Promise<PageBuilder> {
  // The routes read the entries with the document (preload: { entries: true }).
  const e = rc.preloaded?.entries ?? (await readEntries(rc.env, rc.db, rc.resource.id));
  const content = e.get('content') ?? '';
  const customCss = e.get('config/custom/custom.css') ?? '';
  const [{ vars, colors }, profiles] = await Promise.all([
    resolveVars(rc, content, varsFromEntries(e)),
    authorProfiles(rc.db, rc.owner, content),
  ]);
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
