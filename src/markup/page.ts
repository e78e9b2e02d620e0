/**
 * The document as one self-contained HTML page: sanitized markdown pages in `.page`
 * sections, the theme, the layout of the type, variable colours and the custom CSS, under
 * a strict Content-Security-Policy (no scripts at all; the one style element is allowed by
 * its hash). Pure apart from WebCrypto hashing.
 */
import { sha256Base64 } from '../core/crypto';
import { escapeHtml } from './escape';
import { renderMarkdown, splitFrontMatter, type RenderedMarkdown, type VarView } from './markdown';
import type { AuthorProfile } from './block-renderer';
import { blocksCss } from './block-styles';
import { strictPage, strictPolicy } from './strict-page';
import {
  layoutCss,
  ORG_THEME,
  pageSizeCss,
  resolveTheme,
  resolveType,
  themeCss,
  type DocType,
  type Theme,
} from './themes';

export interface PageInput {
  /** The document's markdown. */
  content: string;
  /** Display name (the `name` entry) or the document's name. */
  title: string;
  type: string;
  /** config/theme; empty = the front matter's theme, then the default. */
  theme: string;
  customCss: string;
  vars: Map<string, VarView>;
  /** CSS colours of variable bands, by class name (`var-c0` -> `#1a7f37`). */
  varColors: Map<string, string>;
  /** Url for an asset name, or null to leave the reference as written. */
  asset: (name: string) => string | null;
  /** Profiles author blocks may show, by username (render/resolve.ts). */
  profiles?: Map<string, AuthorProfile>;
  /** The drawings vis blocks show (SVG without its style), by plot; and the style they need. */
  plots?: ReadonlyMap<string, string>;
  plotCss?: string;
}

export interface BuiltPage {
  html: string;
  /** The page title (front matter title, else the display name): also the PDF's and the deck's. */
  title: string;
  /** The policy to send as a header (the page also carries it in a meta element). */
  csp: string;
  type: DocType;
  theme: Theme;
  /** The requested theme name was not a built-in one or `+org/theme`. */
  unknownTheme: string | null;
  markdown: RenderedMarkdown;
}

/** CSS colours accepted from variables: hex, rgb()/hsl() and plain names. */
const CSS_COLOR = /^(#[0-9a-fA-F]{3,8}|(?:rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)|[a-zA-Z]{3,30})$/;

/** Custom CSS inside a style element: it may not close the element. Asset urls are resolved. */
export function prepareCustomCss(css: string, asset: (name: string) => string | null): string {
  return css
    .replace(
      /url\(\s*(['"]?)(?:\.\/)?assets\/([a-z0-9][a-z0-9-]*(?:\.[a-z0-9]+)?)\1\s*\)/g,
      (all, _q: string, name: string) => {
        const url = asset(name);
        return url ? `url("${url}")` : all;
      },
    )
    .replace(/<\/(style)/gi, '<\\/$1')
    .replace(/<!--/g, '<\\!--');
}

// No remote images: they would make renders slow and change output behind the cache key.
const ALLOW = ["img-src 'self' data:", "font-src 'self' data:"];

function header(meta: Record<string, string>): string {
  if (!meta.title && !meta.subtitle && !meta.author && !meta.date) return '';
  const byline = [meta.author, meta.date]
    .filter(Boolean)
    .map((s) => escapeHtml(s!))
    .join(' · ');
  return (
    '<header class="doc-header">' +
    (meta.title ? `<h1 class="title">${escapeHtml(meta.title)}</h1>` : '') +
    (meta.subtitle ? `<p class="subtitle">${escapeHtml(meta.subtitle)}</p>` : '') +
    (byline ? `<p class="byline">${byline}</p>` : '') +
    '</header>'
  );
}

/** The theme name a document asks for: config/theme, else its front matter's `theme` (may be empty or unknown). */
function requestedTheme(configTheme: string, meta: Record<string, string>): string {
  return configTheme.trim() || meta.theme || '';
}

/**
 * The name of the theme a document renders with, from config/theme and its content (for
 * reports such as the info envelope): a built-in name, or `+org/theme` as written.
 */
export function effectiveTheme(configTheme: string, content: string): string {
  const requested = requestedTheme(configTheme, splitFrontMatter(content).meta);
  return ORG_THEME.test(requested) ? requested : resolveTheme(requested).theme.name;
}

export async function buildPage(input: PageInput): Promise<BuiltPage> {
  const markdown = renderMarkdown(input.content, {
    vars: input.vars,
    asset: input.asset,
    blocks: { target: 'document', profiles: input.profiles, ...(input.plots ? { plots: input.plots } : {}) },
  });
  const type = resolveType(input.type);
  const requested = requestedTheme(input.theme, markdown.meta);
  const { theme, known } = resolveTheme(requested);
  const varCss = [...input.varColors]
    .filter(([, c]) => CSS_COLOR.test(c))
    .map(([cls, c]) => `.${cls}{color:${c}}`)
    .join('');
  const blockCss = markdown.hasBlocks ? blocksCss() + markdown.css.join('') : '';
  const style =
    themeCss(theme) +
    layoutCss(type) +
    varCss +
    blockCss +
    (input.plotCss ?? '') +
    (input.customCss ? `\n/* custom.css */\n${prepareCustomCss(input.customCss, input.asset)}\n` : '') +
    pageSizeCss(type);
  const hash = await sha256Base64(style);
  const title = markdown.meta.title || input.title;
  const sections = markdown.pages
    .map((p, i) => `<section class="page" id="page-${i + 1}">${i === 0 ? header(markdown.meta) : ''}${p}</section>`)
    .join('\n');
  const html = strictPage({
    title,
    style,
    body: `<main class="document">\n${sections}\n</main>`,
    bodyClass: `type-${type} theme-${theme.name}`,
    policy: strictPolicy(hash, ALLOW, true),
  });
  return { html, title, csp: strictPolicy(hash, ALLOW), type, theme, unknownTheme: known ? null : requested, markdown };
}
