/**
 * The scales and axes of a chart: a continuous axis (numbers, or dates on a UTC time
 * scale) with d3's ticks and labels, a band axis of categories whose labels are thinned to
 * what fits, gridlines across the plot. Positions are computed by plain arithmetic over the
 * (niced) domain, so mapping thousands of points costs no more than a multiplication each.
 */
import { scaleLinear, scaleUtc } from 'd3-scale';
import type { IndexKind } from './chart-data';
import { attrs, SMALL, text, theme, type Box } from './svg-parts';
import { num, textWidth, truncate } from './xml';

export interface Tick {
  px: number;
  label: string;
}

export interface Continuous {
  /** The pixel position of a value (a number, or ms since the epoch). */
  at: (v: number) => number;
  ticks: Tick[];
  lo: number;
  hi: number;
}

/** A continuous scale of [lo, hi] onto [r0, r1]: niced for values (not for an index axis, whose ends are the data's). */
export function continuous(
  kind: 'number' | 'date',
  lo: number,
  hi: number,
  r0: number,
  r1: number,
  count: number,
  nice: boolean,
): Continuous {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 1];
  if (lo === hi) [lo, hi] = kind === 'date' ? [lo - 43_200_000, hi + 43_200_000] : [lo - 1, hi + 1];
  const n = Math.max(2, Math.min(12, Math.round(count)));
  let ticks: Tick[];
  if (kind === 'date') {
    const s = scaleUtc().domain([new Date(lo), new Date(hi)]);
    if (nice) s.nice(n);
    [lo, hi] = s.domain().map((d) => d.getTime()) as [number, number];
    const fmt = s.tickFormat();
    ticks = s.ticks(n).map((d) => ({ px: 0, v: d.getTime(), label: fmt(d) }));
  } else {
    const s = scaleLinear().domain([lo, hi]);
    if (nice) s.nice(n);
    [lo, hi] = s.domain() as [number, number];
    const fmt = s.tickFormat(n);
    ticks = s.ticks(n).map((v) => ({ px: 0, v, label: fmt(v) }));
  }
  const k = (r1 - r0) / (hi - lo);
  const at = (v: number) => r0 + (v - lo) * k;
  for (const t of ticks as (Tick & { v: number })[]) t.px = at(t.v);
  return { at, ticks, lo, hi };
}

/** The widest tick label of a continuous axis, in pixels. */
export const labelWidth = (ticks: Tick[]) => Math.max(0, ...ticks.map((t) => textWidth(t.label, SMALL)));

/**
 * Labels of `n` bands `band` pixels wide, every `step`-th shown so none overlaps its
 * neighbour (labels cut to the room they get). `horizontal`: the labels sit side by side.
 */
function bandLabels(labels: string[], n: number, band: number, horizontal: boolean): { step: number; max: number } {
  if (!horizontal) {
    const step = Math.max(1, Math.ceil(14 / Math.max(band, 1e-6)));
    return { step, max: 40 };
  }
  let widest = 0;
  for (let i = 0; i < n; i++) widest = Math.max(widest, textWidth(truncate(labels[i] ?? '', 24), SMALL));
  const step = Math.max(1, Math.ceil((Math.min(widest, 160) + 8) / Math.max(band, 1e-6)));
  return { step, max: Math.max(3, Math.floor((band * step - 6) / (SMALL * 0.6))) };
}

/** Horizontal gridlines and the y labels of a value axis (labels right-aligned left of `plot`). */
export function yAxis(scope: string, plot: Box, axis: Continuous): string {
  let out = '';
  for (const t of axis.ticks) {
    out += `<line x1="${num(plot.x)}" x2="${num(plot.x + plot.w)}" y1="${num(t.px)}" y2="${num(t.px)}"${attrs(scope, ['grid'], theme.grid)}/>`;
    out += text(scope, plot.x - 6, t.px, t.label, ['tick', 'muted'], ' text-anchor="end" dy="0.32em"', theme.muted);
  }
  return out;
}

/** Vertical gridlines and the x labels of a value axis (labels under `plot`). */
export function xAxisValues(scope: string, plot: Box, axis: Continuous, grid: boolean): string {
  let out = '';
  let lastEnd = -Infinity;
  for (const t of axis.ticks) {
    if (grid)
      out += `<line x1="${num(t.px)}" x2="${num(t.px)}" y1="${num(plot.y)}" y2="${num(plot.y + plot.h)}"${attrs(scope, ['grid'], theme.grid)}/>`;
    const w = textWidth(t.label, SMALL);
    // A label that would overlap the previous one is left out (its gridline stays).
    if (t.px - w / 2 < lastEnd + 4) continue;
    lastEnd = t.px + w / 2;
    out += text(scope, t.px, plot.y + plot.h + 15, t.label, ['tick', 'muted'], ' text-anchor="middle"', theme.muted);
  }
  return out;
}

/** The x labels of categories (or of an index shown as categories), centred under their bands. */
export function xAxisBands(scope: string, plot: Box, labels: string[], n: number): string {
  const band = plot.w / Math.max(n, 1);
  const { step, max } = bandLabels(labels, n, band, true);
  let out = '';
  for (let i = 0; i < n; i += step)
    out += text(
      scope,
      plot.x + (i + 0.5) * band,
      plot.y + plot.h + 15,
      truncate(labels[i] ?? '', max),
      ['tick', 'muted'],
      ' text-anchor="middle"',
      theme.muted,
    );
  return out;
}

/** The y labels of categories (horizontal bars), right-aligned left of their bands. */
export function yAxisBands(scope: string, plot: Box, labels: string[], n: number, maxChars: number): string {
  const band = plot.h / Math.max(n, 1);
  const { step } = bandLabels(labels, n, band, false);
  let out = '';
  for (let i = 0; i < n; i += step)
    out += text(
      scope,
      plot.x - 6,
      plot.y + (i + 0.5) * band,
      truncate(labels[i] ?? '', maxChars),
      ['tick', 'muted'],
      ' text-anchor="end" dy="0.32em"',
      theme.muted,
    );
  return out;
}

/** The axis line along the bottom of the plot (or at `y`, the zero of a value axis). */
export function baseline(scope: string, x1: number, x2: number, y1: number, y2: number): string {
  return `<line x1="${num(x1)}" x2="${num(x2)}" y1="${num(y1)}" y2="${num(y2)}"${attrs(scope, ['axis'], theme.axis)}/>`;
}

export const isContinuous = (kind: IndexKind): kind is 'number' | 'date' => kind !== 'category';
