/**
 * What every chart of svg-chart.ts draws around its marks: the frame (plot area, legend and
 * notes), the value extent and axis of a value chart, the axis titles, and the message drawn
 * instead of a chart.
 */
import type { ChartPaints } from './color-apply';
import type { ChartData, Series } from './chart-data';
import type { ColorConfig } from './colors';
import type { Legend } from './legend';
import { continuous, labelWidth, type Continuous } from './svg-axes';
import { layoutLegend, type LegendItem } from './svg-legend';
import { SMALL, text, theme, type Box, type Ink } from './svg-parts';
import { num } from './xml';

export interface DrawContext {
  scope: string;
  ink: Ink;
  colors: ColorConfig;
  legend: Legend;
}

export interface Drawn {
  svg: string;
  /** One line saying what is drawn (the document's description when there is no caption). */
  summary: string;
  /** What was left out. */
  notes: string[];
}

const NOTE_H = 14;
export const fmtCount = (n: number) => n.toLocaleString('en-US');

/** A chart of `table` in `box`. */
/** A message in the middle of the box instead of a chart. */
export function message(scope: string, box: Box, msg: string): string {
  return text(
    scope,
    box.x + box.w / 2,
    box.y + box.h / 2,
    msg,
    ['message', 'muted'],
    ' text-anchor="middle" dy="0.32em"',
    theme.muted,
  );
}

export const names = (series: Series[]) => {
  const shown = series.slice(0, 5).map((s) => s.name || `column ${s.column}`);
  return shown.join(', ') + (series.length > 5 ? ` and ${series.length - 5} more` : '');
};

/** Splits the box into the plot, the legend and the notes; returns the plot's box and the markup around it. */
export function frame(
  box: Box,
  ctx: DrawContext,
  items: LegendItem[],
  notes: string[],
  force = false,
): { plot: Box; around: string } {
  let around = '';
  const notesH = notes.length * NOTE_H;
  notes.forEach((n, i) => {
    around += text(
      ctx.scope,
      box.x,
      box.y + box.h - notesH + i * NOTE_H + 10,
      n,
      ['note', 'muted'],
      ` font-size="${SMALL}"`,
      theme.muted,
    );
  });
  let plot: Box = { x: box.x, y: box.y, w: box.w, h: Math.max(10, box.h - notesH - (notesH ? 4 : 0)) };
  const { position, explicit } = ctx.legend;
  if (position !== 'none' && items.length > 0 && (items.length > 1 || explicit || force)) {
    const placed = layoutLegend(ctx.scope, ctx.ink, items, ctx.legend, plot);
    if (position === 'top') {
      around += placed.draw(plot.x, plot.y);
      plot = { ...plot, y: plot.y + placed.h + 8, h: plot.h - placed.h - 8 };
    } else if (position === 'bottom') {
      around += placed.draw(plot.x, plot.y + plot.h - placed.h);
      plot = { ...plot, h: plot.h - placed.h - 8 };
    } else if (position === 'left') {
      around += placed.draw(plot.x, plot.y);
      plot = { ...plot, x: plot.x + placed.w + 16, w: plot.w - placed.w - 16 };
    } else {
      around += placed.draw(plot.x + plot.w - placed.w, plot.y);
      plot = { ...plot, w: plot.w - placed.w - 16 };
    }
  }
  return { plot: { ...plot, w: Math.max(10, plot.w), h: Math.max(10, plot.h) }, around };
}

export function seriesItems(data: ChartData, paints: ChartPaints): LegendItem[] {
  return data.series.map((s, i) => ({
    label: s.name || `column ${s.column}`,
    color: paints.series[i]!,
    labelColor: paints.label[i],
    classes: [`series-${s.column}`],
  }));
}

/** The value axis's extent over the given values (NaN skipped), with zero when asked. */
export function extentOf(values: Iterable<number>, zero: boolean): [number, number] {
  let lo = zero ? 0 : Infinity;
  let hi = zero ? 0 : -Infinity;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo <= hi ? [lo, hi] : [0, 1];
}

/** The plot's inner box once the y labels (left) and x labels (below) have room; and the value axis over it. */
export function valueFrame(plot: Box, lo: number, hi: number, xTitle = '', yTitle = ''): { inner: Box; y: Continuous } {
  const bottom = 22 + (xTitle ? 16 : 0);
  const h = Math.max(10, plot.h - bottom);
  const probe = continuous('number', lo, hi, plot.y + h, plot.y, h / 40, true);
  const left = Math.min(plot.w * 0.3, labelWidth(probe.ticks) + 10) + (yTitle ? 18 : 0);
  // Room on the right for half of the last x label.
  const inner = { x: plot.x + left, y: plot.y, w: Math.max(10, plot.w - left - 18), h };
  return { inner, y: continuous('number', lo, hi, inner.y + inner.h, inner.y, inner.h / 40, true) };
}

export function axisTitles(scope: string, inner: Box, plot: Box, xTitle: string, yTitle: string): string {
  let out = '';
  if (xTitle)
    out += text(
      scope,
      inner.x + inner.w / 2,
      inner.y + inner.h + 34,
      xTitle,
      ['axis-title', 'muted'],
      ' text-anchor="middle"',
      theme.muted,
    );
  if (yTitle) {
    const cx = plot.x + 8;
    const cy = inner.y + inner.h / 2;
    out += text(
      scope,
      cx,
      cy,
      yTitle,
      ['axis-title', 'muted'],
      ` text-anchor="middle" transform="rotate(-90 ${num(cx)} ${num(cy)})"`,
      theme.muted,
    );
  }
  return out;
}
