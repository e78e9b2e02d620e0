/**
 * A table read as a chart: the index (first column) is the x axis, every other column
 * holding at least one number is a series. The index is continuous when every non-empty
 * index cell is a number (a linear axis) or an ISO date (a time axis), and categories
 * otherwise. A cell of a series that is not a number is a gap, never a zero. Columns without
 * a single number (notes, labels) are not series: they stay in the table alternative only.
 */
import { MAX_SLICES } from './limits';
import type { Table } from './model';
import { toNumber, toTime } from './values';

export type IndexKind = 'number' | 'date' | 'category';

export interface Series {
  name: string;
  /** The column of the table (1 = the first after the index): what colour selectors address. */
  column: number;
  /** One value per row; NaN for a gap. */
  values: Float64Array;
}

export interface ChartData {
  kind: IndexKind;
  /** The index cells as written. */
  labels: string[];
  /** The index as numbers (ms since the epoch for dates; the row number for categories); NaN where empty. */
  x: Float64Array;
  series: Series[];
  rows: number;
}

export function chartData(table: Table): ChartData {
  const rows = table.rows.length;
  // oxlint-disable-next-line unicorn/no-new-array -- preallocates one label per row, filled below
  const labels = new Array<string>(rows);
  const xn = new Float64Array(rows);
  const xt = new Float64Array(rows);
  let numbers = true;
  let dates = true;
  let filled = 0;
  for (let r = 0; r < rows; r++) {
    const cell = table.rows[r]![0] ?? '';
    labels[r] = cell;
    if (!cell.trim()) {
      xn[r] = xt[r] = NaN;
      continue;
    }
    filled++;
    if (numbers) numbers = !Number.isNaN((xn[r] = toNumber(cell)));
    if (dates) dates = !Number.isNaN((xt[r] = toTime(cell)));
  }
  // Years written as numbers (2020, 2021) stay numbers: a time axis of them would read 1970 + ms.
  const kind: IndexKind = filled === 0 ? 'category' : numbers ? 'number' : dates ? 'date' : 'category';
  const x = kind === 'number' ? xn : kind === 'date' ? xt : Float64Array.from({ length: rows }, (_, i) => i);
  const series: Series[] = [];
  for (let c = 1; c < table.header.length; c++) {
    const values = new Float64Array(rows);
    let any = false;
    for (let r = 0; r < rows; r++) {
      const v = toNumber(table.rows[r]![c] ?? '');
      values[r] = v;
      if (!any && !Number.isNaN(v)) any = true;
    }
    if (any) series.push({ name: table.header[c] ?? '', column: c, values });
  }
  return { kind, labels, x, series, rows };
}

/** A donut's slice: a row's positive value, or the smallest rows gathered (`row` -1). */
export interface Slice {
  label: string;
  value: number;
  row: number;
}

/**
 * The slices of the first series over the first `k` rows: the positive values (zero,
 * negative and missing ones are counted in `skipped`), the smallest gathered in one
 * "Other" slice when there are more than MAX_SLICES.
 */
export function donutSlices(data: ChartData, k: number): { slices: Slice[]; skipped: number; total: number } {
  const values = data.series[0]?.values ?? new Float64Array(0);
  let slices: Slice[] = [];
  let skipped = 0;
  for (let r = 0; r < Math.min(k, data.rows); r++) {
    const v = values[r]!;
    if (v > 0) slices.push({ label: data.labels[r] ?? '', value: v, row: r });
    else skipped++;
  }
  if (slices.length > MAX_SLICES) {
    const keep = new Set(
      [...slices]
        .sort((a, b) => b.value - a.value)
        .slice(0, MAX_SLICES - 1)
        .map((x) => x.row),
    );
    const rest = slices.filter((x) => !keep.has(x.row));
    slices = slices.filter((x) => keep.has(x.row));
    slices.push({ label: `Other (${rest.length})`, value: rest.reduce((a, x) => a + x.value, 0), row: -1 });
  }
  return { slices, skipped, total: slices.reduce((a, x) => a + x.value, 0) };
}
