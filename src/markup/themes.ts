/**
 * Built-in themes and the layouts of the document types. A theme is a palette and a pair
 * of fonts; the layout of a type decides page size on screen and in print. Pure data.
 */

export type DocType = 'doc' | 'docs' | 'pres' | 'blog' | 'web';
export const DOC_TYPES: readonly DocType[] = ['doc', 'docs', 'pres', 'blog', 'web'];
const DEFAULT_TYPE: DocType = 'doc';

export interface Theme {
  name: string;
  /**
   * Page background, text, secondary text, accent (headings, links, rules), code/table fill, borders, desk around
   * pages.
   */
  bg: string;
  fg: string;
  muted: string;
  accent: string;
  surface: string;
  border: string;
  desk: string;
  up: string;
  down: string;
  font: string;
  headingFont: string;
}

const SANS = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'DejaVu Sans', sans-serif";
const SERIF = "Georgia, 'Noto Serif', 'DejaVu Serif', 'Times New Roman', serif";

export const THEMES: Record<string, Theme> = {
  default: {
    name: 'default',
    bg: '#ffffff',
    fg: '#1f2328',
    muted: '#59636e',
    accent: '#0969da',
    surface: '#f6f8fa',
    border: '#d1d9e0',
    desk: '#e6e8eb',
    up: '#1a7f37',
    down: '#cf222e',
    font: SANS,
    headingFont: SANS,
  },
  dark: {
    name: 'dark',
    bg: '#0d1117',
    fg: '#e6edf3',
    muted: '#9198a1',
    accent: '#4493f8',
    surface: '#161b22',
    border: '#3d444d',
    desk: '#010409',
    up: '#3fb950',
    down: '#f85149',
    font: SANS,
    headingFont: SANS,
  },
  paper: {
    name: 'paper',
    bg: '#fbf7ee',
    fg: '#2d2a26',
    muted: '#6b645a',
    accent: '#9c3d10',
    surface: '#f1e9d8',
    border: '#dccfb4',
    desk: '#d9d2c3',
    up: '#2f7d32',
    down: '#b3261e',
    font: SERIF,
    headingFont: SERIF,
  },
  ocean: {
    name: 'ocean',
    bg: '#f0f7fb',
    fg: '#0b2a3f',
    muted: '#4a6a80',
    accent: '#00798c',
    surface: '#dceef6',
    border: '#b5d6e6',
    desk: '#c9dde8',
    up: '#13795b',
    down: '#c0392b',
    font: SANS,
    headingFont: SERIF,
  },
  contrast: {
    name: 'contrast',
    bg: '#000000',
    fg: '#ffffff',
    muted: '#d0d0d0',
    accent: '#ffd400',
    surface: '#1a1a1a',
    border: '#ffffff',
    desk: '#333333',
    up: '#00e676',
    down: '#ff5252',
    font: SANS,
    headingFont: SANS,
  },
};

export const DEFAULT_THEME = 'default';

