/**
 * The charts drawn as SVG markup: line, area, bar (series side by side), gbar (grouped,
 * with a gap between a group's bars), sbar (stacked; negative values stack downwards),
 * hbar (horizontal), scatter and donut, each in the box it is given with its legend and
 * its notes (what was left out to keep the drawing bounded).
 *
 * Bounded whatever the data: a line or area with more points than twice the plot's width
 * is decimated (decimate.ts), bars stop at MAX_CATEGORIES categories and MAX_BARS bars, a
 * scatter draws at most MAX_POINTS points (an even sample), a donut at most MAX_SLICES
 * slices (the smallest gathered in "Other") of its first MAX_CATEGORIES rows.
 */
import { arc, pie } from 'd3-shape';
import { chartPaints, sliceColor } from './color-apply';
import { chartData, donutSlices, type ChartData } from './chart-data';
import { MAX_BARS, MAX_CATEGORIES, MAX_POINTS } from './limits';
import { decimate } from './decimate';
import type { PlotType, Table } from './model';
import { cellFormat } from './number-format';
import type { Shade } from './palette';
import { baseline, continuous, isContinuous, xAxisBands, xAxisValues, yAxis, yAxisBands } from './svg-axes';
import { type LegendItem } from './svg-legend';
import { attrs, FONT, SMALL, text, theme, type Box } from './svg-parts';
import { num, textWidth } from './xml';
import {
  axisTitles,
  extentOf,
  fmtCount,
  frame,
  message,
  names,
  seriesItems,
  valueFrame,
  type DrawContext,
  type Drawn,
} from './chart-frame';

export function drawChart(table: Table, type: PlotType, box: Box, ctx: DrawContext): Drawn {
  const data = chartData(table);
  if (data.series.length === 0 || data.rows === 0)
    return { svg: message(ctx.scope, box, 'No numbers to draw'), summary: `${type} chart without numbers`, notes: [] };
  switch (type) {
    case 'line':
    case 'area':
      return lines(data, table, type, box, ctx);
    case 'scatter':
      return scatter(data, table, box, ctx);
    case 'donut':
      return donut(data, table, box, ctx);
    default:
      return bars(data, table, type, box, ctx);
  }
}

// ------------------------------------------------------------------ line, area

/** `M x,y L x,y ...` of the points, a new `M` after each gap; a point alone between gaps is drawn as a dot. */
function pathOf(x: Float64Array, y: Float64Array): string {
  const parts: string[] = [];
  let open = 0;
  for (let i = 0; i < x.length; i++) {
    const px = x[i]!;
    const py = y[i]!;
    if (Number.isNaN(px) || Number.isNaN(py)) {
      if (open === 1) parts.push('h0');
      open = 0;
      continue;
    }
    parts.push(`${open ? 'L' : 'M'}${num(px)},${num(py)}`);
    open++;
  }
  if (open === 1) parts.push('h0');
  return parts.join('');
}

/** The area under each run of points, down to `base`. */
function areaOf(x: Float64Array, y: Float64Array, base: number): string {
  const parts: string[] = [];
  let first = -1;
  let last = -1;
  const close = () => {
    if (first >= 0 && last > first) parts.push(`L${num(x[last]!)},${num(base)}L${num(x[first]!)},${num(base)}Z`);
    else if (first >= 0) parts.pop();
    first = last = -1;
  };
  for (let i = 0; i < x.length; i++) {
    if (Number.isNaN(x[i]!) || Number.isNaN(y[i]!)) {
      close();
      continue;
    }
    parts.push(`${first < 0 ? 'M' : 'L'}${num(x[i]!)},${num(y[i]!)}`);
    if (first < 0) first = i;
    last = i;
  }
  close();
  return parts.join('');
}

