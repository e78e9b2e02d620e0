/**
 * A chart's legend (`config/legend/*`). novem's documentation names the four entries but
 * not their values; these are the ones chosen here:
 *
 * - position: `top` (default), `bottom`, `left`, `right`, or `none` (also `hide`, `off`,
 *   `no`, `false`). The legend is drawn when the chart has two series or more (a donut: its
 *   slices), or when the position is written explicitly.
 * - layout: `row` (`horizontal`) or `column` (`vertical`); default a row above or below
 *   the chart, a column beside it.
 * - format: a format (number-format.ts) for the values a donut's legend shows: a format
 *   ending in `%` formats each slice's share (default `.1%`), any other its value.
 * - type: read and stored, not used by these drawings (novem gives it no meaning yet).
 */
import type { PlotConfig } from './model';
import { cellFormat } from './number-format';
import { clip } from './selector';

type LegendPosition = 'top' | 'bottom' | 'left' | 'right' | 'none';

export interface Legend {
  position: LegendPosition;
  /** Whether the position was written (a one-series chart draws its legend only then). */
  explicit: boolean;
  layout: 'row' | 'column';
  format: string;
}

const NONE = ['none', 'hide', 'hidden', 'off', 'no', 'false'];
const POSITIONS = ['top', 'bottom', 'left', 'right'];

export function readLegend(legend: PlotConfig['legend']): Legend {
  const p = legend.position.trim().toLowerCase();
  const position: LegendPosition = NONE.includes(p) ? 'none' : POSITIONS.includes(p) ? (p as LegendPosition) : 'top';
  const l = legend.layout.trim().toLowerCase();
  const side = position === 'left' || position === 'right';
  const layout = ['row', 'horizontal'].includes(l)
    ? 'row'
    : ['column', 'vertical'].includes(l)
      ? 'column'
      : side
        ? 'column'
        : 'row';
  const f = legend.format.trim();
  return {
    position,
    explicit: position !== 'top' || p === 'top',
    layout,
    format: f && typeof cellFormat(f) === 'function' ? f : '.1%',
  };
}

/** Why a `config/legend/<field>` value is not one (undefined when it is). */
export function legendProblem(field: string, value: string): string | undefined {
  const v = value.trim();
  const f = field.split('/').pop();
  if (!v) return undefined;
  if (f === 'position' && ![...POSITIONS, ...NONE].includes(v.toLowerCase()))
    return `'${clip(v)}' is not a legend position: use top, bottom, left, right or none`;
  if (f === 'layout' && !['row', 'horizontal', 'column', 'vertical'].includes(v.toLowerCase()))
    return `'${clip(v)}' is not a legend layout: use row or column`;
  if (f === 'format') {
    const fmt = cellFormat(v);
    if (typeof fmt === 'string') return fmt;
  }
  return undefined;
}