/** An organisation theme reference: `+<org>/<theme>`. */
export const ORG_THEME = /^\+[a-z0-9][a-z0-9_-]{0,63}\/[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * The theme a name selects. Built-in names select themselves; `+org/theme` names are
 * accepted and render with the default palette (organisations have no theme store yet);
 * anything else falls back to the default theme.
 */
export function resolveTheme(name: string | undefined): { theme: Theme; known: boolean } {
  const n = (name ?? '').trim();
  if (!n) return { theme: THEMES[DEFAULT_THEME]!, known: true };
  const builtIn = THEMES[n.toLowerCase()];
  if (builtIn) return { theme: builtIn, known: true };
  return { theme: THEMES[DEFAULT_THEME]!, known: ORG_THEME.test(n) };
}

export function resolveType(value: string | undefined): DocType {
  const v = (value ?? '').trim().toLowerCase();
  return (DOC_TYPES as readonly string[]).includes(v) ? (v as DocType) : DEFAULT_TYPE;
}

/** Print geometry per type: the PDF page and the PPTX slide. */
export interface Geometry {
  /** Page size in CSS px (96 per inch); height 0 = one continuous page as tall as the content. */
  widthPx: number;
  heightPx: number;
  /** Slide size in inches. */
  widthIn: number;
  heightIn: number;
}

const A4: Geometry = { widthPx: 794, heightPx: 1123, widthIn: 8.27, heightIn: 11.69 };
/** One printed A4 sheet in CSS px, a fraction under 210 x 297 mm so a sheet never spills onto a second page. */
export const A4_SHEET = { width: 793, height: 1122 };
const WIDE: Geometry = { widthPx: 960, heightPx: 540, widthIn: 10, heightIn: 5.625 };
const FLOW: Geometry = { widthPx: 794, heightPx: 0, widthIn: 8.27, heightIn: 0 };

export function geometry(type: DocType): Geometry {
  return type === 'pres' ? WIDE : type === 'blog' || type === 'web' ? FLOW : A4;
}

export function themeCss(t: Theme): string {
  return `:root{--bg:${t.bg};--fg:${t.fg};--muted:${t.muted};--accent:${t.accent};--surface:${t.surface};--border:${t.border};--desk:${t.desk};--up:${t.up};--down:${t.down};--font:${t.font};--heading-font:${t.headingFont}}
*{box-sizing:border-box}
html{background:var(--desk);-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{margin:0;color:var(--fg);font-family:var(--font);font-size:16px;line-height:1.55}
.page{background:var(--bg);overflow-wrap:break-word}
h1,h2,h3,h4,h5,h6{font-family:var(--heading-font);line-height:1.25;margin:1.2em 0 .5em}
h1{color:var(--accent);border-bottom:4px solid var(--accent);padding-bottom:.2em}
h2{color:var(--accent)}
.page>:first-child,.doc-header>:first-child{margin-top:0}
a{color:var(--accent)}
code,pre{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.9em;background:var(--surface);border-radius:4px}
code{padding:.1em .3em}
pre{padding:.8em 1em;overflow:auto;border:1px solid var(--border)}
pre code{padding:0;background:none}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid var(--border);padding:.35em .7em}
th{background:var(--surface);border-bottom:3px solid var(--accent)}
blockquote{margin:1em 0;padding:.2em 1em;border-left:4px solid var(--accent);color:var(--muted)}
hr{border:0;border-top:1px solid var(--border)}
img{max-width:100%}
.doc-header .subtitle{color:var(--muted);font-size:1.2em;margin:.2em 0}
.doc-header .byline{color:var(--muted);margin:.2em 0 1.5em}
.var{font-variant-numeric:tabular-nums;font-weight:600}
.var-up{color:var(--up)}.var-down{color:var(--down)}
`;
}

/** Screen and print layout of a type. */
export function layoutCss(type: DocType): string {
  switch (type) {
    case 'pres':
      return `body{font-size:22px}
.page{width:960px;height:540px;overflow:hidden;margin:24px auto;padding:40px 56px;border-top:10px solid var(--accent);box-shadow:0 1px 6px rgba(0,0,0,.3)}
.page h1{font-size:1.9em;border-bottom:0}
@media print{html{background:var(--bg)}.page{margin:0;box-shadow:none;height:539px;break-after:page}.page:last-child{break-after:auto}}
`;
    case 'blog':
    case 'web':
      return `html{background:var(--bg)}
.page{max-width:46rem;margin:0 auto;padding:2rem 1.5rem}
.page+.page{border-top:1px solid var(--border)}
@media print{.page{max-width:none;padding:1.5rem 2.5rem}}
`;
    default:
      // In print every .page is exactly one A4 sheet: the renderer has already moved what
      // overflows a sheet onto a new one (render/sheets.browser.js), so PDF pages and PPTX slides agree.
      return `.page{width:794px;min-height:1123px;margin:24px auto;padding:72px 68px;box-shadow:0 1px 6px rgba(0,0,0,.3)}
@media print{html{background:var(--bg)}.page{width:${A4_SHEET.width}px;height:${A4_SHEET.height}px;min-height:0;overflow:hidden;margin:0;padding:72px 68px;box-shadow:none;break-after:page}.page:last-child{break-after:auto}}
`;
  }
}

/**
 * The paper of a type, placed after custom CSS so that no `@page` rule there can change
 * size, orientation or margins (the PDF and the sheet layout depend on them). blog/web
 * pages get their size from the renderer; only the orientation is pinned.
 */
export function pageSizeCss(type: DocType): string {
  const size = type === 'pres' ? '960px 540px' : geometry(type).heightPx === 0 ? 'portrait' : 'A4 portrait';
  return ['', ':first', ':left', ':right', ':blank']
    .map((sel) => `@page${sel ? ` ${sel}` : ''}{size:${size};margin:0}`)
    .join('');
}
