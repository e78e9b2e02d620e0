/**
 * A table plot (`table`, `mtable`) drawn as SVG: the header row and the index column
 * included, every cell with its style (cell.ts: alignment, format, borders, padding, text)
 * and colours (colour instructions on cells). Columns take the width their text needs (or
 * what `width` instructions say) and shrink together, text cut with an ellipsis, when the
 * table is wider than the drawing; the table is as tall as its rows (the drawing grows to
 * fit them). Without border instructions a rule is drawn under the header and light rules
 * between rows.
 *
 * Bounded: at most MAX_TABLE_ROWS data rows and MAX_TABLE_CELLS cells are drawn, and a
 * note says how many rows are left out.
 */
import { cellPaints } from './color-apply';
import { tableStyles, type CellStyle } from './cell';
import { MAX_TABLE_CELLS, MAX_TABLE_ROWS } from './limits';
import type { PlotConfig, Table } from './model';
import type { Drawn, DrawContext } from './chart-frame';
import { attrs, FONT, theme, type Box, type Ink, type InkUse } from './svg-parts';
import { esc, num, textWidth, truncate } from './xml';

/** Data rows drawn of a table with `columns` columns and `rows` rows. */
function tableRowsDrawn(rows: number, columns: number): number {
  return Math.min(rows, MAX_TABLE_ROWS, Math.max(1, Math.floor(MAX_TABLE_CELLS / Math.max(1, columns)) - 1));
}

const LINE = 1.25;

/** The estimated width of a cell's text in its style (bold text is wider). */
const measure = (t: string, st: CellStyle) =>
  textWidth(t, st.size ?? FONT) * (st.bold || (st.weight ?? 400) >= 600 ? 1.08 : 1);

export interface DrawnTable extends Drawn {
  /** The height the table needs (the drawing grows to it). */
  height: number;
}

export function drawTable(table: Table, cell: PlotConfig['cell'], box: Box, ctx: DrawContext): DrawnTable {
  const { scope, ink } = ctx;
  const columns = table.header.length;
  const drawnRows = tableRowsDrawn(table.rows.length, columns);
  const grid = drawnRows + 1;
  const styles = tableStyles(table, cell, grid);
  const paints = cellPaints(table, ctx.colors, grid);
  const raw = (r: number, c: number) => (r === 0 ? table.header[c] : table.rows[r - 1]![c]) ?? '';
  // The text each cell shows (formatted; blank when styled so), and each column's natural width.
  // oxlint-disable-next-line unicorn/no-new-array -- preallocates one slot per cell, filled below
  const shown: string[] = new Array(grid * columns);
  const natural = Array.from({ length: columns }, () => 24);
  for (let r = 0; r < grid; r++)
    for (let c = 0; c < columns; c++) {
      const st = styles.style(r, c);
      const v = raw(r, c);
      const t = st.blank ? '' : truncate(r > 0 && st.format ? st.format(v) : v, 200);
      shown[r * columns + c] = t;
      const w = measure(t, st) + st.pad.l + st.pad.r + 10;
      if (w > natural[c]!) natural[c] = w;
    }
  const widths = natural.map((w, c) => {
    const rule = styles.widths[c]!;
    if (rule.fixed !== undefined) return rule.fixed;
    let v = Math.min(w, 400);
    if (rule.max !== undefined) v = Math.min(v, rule.max);
    if (rule.min !== undefined) v = Math.max(v, rule.min);
    return v;
  });
  const total = widths.reduce((a, b) => a + b, 0);
  if (total > box.w) for (let c = 0; c < columns; c++) widths[c] = (widths[c]! * box.w) / total;
  const bordered = /\S/.test(cell.border.replace(/--.*$/gm, ''));
  let out = `<g${attrs(scope, ['table'])} font-size="${FONT}">`;
  let y = box.y;
  const rule = (y1: number, cls: string, ink_: InkUse) =>
    `<line x1="${num(box.x)}" x2="${num(box.x + Math.min(total, box.w))}" y1="${num(y1)}" y2="${num(y1)}"${attrs(scope, [cls], ink_)}/>`;
  for (let r = 0; r < grid; r++) {
    let h = 0;
    for (let c = 0; c < columns; c++) {
      const st = styles.style(r, c);
      h = Math.max(h, (st.size ?? FONT) * LINE + st.pad.t + st.pad.b + 6);
    }
    let x = box.x;
    let row = '';
    for (let c = 0; c < columns; c++) {
      const st = styles.style(r, c);
      const w = widths[c]!;
      const bg = paints.bg(r, c);
      if (bg)
        row += `<rect x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}"${attrs(scope, ['cell-bg'], ink.fill(bg))}/>`;
      row += cellText(
        scope,
        ink,
        shown[r * columns + c]!,
        st,
        x,
        y,
        w,
        h,
        r,
        c,
        paints.fg(r, c) ? ink.fill(paints.fg(r, c)!) : undefined,
      );
      row += borders(scope, st, x, y, w, h, ink);
      x += w;
    }
    out += `<g${attrs(scope, [r === 0 ? 'header-row' : 'row'])}>${row}</g>`;
    y += h;
    if (!bordered && r < grid - 1) out += r === 0 ? rule(y, 'axis', theme.axis) : rule(y, 'grid', theme.grid);
  }
  out += '</g>';
  const notes: string[] = [];
  if (drawnRows < table.rows.length)
    notes.push(
      `Showing the first ${drawnRows.toLocaleString('en-US')} of ${table.rows.length.toLocaleString('en-US')} rows`,
    );
  return {
    svg: out,
    height: y - box.y,
    summary: `Table of ${table.rows.length.toLocaleString('en-US')} rows and ${Math.max(0, columns - 1)} columns`,
    notes,
  };
}

