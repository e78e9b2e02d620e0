/**
 * The document resource kind: its text entries (content, name, description, summary,
 * config/*), computed read-only entries (shortname, url) and the folders the docs area
 * serves itself (assets, files, vars, threads). Rendering adds files/doc.pdf|pptx to it.
 */
import { and, eq } from 'drizzle-orm';
import { groups } from '../db/schema';
import type { EntrySpec, ResourceCtx, ResourceKind } from '../core/resource';
import { canonicalEntries } from '../core/canonical';
import { MiB } from '../core/http';
import { DEFAULT_THEME, DOC_TYPES, ORG_THEME, THEMES } from '../markup/themes';
import { assetRowsQuery, copyAssets, type AssetRow } from './assets';
import { contentReferences } from './references';

/** Document content is capped at 2 MiB. */
export const CONTENT_LIMIT = 2 * MiB;
/** The renderer's built-in themes: the only plain names config/theme accepts. */
export const THEME_NAMES = Object.keys(THEMES);

/** Pure check of a theme name: a built-in theme, or `+org/name` (the organisation is checked on write). */
export function themeProblem(value: string): string | undefined {
  if (THEME_NAMES.includes(value) || ORG_THEME.test(value)) return undefined;
  return `'${value}' is not a theme: use one of ${THEME_NAMES.join(', ')}, or +<org>/<theme> for an organisation theme`;
}

/** The check of a config/theme write: a built-in theme, or the theme of an existing organisation. */
export async function themeEntryProblem(value: string, rc: ResourceCtx): Promise<string | undefined> {
  const problem = themeProblem(value);
  if (problem) return problem;
  const org = /^\+([^/]+)\//.exec(value)?.[1];
  if (!org) return undefined;
  const row = await rc.db
    .select({ id: groups.id })
    .from(groups)
    .where(and(eq(groups.kind, 'org'), eq(groups.ref, `+${org}`)))
    .get();
  return row ? undefined : `no such organisation: +${org}`;
}

const oneOf = (allowed: readonly string[]) => (value: string) =>
  allowed.includes(value) ? undefined : `'${value}' is not allowed: use one of ${allowed.join(', ')}`;

const entries: EntrySpec[] = [
  {
    path: 'content',
    access: 'rw',
    default: '',
    limit: CONTENT_LIMIT,
    summary: "The document's content (markdown)",
    example: '# Q3 report\n\nSales grew **12%** in the third quarter, led by the northern region.\n',
    // Variables, attached documents and the owner's profile render with the owner's rights.
    references: { path: 'doc.content', of: (value, rc) => contentReferences(value, rc.owner) },
  },
  { path: 'name', access: 'rw', default: '', summary: 'Display name', example: 'Q3 report' },
  {
    path: 'description',
    access: 'rw',
    default: '',
    summary: 'Longer description',
    example: 'Quarterly sales report for the board: revenue, margins and regional trends.',
  },
  {
    path: 'summary',
    access: 'rw',
    default: '',
    summary: 'Short text summary',
    example: 'Sales by region, third quarter',
  },
  ...canonicalEntries(() => docKind),
  {
    path: 'config/comments',
    access: 'rw',
    default: 'true',
    validate: oneOf(['true', 'false']),
    summary: 'Comment threads enabled: true or false',
  },
  {
    path: 'config/custom/custom.css',
    access: 'rw',
    default: '',
    summary: 'Custom CSS applied on top of the theme',
    example: 'h1 { letter-spacing: 0.02em; }\n',
  },
  {
    path: 'config/theme',
    access: 'rw',
    default: DEFAULT_THEME,
    summary: 'Theme name; an organisation theme is +<org>/<theme>',
    validate: themeEntryProblem,
  },
  {
    path: 'config/title',
    access: 'rw',
    default: '',
    summary: 'Reserved: accepted and stored, not used by the renderer',
    example: 'Q3 report',
  },
  {
    path: 'config/toc',
    access: 'rw',
    default: '',
    summary: 'Reserved: accepted and stored, not used by the renderer',
    example: 'true',
  },
  {
    path: 'config/type',
    access: 'rw',
    default: 'doc',
    validate: oneOf(DOC_TYPES),
    summary: 'Layout: doc, docs, pres, blog or web',
  },
];

export const docKind: ResourceKind = {
  kind: 'doc',
  collection: 'vis/docs',
  param: 'doc',
  noun: 'document',
  entries,
  folders: ['assets', 'files', 'threads', 'vars'],
  files: [{ name: 'notifications', access: 'own' }],
  log: true,
  url: (env, owner, name) => `${env.PUBLIC_ORIGIN}/u/${owner}/d/${name}`,
  copyRead: assetRowsQuery,
  copyWrites: (from, to, rows) => copyAssets(from, to, rows as AssetRow[]),
};