function lines(data: ChartData, table: Table, type: 'line' | 'area', box: Box, ctx: DrawContext): Drawn {
  const { scope, ink } = ctx;
  const paints = chartPaints(data, table.header.length, ctx.colors, 0);
  const { plot, around } = frame(box, ctx, seriesItems(data, paints), []);
  const [lo, hi] = extentOf(
    (function* () {
      for (const s of data.series) yield* s.values;
    })(),
    type === 'area',
  );
  const { inner, y } = valueFrame(plot, lo, hi);
  let out = around + yAxis(scope, inner, y);
  // The x axis: the index's values (numbers, dates) or its rows (categories).
  let xAt: (r: number) => number;
  if (isContinuous(data.kind)) {
    const [xlo, xhi] = extentOf(data.x, false);
    const xs = continuous(data.kind, xlo, xhi, inner.x, inner.x + inner.w, inner.w / 90, false);
    xAt = (r) => xs.at(data.x[r]!);
    out += xAxisValues(scope, inner, xs, false);
  } else {
    const band = inner.w / data.rows;
    xAt = (r) => inner.x + (r + 0.5) * band;
    out += xAxisBands(scope, inner, data.labels, data.rows);
  }
  out += baseline(scope, inner.x, inner.x + inner.w, inner.y + inner.h, inner.y + inner.h);
  const base = y.at(Math.min(Math.max(0, y.lo), y.hi));
  out += `<g${attrs(scope, ['plot'])} fill="none" stroke-width="2" stroke-linejoin="round" stroke-linecap="round">`;
  const px = new Float64Array(data.rows);
  for (let r = 0; r < data.rows; r++) px[r] = xAt(r);
  data.series.forEach((s, i) => {
    const py = new Float64Array(data.rows);
    for (let r = 0; r < data.rows; r++) py[r] = Number.isNaN(s.values[r]!) ? NaN : y.at(s.values[r]!);
    const pts = decimate(px, py, inner.w);
    const color = paints.series[i]!;
    const cls = `series-${s.column}`;
    if (type === 'area')
      out += `<path d="${areaOf(pts.x, pts.y, base)}" fill-opacity="0.25" stroke="none"${attrs(scope, ['area', cls], ink.fill(color))}/>`;
    out += `<path d="${pathOf(pts.x, pts.y)}"${attrs(scope, ['line', cls], ink.stroke(color))}/>`;
  });
  out += '</g>';
  const what = type === 'area' ? 'Area' : 'Line';
  return { svg: out, summary: `${what} chart of ${names(data.series)} over ${fmtCount(data.rows)} rows`, notes: [] };
}

// ------------------------------------------------------------------ bars

function bars(data: ChartData, table: Table, type: PlotType, box: Box, ctx: DrawContext): Drawn {
  const { scope, ink } = ctx;
  const s = data.series.length;
  const k = Math.max(1, Math.min(data.rows, MAX_CATEGORIES, Math.floor(MAX_BARS / s)));
  const notes = k < data.rows ? [`Showing the first ${fmtCount(k)} of ${fmtCount(data.rows)} categories`] : [];
  const paints = chartPaints(data, table.header.length, ctx.colors, k);
  const { plot, around } = frame(box, ctx, seriesItems(data, paints), notes);
  const stacked = type === 'sbar';
  const horizontal = type === 'hbar';
  // The value extent: each bar from zero, or each stack's positive and negative sums.
  const vals: number[] = [];
  for (let r = 0; r < k; r++) {
    let pos = 0;
    let neg = 0;
    for (const se of data.series) {
      const v = se.values[r]!;
      if (Number.isNaN(v)) continue;
      if (!stacked) vals.push(v);
      else if (v >= 0) pos += v;
      else neg += v;
    }
    if (stacked) vals.push(pos, neg);
  }
  const [lo, hi] = extentOf(vals, true);
  let out = around;
  let inner: Box;
  let at: (v: number) => number;
  if (horizontal) {
    // Category labels on the left (up to a third of the width), values along the bottom.
    const maxChars = 24;
    let widest = 0;
    for (let r = 0; r < k; r++) widest = Math.max(widest, textWidth((data.labels[r] ?? '').slice(0, maxChars), SMALL));
    const left = Math.min(plot.w / 3, widest + 10);
    inner = { x: plot.x + left, y: plot.y, w: Math.max(10, plot.w - left - 10), h: Math.max(10, plot.h - 22) };
    const xs = continuous('number', lo, hi, inner.x, inner.x + inner.w, inner.w / 90, true);
    at = xs.at;
    out += xAxisValues(scope, inner, xs, true) + yAxisBands(scope, inner, data.labels, k, maxChars);
    const zero = xs.at(0);
    out += baseline(scope, zero, zero, inner.y, inner.y + inner.h);
  } else {
    const vf = valueFrame(plot, lo, hi);
    inner = vf.inner;
    at = vf.y.at;
    out += yAxis(scope, inner, vf.y) + xAxisBands(scope, inner, data.labels, k);
    const zero = vf.y.at(0);
    out += baseline(scope, inner.x, inner.x + inner.w, zero, zero);
  }
  const band = (horizontal ? inner.h : inner.w) / k;
  const groupW = band * (k > 200 ? 1 : 0.8);
  const gap = type === 'gbar' && s > 1 ? Math.min(4, (groupW / s) * 0.15) : 0;
  const barW = stacked ? groupW : groupW / s;
  const zero = at(0);
  // A bar's class and colour attributes, made once per series and colour (thousands of bars share a few).
  const looks = data.series.map(() => new Map<Shade, string>());
  const look = (i: number, shade: Shade) => {
    let a = looks[i]!.get(shade);
    if (a === undefined)
      looks[i]!.set(shade, (a = attrs(scope, ['bar', `series-${data.series[i]!.column}`], ink.fill(shade))));
    return a;
  };
  out += `<g${attrs(scope, ['plot'])}>`;
  for (let r = 0; r < k; r++) {
    const start = (horizontal ? inner.y : inner.x) + r * band + (band - groupW) / 2;
    let pos = 0;
    let neg = 0;
    for (let i = 0; i < s; i++) {
      const se = data.series[i]!;
      const v = se.values[r]!;
      if (Number.isNaN(v)) continue;
      let a: number;
      let b: number;
      if (stacked) {
        const from = v >= 0 ? pos : neg;
        if (v >= 0) pos += v;
        else neg += v;
        [a, b] = [at(from), at(from + v)];
      } else [a, b] = [zero, at(v)];
      const off = stacked ? start : start + i * barW;
      const w = Math.max(0.5, barW - gap);
      const [x, yy, bw, bh] = horizontal
        ? [Math.min(a, b), off + gap / 2, Math.abs(b - a), w]
        : [off + gap / 2, Math.min(a, b), w, Math.abs(b - a)];
      out += `<rect x="${num(x)}" y="${num(yy)}" width="${num(bw)}" height="${num(bh)}"${look(i, paints.mark(i, r))}/>`;
    }
  }
  out += '</g>';
  const kind = { bar: 'Bar', gbar: 'Grouped bar', sbar: 'Stacked bar', hbar: 'Horizontal bar' }[type as 'bar'] ?? 'Bar';
  return { svg: out, summary: `${kind} chart of ${names(data.series)} over ${fmtCount(data.rows)} categories`, notes };
}

