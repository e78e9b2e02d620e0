/**
 * A plot drawn for a terminal: what the CLI's `Plot.x` prints from `files/plot.ansi`, and
 * `files/plot.txt`, the same without escapes. The title (bold), the chart or table
 * (text-chart.ts, text-table.ts), the caption. `width` is clamped to [20, 400] characters
 * and no line is wider (counted in code points, escapes not counted); a chart is about
 * width / 3.2 lines tall. Pure; never throws on user input.
 */
import { parseColors } from './colors';
import { readLegend } from './legend';
import { DEFAULT_TEXT_WIDTH, type PlotConfig, type Table } from './model';
import { textChart } from './text-chart';
import { textTable } from './text-table';
import { BOLD, clean, fit, MUTED, render, type TextLine } from './terminal';

export const MIN_TEXT_WIDTH = 20;
export const MAX_TEXT_WIDTH = 400;

/** Words of `s` in lines of at most `width` code points, `max` lines at most. */
function wrapText(s: string, width: number, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of s.split(' ')) {
    const word = fit(w, width);
    if (line && [...line].length + 1 + [...word].length > width) {
      lines.push(line);
      line = '';
      if (lines.length === max) return lines;
    }
    line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

export function drawText(table: Table, config: PlotConfig, options: { width: number; ansi: boolean }): string {
  const w = Number.isFinite(options.width) ? Math.round(options.width) : DEFAULT_TEXT_WIDTH;
  const width = Math.min(MAX_TEXT_WIDTH, Math.max(MIN_TEXT_WIDTH, w));
  const title = clean(config.title);
  const caption = clean(config.caption);
  const lines: TextLine[] = [];
  if (title) lines.push([{ t: fit(title, width), s: BOLD }], []);
  const captionLines = caption ? wrapText(caption, width, 5) : [];
  const colors = parseColors(config.colors);
  if (config.type === 'table' || config.type === 'mtable') lines.push(...textTable(table, config.cell, colors, width));
  else {
    const rows = Math.max(4, Math.round(width / 3.2) - lines.length - captionLines.length - 3);
    lines.push(...textChart(table, config.type, { width, rows, colors, legend: readLegend(config.legend) }));
  }
  if (captionLines.length) lines.push([], ...captionLines.map((t) => [{ t, s: MUTED }]));
  return render(lines, width, options.ansi === true);
}
