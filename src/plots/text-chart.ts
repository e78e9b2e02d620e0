/**
 * Charts as terminal text (what the CLI prints from `files/plot.ansi`; `plot.txt` is the
 * same without escapes):
 *
 * - line, area, scatter: a braille canvas (each character 2×4 dots, U+2800-U+28FF) with the
 *   value axis on the left and the index along the bottom; lines are decimated to the
 *   canvas first, so the cost is bounded by the width whatever the data;
 * - bar, gbar, sbar, hbar: horizontal bars of eighth blocks (`█▉▊▋▌▍▎▏`), one line per
 *   category and series (sbar: one per category, its series end to end, shaded `█▓▒░` in
 *   turn without colour), the value at the end; a terminal has more room across than
 *   down, so every bar type is drawn across;
 * - donut: one bar of the whole split by share, and a line per slice with its share.
 *
 * With more categories or slices than lines, the first are drawn and a last line counts
 * the rest. The legend is a line of `■ name` (coloured with ANSI; without, series of a line
 * chart are told apart by the legend's order only), above the chart or, when its position
 * says `bottom`, below it.
 */
import { chartPaints, sliceColor } from './color-apply';
import { chartData, donutSlices, type ChartData } from './chart-data';
import type { ColorConfig } from './colors';
import { decimate } from './decimate';
import type { Legend } from './legend';
import type { PlotType, Table } from './model';
import { cellFormat, locale } from './number-format';
import type { Shade } from './palette';
import { continuous } from './svg-axes';
import { clean, fg, fit, MUTED, pad, type TextLine } from './terminal';
import { MAX_CATEGORIES, MAX_POINTS } from './limits';