// ------------------------------------------------------------------ scatter

function scatter(data: ChartData, table: Table, box: Box, ctx: DrawContext): Drawn {
  const { scope, ink } = ctx;
  // Two columns or more: the first is x, the second y. One column: the index is x.
  const pair = data.series.length >= 2;
  const ySeries = pair ? data.series[1]! : data.series[0]!;
  const xKind = pair ? 'number' : data.kind;
  const xv = pair ? data.series[0]!.values : data.x;
  const yv = ySeries.values;
  const usable: number[] = [];
  for (let r = 0; r < data.rows; r++) if (!Number.isNaN(xv[r]!) && !Number.isNaN(yv[r]!)) usable.push(r);
  const every = Math.max(1, Math.ceil(usable.length / MAX_POINTS));
  const drawn = every === 1 ? usable : usable.filter((_, i) => i % every === 0);
  const notes =
    every > 1
      ? [`Showing ${fmtCount(drawn.length)} of ${fmtCount(usable.length)} points (every ${fmtCount(every)}th)`]
      : [];
  const only: ChartData = { ...data, series: [ySeries] };
  const paints = chartPaints(only, table.header.length, ctx.colors, data.rows);
  const items: LegendItem[] = [
    {
      label: ySeries.name,
      color: paints.series[0]!,
      labelColor: paints.label[0],
      classes: [`series-${ySeries.column}`],
    },
  ];
  const { plot, around } = frame(box, ctx, items, notes);
  const xTitle = pair ? data.series[0]!.name : (table.header[0] ?? '');
  const yTitle = ySeries.name;
  const [lo, hi] = extentOf(
    drawn.map((r) => yv[r]!),
    false,
  );
  const { inner, y } = valueFrame(plot, lo, hi, xTitle, yTitle);
  let out = around + yAxis(scope, inner, y);
  let xAt: (r: number) => number;
  if (isContinuous(xKind)) {
    const [xlo, xhi] = extentOf(
      drawn.map((r) => xv[r]!),
      false,
    );
    const xs = continuous(xKind, xlo, xhi, inner.x, inner.x + inner.w, inner.w / 90, true);
    xAt = (r) => xs.at(xv[r]!);
    out += xAxisValues(scope, inner, xs, true);
  } else {
    const band = inner.w / data.rows;
    xAt = (r) => inner.x + (r + 0.5) * band;
    out += xAxisBands(scope, inner, data.labels, data.rows);
  }
  out +=
    baseline(scope, inner.x, inner.x + inner.w, inner.y + inner.h, inner.y + inner.h) +
    axisTitles(scope, inner, plot, xTitle, yTitle);
  // Points grouped by colour: one group (and one colour attribute) per colour, not per point.
  const groups = new Map<string, { color: Shade; dots: string[] }>();
  for (const r of drawn) {
    const color = paints.mark(0, r);
    const key = color.light + color.dark;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { color, dots: [] }));
    g.dots.push(`<circle cx="${num(xAt(r))}" cy="${num(y.at(yv[r]!))}" r="3"/>`);
  }
  out += `<g${attrs(scope, ['plot', `series-${ySeries.column}`])} fill-opacity="0.8">`;
  for (const g of groups.values()) out += `<g${attrs(scope, ['dot'], ink.fill(g.color))}>${g.dots.join('')}</g>`;
  out += '</g>';
  const over = pair
    ? `${data.series[0]!.name || 'x'} against ${yTitle || 'y'}`
    : `${yTitle || 'y'} by ${table.header[0] || 'index'}`;
  return { svg: out, summary: `Scatter chart of ${over}, ${fmtCount(usable.length)} points`, notes };
}

