/**
 * Which colour each drawn thing gets from the colour instructions (colors.ts), a later
 * instruction winning over an earlier one.
 *
 * Charts: a series is a column (column 1 is the first after the index). An instruction
 * whose columns select the series and whose rows select the header (row 0) or every data
 * row colours the whole series: its line, area, legend swatch and every mark. One that
 * selects only some rows colours those marks (bars, donut slices, scatter points) and
 * leaves the series' colour as it was: `3 1 bg red` highlights the third bar alone. A
 * dynamic colour colours each mark by its value (its domain taken from the marks it
 * selects); the series' own colour is then its middle stop. The `fg` plane colours the
 * series' legend label. Plain colour lines colour series 0, 1, ... before any instruction.
 *
 * Tables: every instruction colours the cells it selects: `bg` the cell's background, `fg`
 * its text; a dynamic colour's domain is the numbers among the cells it selects that are drawn.
 */
import type { ChartData, Slice } from './chart-data';
import { paintShade, resolveDomain, type ColorConfig, type Paint } from './colors';
import type { Table } from './model';
import { seriesColor, type Shade } from './palette';
import { axisCovers, axisHas, axisMask } from './selector';
import { toNumber } from './values';

export interface ChartPaints {
  /** The colour of each series (in ChartData.series order). */
  series: Shade[];
  /** The legend label colour of each series, when an `fg` instruction gives one. */
  label: (Shade | undefined)[];
  /** The colour of series `s`'s mark at data row `r` (its series colour when nothing else is said). */
  mark(s: number, r: number): Shade;
}

function extent(values: Iterable<number>): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return [min, max];
}

const domainOf = (paint: Paint, [min, max]: [number, number]): number[] =>
  paint.kind === 'static' ? [] : resolveDomain(paint.domain, min, max);

/**
 * `rows`: how many data rows of each series may carry marks of their own (0 for lines and
 * areas: one colour per series; the bars or points drawn otherwise). Pass only the series
 * drawn: each instruction costs its selected series times `rows`.
 */
export function chartPaints(data: ChartData, columns: number, colors: ColorConfig, rows: number): ChartPaints {
  const series = data.series.map((_, i) => colors.series[i] ?? seriesColor(i));
  const label: (Shade | undefined)[] = data.series.map(() => undefined);
  const marks: (Shade | undefined)[][] = data.series.map(() => []);
  const n = data.rows + 1; // grid rows: the header is row 0
  const limit = Math.min(rows, data.rows);
  // Each series' extent, read once (a dynamic colour over a whole series is common, and a file may hold many).
  const extents: ([number, number] | undefined)[] = [];
  const seriesExtent = (s: number) => (extents[s] ??= extent(finite(data.series[s]!.values)));
  for (const rule of colors.rules) {
    for (let s = 0; s < data.series.length; s++) {
      const { column, values } = data.series[s]!;
      if (!axisHas(rule.cols, columns, column)) continue;
      const whole = axisHas(rule.rows, n, 0) || axisCovers(rule.rows, n, 1, n);
      if (rule.plane === 'fg') {
        if (whole) label[s] = paintShade(rule.paint, NaN, domainOf(rule.paint, seriesExtent(s)));
        continue;
      }
      const mask = limit > 0 ? axisMask(rule.rows, n, limit + 1) : new Uint8Array(0);
      const picked: number[] = [];
      for (let r = 0; r < limit; r++) if (mask[r + 1] && !Number.isNaN(values[r]!)) picked.push(values[r]!);
      const domain = domainOf(rule.paint, whole ? seriesExtent(s) : extent(picked));
      if (whole) {
        const mid = domain.length ? (domain[0]! + domain[domain.length - 1]!) / 2 : NaN;
        series[s] = paintShade(rule.paint, mid, domain);
        marks[s]!.length = 0;
      }
      for (let r = 0; r < limit; r++) if (mask[r + 1]) marks[s]![r] = paintShade(rule.paint, values[r]!, domain);
    }
  }
  return { series, label, mark: (s, r) => marks[s]![r] ?? series[s]! };
}

function* finite(values: Float64Array): Iterable<number> {
  for (const v of values) if (!Number.isNaN(v)) yield v;
}

export interface CellPaints {
  bg(r: number, c: number): Shade | undefined;
  fg(r: number, c: number): Shade | undefined;
}

/** Background and text colour of the drawn cells of a table (grid rows `0..rows-1`, the header being row 0). */
export function cellPaints(table: Table, colors: ColorConfig, rows: number): CellPaints {
  const columns = table.header.length;
  const n = table.rows.length + 1;
  const m = Math.min(rows, n);
  const bg: (Shade | undefined)[] = [];
  const fg: (Shade | undefined)[] = [];
  const cell = (r: number, c: number) => (r === 0 ? table.header[c] : table.rows[r - 1]![c]) ?? '';
  for (const rule of colors.rules) {
    const rm = axisMask(rule.rows, n, m);
    const cm = axisMask(rule.cols, columns);
    const target = rule.plane === 'bg' ? bg : fg;
    let domain: number[] = [];
    if (rule.paint.kind === 'dynamic') {
      const vals: number[] = [];
      for (let r = 0; r < m; r++)
        if (rm[r]) for (let c = 0; c < columns; c++) if (cm[c]) vals.push(toNumber(cell(r, c)));
      domain = domainOf(rule.paint, extent(vals.filter((v) => !Number.isNaN(v))));
    }
    for (let r = 0; r < m; r++) {
      if (!rm[r]) continue;
      for (let c = 0; c < columns; c++) {
        if (!cm[c]) continue;
        const v = rule.paint.kind === 'dynamic' ? toNumber(cell(r, c)) : NaN;
        // A dynamic colour leaves the cells without a number as they were.
        if (rule.paint.kind === 'dynamic' && Number.isNaN(v)) continue;
        target[r * columns + c] = paintShade(rule.paint, v, domain);
      }
    }
  }
  return { bg: (r, c) => bg[r * columns + c], fg: (r, c) => fg[r * columns + c] };
}

/** The "Other" slice of a donut. */
const OTHER: Shade = { light: '#9ca3af', dark: '#6b7280' };

/**
 * A donut slice's colour: its own mark colour when an instruction gives one, else the plain
 * colour list, then the series palette, by slice (slices are told apart, not series).
 */
export function sliceColor(paints: ChartPaints, colors: ColorConfig, slice: Slice, i: number): Shade {
  if (slice.row < 0) return OTHER;
  const own = paints.mark(0, slice.row);
  return own !== paints.series[0] ? own : (colors.series[i] ?? seriesColor(i));
}