export interface TextContext {
  width: number;
  /** Lines the chart's plot may take (the legend and notes come on top). */
  rows: number;
  colors: ColorConfig;
  legend: Legend;
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const SHADES = ['█', '▓', '▒', '░'];
const BRAILLE = [
  [0x01, 0x02, 0x04, 0x40],
  [0x08, 0x10, 0x20, 0x80],
];

/** A short label for a value: 1,234.5 / 12.3k / -0.05. */
const big = locale.format('.3~s');
const small = locale.format(',.4~g');

function short(v: number): string {
  if (!Number.isFinite(v)) return '';
  return Math.abs(v) >= 1e5 ? big(v) : small(v);
}

export function textChart(table: Table, type: PlotType, ctx: TextContext): TextLine[] {
  const data = chartData(table);
  if (data.series.length === 0 || data.rows === 0) return [[{ t: 'No numbers to draw', s: MUTED }]];
  switch (type) {
    case 'line':
    case 'area':
    case 'scatter':
      return canvas(data, table, type, ctx);
    case 'donut':
      return donut(data, table, ctx);
    default:
      return bars(data, table, type, ctx);
  }
}

function legendLines(items: { label: string; color: Shade }[], ctx: TextContext, force = false): TextLine[] {
  if (ctx.legend.position === 'none' || items.length === 0 || (items.length < 2 && !ctx.legend.explicit && !force))
    return [];
  const lines: TextLine[] = [];
  let line: TextLine = [];
  let used = 0;
  for (const it of items) {
    const label = fit(clean(it.label) || ' ', Math.max(4, Math.floor(ctx.width / 3)));
    const w = 2 + [...label].length + 2;
    if (used > 0 && used + w > ctx.width) {
      lines.push(line);
      line = [];
      used = 0;
      if (lines.length === 3) break;
    }
    line.push({ t: '■ ', s: fg(it.color) }, { t: `${label}  ` });
    used += w;
  }
  if (line.length && lines.length < 3) lines.push(line);
  return lines;
}

/** The legend above the chart, or below it when its position says `bottom` (beside it reads as above in a terminal). */
const place = (legend: TextLine[], body: TextLine[], ctx: TextContext): TextLine[] =>
  ctx.legend.position === 'bottom' ? [...body, [], ...legend] : [...legend, ...body];

// ------------------------------------------------------------------ braille canvas

function canvas(data: ChartData, table: Table, type: 'line' | 'area' | 'scatter', ctx: TextContext): TextLine[] {
  const pair = type === 'scatter' && data.series.length >= 2;
  const shown = type === 'scatter' ? [pair ? data.series[1]! : data.series[0]!] : data.series;
  const only: ChartData = { ...data, series: shown };
  const paints = chartPaints(only, table.header.length, ctx.colors, 0);
  const legend = legendLines(
    shown.map((s, i) => ({ label: s.name || `column ${s.column}`, color: paints.series[i]! })),
    ctx,
  );
  const rows = Math.max(3, ctx.rows - legend.length);
  const xv = pair ? data.series[0]!.values : data.x;
  const continuousX = pair || data.kind !== 'category';
  // The value axis: its extent, niced, with labels on a few rows.
  let lo = type === 'area' ? 0 : Infinity;
  let hi = type === 'area' ? 0 : -Infinity;
  for (const s of shown)
    for (let r = 0; r < data.rows; r++) {
      const v = s.values[r]!;
      if (Number.isNaN(v) || (type === 'scatter' && Number.isNaN(xv[r]!))) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  if (!(lo <= hi)) return [[{ t: 'No numbers to draw', s: MUTED }]];
  const H = rows * 4;
  const yAxis = continuous('number', lo, hi, H - 1, 0, rows / 3, true);
  const labels = new Map<number, string>();
  for (const t of yAxis.ticks)
    labels.set(Math.min(rows - 1, Math.max(0, Math.floor(t.px / 4))), t.label.replace('−', '-'));
  const lw = Math.min(Math.floor(ctx.width / 4), Math.max(...[...labels.values()].map((l) => l.length), 1));
  const cols = Math.max(4, ctx.width - lw - 1);
  const W = cols * 2;
  let xlo = Infinity;
  let xhi = -Infinity;
  if (continuousX)
    for (let r = 0; r < data.rows; r++) {
      const v = xv[r]!;
      if (v < xlo) xlo = v;
      if (v > xhi) xhi = v;
    }
  if (!(xlo < xhi)) [xlo, xhi] = continuousX && xlo === xhi ? [xlo - 1, xhi + 1] : [0, 1];
  const xAt = continuousX
    ? (r: number) => ((xv[r]! - xlo) / (xhi - xlo)) * (W - 1)
    : (r: number) => (data.rows === 1 ? (W - 1) / 2 : (r / (data.rows - 1)) * (W - 1));
  const dots = new Uint8Array(cols * rows);
  const owner = new Int16Array(cols * rows).fill(-1);
  const set = (x: number, y: number, s: number) => {
    const xi = Math.round(x);
    const yi = Math.round(y);
    if (xi < 0 || xi >= W || yi < 0 || yi >= H) return;
    const cell = (yi >> 2) * cols + (xi >> 1);
    dots[cell]! |= BRAILLE[xi & 1]![yi & 3]!;
    owner[cell] = s;
  };
  const base = yAxis.at(Math.min(Math.max(0, yAxis.lo), yAxis.hi));
  shown.forEach((s, si) => {
    const px = new Float64Array(data.rows);
    const py = new Float64Array(data.rows);
    for (let r = 0; r < data.rows; r++) {
      px[r] = Number.isNaN(xv[r]!) ? NaN : xAt(r);
      py[r] = Number.isNaN(s.values[r]!) ? NaN : yAxis.at(s.values[r]!);
    }
    if (type === 'scatter') {
      const every = Math.max(1, Math.ceil(data.rows / MAX_POINTS));
      for (let r = 0; r < data.rows; r += every)
        if (!Number.isNaN(px[r]!) && !Number.isNaN(py[r]!)) set(px[r]!, py[r]!, si);
      return;
    }
    const pts = decimate(px, py, W);
    for (let i = 0; i < pts.x.length; i++) {
      const x0 = pts.x[i]!;
      const y0 = pts.y[i]!;
      if (Number.isNaN(x0) || Number.isNaN(y0)) continue;
      const x1 = pts.x[i + 1];
      const y1 = pts.y[i + 1];
      // A segment to the next point (none after the last point of a run: a lone point is a dot).
      const steps =
        x1 === undefined || y1 === undefined || Number.isNaN(x1) || Number.isNaN(y1)
          ? 0
          : Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0)));
      for (let k = 0; k <= steps; k++) {
        const x = steps ? x0 + ((x1! - x0) * k) / steps : x0;
        const y = steps ? y0 + ((y1! - y0) * k) / steps : y0;
        set(x, y, si);
        if (type === 'area') for (let yy = Math.round(y) + 1; yy <= base; yy++) set(x, yy, si);
      }
    }
  });
  const lines: TextLine[] = [];
  for (let row = 0; row < rows; row++) {
    const line: TextLine = [
      { t: pad(labels.get(row) ?? '', lw, 'right'), s: MUTED },
      { t: labels.has(row) ? '┤' : '│', s: MUTED },
    ];
    for (let c = 0; c < cols; c++) {
      const cell = row * cols + c;
      const bits = dots[cell]!;
      const ch = bits ? String.fromCharCode(0x2800 + bits) : ' ';
      const style = bits ? fg(paints.series[owner[cell]!]) : undefined;
      const last = line[line.length - 1]!;
      if (last.s === style && c > 0) last.t += ch;
      else line.push({ t: ch, s: style });
    }
    lines.push(line);
  }
  lines.push([{ t: ' '.repeat(lw) + '└' + '─'.repeat(cols), s: MUTED }]);
  // Index labels: the first, the middle and the last (numbers and dates by their ticks).
  let xl: { at: number; label: string }[];
  if (pair) {
    const xs = continuous('number', xlo, xhi, 0, cols - 1, cols / 12, false);
    xl = xs.ticks.map((t) => ({ at: t.px, label: t.label.replace('−', '-') }));
  } else if (data.kind !== 'category') {
    const xs = continuous(data.kind, xlo, xhi, 0, cols - 1, cols / 14, false);
    xl = xs.ticks.map((t) => ({ at: t.px, label: t.label.replace('−', '-') }));
  } else {
    const n = data.rows;
    const picks = n === 1 ? [0] : [0, Math.floor((n - 1) / 2), n - 1];
    xl = [...new Set(picks)].map((r) => ({
      at: (n === 1 ? 0.5 : r / (n - 1)) * (cols - 1),
      label: clean(data.labels[r] ?? ''),
    }));
  }
  let axis = ' '.repeat(lw + 1);
  for (const { at, label } of xl) {
    const l = fit(label, 16);
    const start = Math.max(axis.length, Math.round(lw + 1 + at - [...l].length / 2));
    if (start + [...l].length > ctx.width) continue;
    axis = axis.padEnd(start, ' ') + l + ' ';
  }
  lines.push([{ t: axis, s: MUTED }]);
  if (type === 'scatter') {
    const xName = pair ? data.series[0]!.name : (table.header[0] ?? '');
    lines.push([
      { t: fit(`x: ${clean(xName) || 'index'}  y: ${clean(shown[0]!.name) || 'value'}`, ctx.width), s: MUTED },
    ]);
  }
  return place(legend, lines, ctx);
}