// ------------------------------------------------------------------ donut

function donut(data: ChartData, table: Table, box: Box, ctx: DrawContext): Drawn {
  const { scope, ink } = ctx;
  const s = data.series[0]!;
  const k = Math.min(data.rows, MAX_CATEGORIES);
  const notes: string[] = [];
  if (k < data.rows) notes.push(`Showing the first ${fmtCount(k)} of ${fmtCount(data.rows)} rows`);
  const paints = chartPaints({ ...data, series: [s] }, table.header.length, ctx.colors, k);
  const { slices, skipped, total } = donutSlices({ ...data, series: [s] }, k);
  if (skipped) notes.push(`${fmtCount(skipped)} zero, negative or missing value${skipped === 1 ? '' : 's'} not drawn`);
  if (!slices.length || !(total > 0))
    return {
      svg: message(scope, box, 'No positive values to draw'),
      summary: `Donut chart of ${s.name} without positive values`,
      notes,
    };
  const fmt = cellFormat(ctx.legend.format);
  const share = ctx.legend.format.endsWith('%');
  const colorOf = (x: (typeof slices)[number], i: number) => sliceColor(paints, ctx.colors, x, i);
  const items: LegendItem[] = slices.map((x, i) => ({
    label:
      `${x.label || ' '} ${typeof fmt === 'function' ? fmt(String(share ? x.value / total : x.value)) : ''}`.trim(),
    color: colorOf(x, i),
    classes: ['slice-key'],
  }));
  const { plot, around } = frame(box, ctx, items, notes, true);
  const r = Math.max(4, Math.min(plot.w, plot.h) / 2 - 4);
  const cx = plot.x + plot.w / 2;
  const cy = plot.y + plot.h / 2;
  const arcs = pie<(typeof slices)[number]>()
    .sort(null)
    .value((x) => x.value)(slices);
  const shape = arc<(typeof arcs)[number]>()
    .innerRadius(r * 0.6)
    .outerRadius(r)
    .padAngle(slices.length > 1 ? 0.01 : 0)
    .digits(1);
  let out = around + `<g${attrs(scope, ['plot', `series-${s.column}`])} transform="translate(${num(cx)},${num(cy)})">`;
  arcs.forEach((a, i) => {
    out += `<path d="${shape(a) ?? ''}"${attrs(scope, ['slice'], ink.fill(colorOf(a.data, i)))}/>`;
  });
  const totalLabel =
    typeof fmt === 'function' && !share ? fmt(String(total)) : Number(total.toPrecision(6)).toLocaleString('en-US');
  out += text(
    scope,
    0,
    0,
    totalLabel,
    ['total', 'fg'],
    ` text-anchor="middle" dy="0.32em" font-size="${Math.max(FONT, Math.min(28, r / 4))}"`,
    theme.fg,
  );
  out += '</g>';
  return {
    svg: out,
    summary: `Donut chart of ${s.name || 'values'} by ${table.header[0] || 'index'}, ${fmtCount(slices.length)} slices`,
    notes,
  };
}
