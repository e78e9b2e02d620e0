/**
 * A chart's legend drawn: a swatch and a label per item, in a row that wraps (above or
 * below the chart) or a column (beside it). Long labels are cut; items that do not fit are
 * counted in a last "… N more".
 */
import type { Legend } from './legend';
import type { Shade } from './palette';
import { attrs, FONT, text, theme, type Box, type Ink } from './svg-parts';
import { num, textWidth, truncate } from './xml';

export interface LegendItem {
  label: string;
  color: Shade;
  /** The label's colour when an instruction gives one. */
  labelColor?: Shade;
  /** Classes of the swatch (e.g. `series-2`), without the scope. */
  classes: string[];
}

const ROW_H = 18;
const MAX_ROWS = 4;

export interface PlacedLegend {
  w: number;
  h: number;
  draw: (x: number, y: number) => string;
}

/** The legend of `items` laid out to fit `room` (its width for a row, its height for a column). */
export function layoutLegend(scope: string, ink: Ink, items: LegendItem[], legend: Legend, room: Box): PlacedLegend {
  const labels = items.map((i) => truncate(i.label || ' ', 28));
  const widths = labels.map((l) => 18 + textWidth(l, FONT));
  const placed: { i: number; dx: number; dy: number }[] = [];
  let w = 0;
  let h = 0;
  if (legend.layout === 'row') {
    let x = 0;
    let row = 0;
    for (let i = 0; i < items.length; i++) {
      if (x > 0 && x + widths[i]! > room.w) {
        if (row + 1 === MAX_ROWS) break;
        row++;
        x = 0;
      }
      placed.push({ i, dx: x, dy: row * ROW_H });
      x += widths[i]! + 14;
      w = Math.max(w, x - 14);
    }
    h = (row + 1) * ROW_H;
  } else {
    const fit = Math.max(1, Math.floor(room.h / ROW_H) - 1);
    for (let i = 0; i < items.length && i < fit; i++) {
      placed.push({ i, dx: 0, dy: i * ROW_H });
      w = Math.max(w, widths[i]!);
    }
    w = Math.min(w, room.w * 0.35);
    h = (placed.length + (placed.length < items.length ? 1 : 0)) * ROW_H;
  }
  const more = items.length - placed.length;
  return {
    w,
    h,
    draw: (x, y) => {
      let out = `<g${attrs(scope, ['legend'])}>`;
      for (const p of placed) {
        const item = items[p.i]!;
        const ix = x + p.dx;
        const iy = y + p.dy;
        out += `<rect x="${num(ix)}" y="${num(iy + 3)}" width="10" height="10" rx="2"${attrs(scope, ['swatch', ...item.classes], ink.fill(item.color))}/>`;
        const label = item.labelColor ? ink.fill(item.labelColor) : theme.fg;
        out += text(
          scope,
          ix + 16,
          iy + 8,
          labels[p.i]!,
          item.labelColor ? ['legend-label'] : ['legend-label', 'fg'],
          ' dy="0.32em"',
          label,
        );
      }
      if (more > 0) {
        const last = placed.at(-1);
        const [mx, my] =
          legend.layout === 'row'
            ? [x + (last ? last.dx + widths[last.i]! + 14 : 0), y + (last?.dy ?? 0)]
            : [x, y + placed.length * ROW_H];
        out += text(scope, mx, my + 8, `… ${more} more`, ['legend-label', 'muted'], ' dy="0.32em"', theme.muted);
      }
      return out + '</g>';
    },
  };
}