function cellText(
  scope: string,
  ink: Ink,
  t: string,
  st: CellStyle,
  x: number,
  y: number,
  w: number,
  h: number,
  r: number,
  c: number,
  fg: InkUse | undefined,
): string {
  if (!t) return '';
  const size = st.size ?? FONT;
  // Cut only what does not fit (by the same estimate the column widths were measured with).
  const avail = w - st.pad.l - st.pad.r - 8;
  const s = measure(t, st) <= avail ? t : truncate(t, Math.max(1, Math.floor(avail / (size * 0.6))));
  const [tx, anchor] =
    st.h === 'left'
      ? [x + st.pad.l + 4, 'start']
      : st.h === 'right'
        ? [x + w - st.pad.r - 4, 'end']
        : [x + w / 2, 'middle'];
  const [ty, dy] =
    st.v === 'top'
      ? [y + st.pad.t + 3, '0.9em']
      : st.v === 'bottom'
        ? [y + h - st.pad.b - 3, '-0.2em']
        : [y + h / 2, '0.32em'];
  let extra = ` text-anchor="${anchor}" dy="${dy}"`;
  const weight = st.weight ?? (st.bold ? 700 : undefined);
  if (weight !== undefined) extra += ` font-weight="${weight}"`;
  if (st.italic) extra += ' font-style="italic"';
  const deco = [st.underline && 'underline', st.strike && 'line-through'].filter(Boolean).join(' ');
  if (deco) extra += ` text-decoration="${deco}"`;
  if (st.size !== undefined) extra += ` font-size="${st.size}"`;
  if (st.family) extra += ` font-family="${esc(st.family)}"`;
  // The text colour: a colour instruction's fg, else the text file's colour, else the theme's.
  const paint = fg ?? (st.color ? ink.fill(st.color) : theme.fg);
  const classes = [
    'cell',
    ...(r === 0 ? ['header'] : []),
    ...(c === 0 ? ['index'] : []),
    ...(paint === theme.fg ? ['fg'] : []),
  ];
  return `<text x="${num(tx)}" y="${num(ty)}"${attrs(scope, classes, paint)}${extra}>${esc(s)}</text>`;
}

function borders(scope: string, st: CellStyle, x: number, y: number, w: number, h: number, ink: Ink): string {
  let out = '';
  const line = (x1: number, y1: number, x2: number, y2: number, b: NonNullable<CellStyle['border']['l']>) =>
    `<line x1="${num(x1)}" y1="${num(y1)}" x2="${num(x2)}" y2="${num(y2)}" stroke-width="${b.size}"${attrs(scope, ['border'], ink.stroke(b.color))}/>`;
  if (st.border.t) out += line(x, y, x + w, y, st.border.t);
  if (st.border.b) out += line(x, y + h, x + w, y + h, st.border.b);
  if (st.border.l) out += line(x, y, x, y + h, st.border.l);
  if (st.border.r) out += line(x + w, y, x + w, y + h, st.border.r);
  return out;
}
