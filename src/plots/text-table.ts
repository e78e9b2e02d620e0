/**
 * A table plot as terminal text: box-drawing borders, the header row and the index column,
 * each cell formatted, aligned and styled as cell.ts reads the config (bold, italic,
 * underline, strikethrough, blank) and coloured as the colour instructions say (256-colour
 * foreground and background). Columns take the width their text needs (40 at most) and the
 * widest shrink first, text cut with an ellipsis, until the table fits the width; columns
 * that still do not fit (3 characters each, and a space either side) are left out and counted. Border
 * instructions are the SVG's: the text table always has its own grid.
 */
import { cellPaints } from './color-apply';
import type { ColorConfig } from './colors';
import { tableStyles, type CellStyle } from './cell';
import { MAX_TABLE_ROWS } from './limits';
import type { PlotConfig, Table } from './model';
import { bg, BOLD, clean, cps, fg, MUTED, pad, type Seg, type TextLine } from './terminal';

const MAX_COL = 40;
const MIN_COL = 3;

function sgr(st: CellStyle, fgs: string | undefined, bgs: string | undefined): string | undefined {
  const parts: string[] = [];
  if (st.bold || (st.weight ?? 0) >= 600) parts.push(BOLD);
  if (st.italic) parts.push('3');
  if (st.underline) parts.push('4');
  if (st.strike) parts.push('9');
  if (fgs) parts.push(fgs);
  if (bgs) parts.push(bgs);
  return parts.length ? parts.join(';') : undefined;
}

export function textTable(table: Table, cell: PlotConfig['cell'], colors: ColorConfig, width: number): TextLine[] {
  const all = table.header.length;
  if (all === 0) return [[{ t: 'No data to draw', s: MUTED }]];
  const rows = Math.min(table.rows.length, MAX_TABLE_ROWS);
  const grid = rows + 1;
  const styles = tableStyles(table, cell, grid);
  const paints = cellPaints(table, colors, grid);
  const raw = (r: number, c: number) => (r === 0 ? table.header[c] : table.rows[r - 1]![c]) ?? '';
  // The columns that fit at MIN_COL characters each (a space either side, a border).
  const columns = Math.max(1, Math.min(all, Math.floor((width - 1) / (MIN_COL + 3))));
  // oxlint-disable-next-line unicorn/no-new-array -- preallocates one slot per cell, filled below
  const shown: string[] = new Array(grid * columns);
  const widths = Array.from({ length: columns }, () => 1);
  for (let r = 0; r < grid; r++)
    for (let c = 0; c < columns; c++) {
      const st = styles.style(r, c);
      const v = raw(r, c);
      const t = st.blank ? '' : clean(r > 0 && st.format ? st.format(v) : v);
      shown[r * columns + c] = t;
      widths[c] = Math.max(widths[c]!, Math.min(MAX_COL, cps(t)));
    }
  // Shrink the widest column a character at a time until the table fits.
  let total = widths.reduce((a, b) => a + b, 0) + 3 * columns + 1;
  while (total > width) {
    let widest = 0;
    for (let c = 1; c < columns; c++) if (widths[c]! > widths[widest]!) widest = c;
    if (widths[widest]! <= MIN_COL) break;
    widths[widest]!--;
    total--;
  }
  const rule = (l: string, m: string, r: string): TextLine => [
    { t: l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r, s: MUTED },
  ];
  const lines: TextLine[] = [rule('┌', '┬', '┐')];
  for (let r = 0; r < grid; r++) {
    const line: Seg[] = [];
    for (let c = 0; c < columns; c++) {
      const st = styles.style(r, c);
      const style = sgr(st, fg(paints.fg(r, c) ?? st.color), bg(paints.bg(r, c)));
      line.push({ t: '│', s: MUTED });
      line.push({ t: ` ${pad(shown[r * columns + c]!, widths[c]!, st.h)} `, s: style });
    }
    line.push({ t: '│', s: MUTED });
    lines.push(line);
    if (r === 0 && grid > 1) lines.push(rule('├', '┼', '┤'));
  }
  lines.push(rule('└', '┴', '┘'));
  const more: string[] = [];
  if (rows < table.rows.length) more.push(`${(table.rows.length - rows).toLocaleString('en-US')} more rows`);
  if (columns < all) more.push(`${all - columns} more columns`);
  if (more.length) lines.push([{ t: `… ${more.join(', ')}`, s: MUTED }]);
  return lines;
}
