/**
 * A plot drawn as one standalone SVG 1.1 document (a string: no DOM at the edge):
 *
 * - `role="graphics-document"` (not `img`, whose children assistive technology skips)
 *   labelled by its `<title>` (the config title, else the plot's name) and described by its
 *   `<desc>` (the caption, else one line saying what is drawn), and the data as a table for
 *   screen readers (`<g role="table">` of rows of cells, out of sight; its first A11Y_ROWS
 *   rows and a last "… N more rows");
 * - light and dark themes: colours are light attributes, and a `prefers-color-scheme:
 *   dark` rule per colour restyles them (an SVG reader without CSS draws the light one);
 * - every id, class and CSS rule carries `options.scope`, so plots inlined in one page never
 *   collide, and `custom/custom.css` is scoped under the plot's root (css.ts);
 * - every user string escaped, every number finite; never a `<script>`.
 *
 * Pure, and bounded whatever the data (svg-chart.ts, svg-table.ts say how). Never throws
 * on user input: data without numbers, or a type without what it needs, draws a message.
 */
import { parseColors } from './colors';
import { scopeCss } from './css';
import { readLegend } from './legend';
import { A11Y_CELLS, A11Y_ROWS } from './limits';
import { DEFAULT_SIZE, type PlotConfig, type SvgOptions, type Table } from './model';
import { THEME } from './palette';
import { message, type DrawContext, type Drawn } from './chart-frame';
import { drawChart } from './svg-chart';
import { Ink, SMALL, text, theme, wrap } from './svg-parts';
import { drawTable } from './svg-table';
import { esc, num, textWidth, truncate } from './xml';

const PAD = 12;
const TITLE = 16;
const FONT_FAMILY = 'system-ui,-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif';

/** The scope as a name CSS can use: letters, digits and `-`, starting with a letter (`p` is put before one that does not). */
export function scopeName(scope: string): string {
  const s = scope.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 64);
  return /^[A-Za-z]/.test(s) ? s : `p${s}`;
}

const dim = (v: number | undefined, dflt: number) =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(10_000, Math.max(50, Math.round(v))) : dflt;

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The data as rows of cells for screen readers (the header row first), out of sight. */
function dataTable(scope: string, table: Table, label: string): string {
  const columns = Math.max(1, table.header.length);
  const rows = Math.min(table.rows.length, A11Y_ROWS, Math.max(1, Math.floor(A11Y_CELLS / columns) - 1));
  const cell = (role: string, v: string) => `<text role="${role}">${esc(truncate(v, 200))}</text>`;
  let out = `<g class="${scope}-sr" role="table" aria-label="${esc(truncate(`Data of ${label}`, 200))}" opacity="0" pointer-events="none" font-size="1">`;
  if (table.header.length) out += `<g role="row">${table.header.map((h) => cell('columnheader', h)).join('')}</g>`;
  for (let r = 0; r < rows; r++) {
    const row = table.rows[r]!;
    out += `<g role="row">${row.map((v, c) => cell(c === 0 ? 'rowheader' : 'cell', v)).join('')}</g>`;
  }
  if (rows < table.rows.length)
    out += `<g role="row">${cell('cell', `… ${(table.rows.length - rows).toLocaleString('en-US')} more rows`)}</g>`;
  return out + '</g>';
}

/** The document's style: the dark theme of its own colours and of the colours it used, then the plot's custom CSS, scoped. */
function style(scope: string, ink: Ink, customCss: string): string {
  const dark =
    `.${scope}-bg{fill:${THEME.bg.dark}}.${scope}-fg{fill:${THEME.text.dark}}.${scope}-muted{fill:${THEME.muted.dark}}` +
    `.${scope}-grid{stroke:${THEME.grid.dark}}.${scope}-axis{stroke:${THEME.axis.dark}}` +
    ink.darkRules();
  const custom = customCss.trim() ? scopeCss(customCss, scope) : '';
  return `@media (prefers-color-scheme:dark){${dark}}` + (custom ? `\n${custom}` : '');
}

export function drawSvg(table: Table, config: PlotConfig, options: SvgOptions): string {
  const scope = scopeName(options.scope);
  const width = dim(options.size?.width, DEFAULT_SIZE.width);
  let height = dim(options.size?.height, DEFAULT_SIZE.height);
  const ink = new Ink(scope);
  const ctx: DrawContext = { scope, ink, colors: parseColors(config.colors), legend: readLegend(config.legend) };
  const title = truncate(oneLine(config.title), 300);
  const label = title || truncate(oneLine(options.name), 300) || 'Plot';
  const caption = config.caption.trim();

  let head = '';
  let top = PAD;
  if (title) {
    const t = truncate(title, Math.max(4, Math.floor((width - 2 * PAD) / (TITLE * 0.6))));
    head += text(scope, PAD, top + TITLE, t, ['title', 'fg'], ` font-size="${TITLE}" font-weight="600"`, theme.fg);
    top += TITLE + 12;
  }
  const captionLines = caption ? wrap(caption, width - 2 * PAD, SMALL + 1, 3, textWidth) : [];
  const captionH = captionLines.length ? captionLines.length * 15 + 6 : 0;
  const box = { x: PAD, y: top, w: width - 2 * PAD, h: Math.max(20, height - PAD - top - captionH) };

  let drawn: Drawn;
  let body: string;
  const isTable = config.type === 'table' || config.type === 'mtable';
  if (isTable && table.header.length === 0) {
    drawn = { svg: message(scope, box, 'No data to draw'), summary: 'Table without data', notes: [] };
    body = drawn.svg;
  } else if (isTable) {
    const t = drawTable(table, config.cell, box, ctx);
    drawn = t;
    // A table is as tall as its rows: the drawing grows (or shrinks) to them, its notes and its caption.
    let y = top + t.height + 4;
    body = t.svg;
    for (const n of t.notes) {
      body += text(scope, PAD, y + 10, n, ['note', 'muted'], ` font-size="${SMALL}"`, theme.muted);
      y += 14;
    }
    height = Math.max(60, Math.ceil(y + captionH + PAD));
  } else {
    drawn = drawChart(table, config.type, box, ctx);
    body = drawn.svg;
  }
  let foot = '';
  captionLines.forEach((line, i) => {
    foot += text(
      scope,
      PAD,
      height - PAD - (captionLines.length - 1 - i) * 15,
      line,
      ['caption', 'muted'],
      ` font-size="${SMALL + 1}"`,
      theme.muted,
    );
  });

  const desc = truncate(caption ? oneLine(caption) : [drawn.summary, ...drawn.notes].join('. '), 1000);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"` +
    ` id="${scope}" class="${scope}" role="graphics-document" aria-labelledby="${scope}-title" aria-describedby="${scope}-desc"` +
    ` font-family="${FONT_FAMILY}" font-size="12">` +
    `<title id="${scope}-title">${esc(label)}</title>` +
    `<desc id="${scope}-desc">${esc(desc)}</desc>` +
    `<style type="text/css">${esc(style(scope, ink, config.customCss))}</style>` +
    `<rect width="${num(width)}" height="${num(height)}" class="${scope}-bg"${theme.bg.attr}/>` +
    head +
    body +
    foot +
    dataTable(scope, table, label) +
    '</svg>'
  );
}