// ------------------------------------------------------------------ bars

/** A bar of `len` cells (eighths kept): full blocks and the partial block of the remainder. */
function blocks(len: number): string {
  const eighths = Math.max(0, Math.round(len * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
}

function bars(data: ChartData, table: Table, type: PlotType, ctx: TextContext): TextLine[] {
  const s = data.series.length;
  const stacked = type === 'sbar';
  const k = Math.min(data.rows, MAX_CATEGORIES);
  const paints = chartPaints(data, table.header.length, ctx.colors, k);
  const legend = legendLines(
    data.series.map((se, i) => ({ label: se.name || `column ${se.column}`, color: paints.series[i]! })),
    ctx,
  );
  const perCategory = stacked ? 1 : s;
  const budget = Math.max(perCategory, ctx.rows - legend.length);
  const shown = Math.max(1, Math.min(k, Math.floor(budget / perCategory)));
  // The extent of what is drawn: bars from zero, stacks' positive and negative sums.
  let lo = 0;
  let hi = 0;
  const values: string[] = [];
  for (let r = 0; r < shown; r++) {
    let pos = 0;
    let neg = 0;
    for (const se of data.series) {
      const v = se.values[r]!;
      if (Number.isNaN(v)) continue;
      if (!stacked) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
        values.push(short(v));
      } else if (v >= 0) pos += v;
      else neg += v;
    }
    if (stacked) {
      lo = Math.min(lo, neg);
      hi = Math.max(hi, pos);
      values.push(short(pos + neg));
    }
  }
  if (hi === lo) hi = lo + 1;
  let lw = 0;
  for (let r = 0; r < shown; r++) lw = Math.max(lw, [...clean(data.labels[r] ?? '')].length);
  lw = Math.min(lw, Math.floor(ctx.width / 4));
  const vw = Math.max(...values.map((v) => v.length), 1);
  const bw = Math.max(4, ctx.width - lw - 1 - 1 - vw - 1);
  const scale = bw / (hi - lo);
  const zero = Math.round(-lo * scale);
  const lines: TextLine[] = [];
  for (let r = 0; r < shown; r++) {
    const label = clean(data.labels[r] ?? '');
    if (stacked) {
      const line: TextLine = [{ t: pad(label, lw) + ' ', s: MUTED }];
      let negLen = 0;
      for (const se of data.series) if (se.values[r]! < 0) negLen += -se.values[r]! * scale;
      line.push({ t: ' '.repeat(Math.max(0, zero - Math.round(negLen))) });
      // Negative parts left of zero, positive right of it; each part ends on a whole cell (running sums rounded).
      let at = 0;
      let drawn = 0;
      const part = (i: number, len: number, r_: number) => {
        at += len;
        const cells = Math.round(at) - drawn;
        drawn += cells;
        if (cells > 0) line.push({ t: SHADES[i % 4]!.repeat(cells), s: fg(paints.mark(i, r_)) });
      };
      data.series.forEach((se, i) => se.values[r]! < 0 && part(i, -se.values[r]! * scale, r));
      data.series.forEach((se, i) => se.values[r]! > 0 && part(i, se.values[r]! * scale, r));
      let sum = 0;
      for (const se of data.series) if (!Number.isNaN(se.values[r]!)) sum += se.values[r]!;
      line.push({ t: ' ' + short(sum), s: MUTED });
      lines.push(line);
      continue;
    }
    data.series.forEach((se, i) => {
      const v = se.values[r]!;
      const line: TextLine = [{ t: pad(i === 0 ? label : '', lw) + ' ', s: MUTED }];
      if (Number.isNaN(v)) {
        line.push({ t: ' '.repeat(zero) + '·', s: MUTED });
      } else if (v >= 0) {
        line.push(
          { t: ' '.repeat(zero) },
          { t: blocks(v * scale), s: fg(paints.mark(i, r)) },
          { t: ' ' + short(v), s: MUTED },
        );
      } else {
        const len = Math.round(-v * scale);
        line.push(
          { t: ' '.repeat(Math.max(0, zero - len)) },
          { t: '█'.repeat(len), s: fg(paints.mark(i, r)) },
          { t: ' ' + short(v), s: MUTED },
        );
      }
      lines.push(line);
    });
  }
  if (shown < data.rows)
    lines.push([{ t: `… ${(data.rows - shown).toLocaleString('en-US')} more categories`, s: MUTED }]);
  return place(legend, lines, ctx);
}

// ------------------------------------------------------------------ donut

function donut(data: ChartData, table: Table, ctx: TextContext): TextLine[] {
  const s = data.series[0]!;
  const k = Math.min(data.rows, MAX_CATEGORIES);
  const paints = chartPaints({ ...data, series: [s] }, table.header.length, ctx.colors, k);
  const { slices: raw, total } = donutSlices({ ...data, series: [s] }, k);
  const slices = raw.map((x) => ({ ...x, label: clean(x.label) }));
  if (!slices.length || !(total > 0)) return [[{ t: 'No positive values to draw', s: MUTED }]];
  const colorOf = (x: (typeof slices)[number], i: number) => sliceColor(paints, ctx.colors, x, i);
  const fmt = cellFormat(ctx.legend.format);
  const share = ctx.legend.format.endsWith('%');
  // The whole as one bar, each slice its share of the width (running sums rounded: the parts fill it exactly).
  const bar: TextLine = [];
  let at = 0;
  let drawn = 0;
  slices.forEach((x, i) => {
    at += (x.value / total) * ctx.width;
    const cells = Math.round(at) - drawn;
    drawn += cells;
    if (cells > 0) bar.push({ t: SHADES[i % 4]!.repeat(cells), s: fg(colorOf(x, i)) });
  });
  const lines: TextLine[] = [bar, []];
  const lw = Math.min(Math.floor(ctx.width / 2), Math.max(...slices.map((x) => [...x.label].length), 1));
  const budget = Math.max(3, ctx.rows - 3);
  slices.slice(0, budget).forEach((x, i) => {
    const v = typeof fmt === 'function' ? fmt(String(share ? x.value / total : x.value)) : short(x.value);
    lines.push([
      { t: SHADES[i % 4]! + ' ', s: fg(colorOf(x, i)) },
      { t: pad(x.label || ' ', lw) + ' ' },
      { t: pad(v, 8, 'right'), s: MUTED },
    ]);
  });
  if (slices.length > budget) lines.push([{ t: `… ${slices.length - budget} more`, s: MUTED }]);
  lines.push([{ t: `Total ${short(total)}`, s: MUTED }]);
  return lines;
}
