/**
 * What a plot is made of, as the drawing functions take it (pure): its data as a table (the
 * shape pandas' `to_csv()` writes: a header row, the index in the first column) and its
 * configuration (the `config/` entries, as written). csv.ts reads the table, svg.ts and
 * text.ts draw it; the plots area stores and serves them.
 */

/** A plot's data: `header[0]` names the index column (often empty); every row has `header.length` cells. */
export interface Table {
  header: string[];
  rows: string[][];
}

/** The chart types a plot draws (`config/type`); `mtable` is the clients' name for a table. */
export const PLOT_TYPES = [
  'line',
  'area',
  'bar',
  'sbar',
  'gbar',
  'hbar',
  'scatter',
  'donut',
  'table',
  'mtable',
] as const;
export type PlotType = (typeof PLOT_TYPES)[number];
export const DEFAULT_PLOT_TYPE: PlotType = 'bar';

/** Why a `config/type` value is not a type (undefined when it is). */
export function plotTypeProblem(value: string): string | undefined {
  return (PLOT_TYPES as readonly string[]).includes(value.trim())
    ? undefined
    : `'${value.trim()}' is not a plot type: use one of ${PLOT_TYPES.join(', ')}`;
}

/** The plot's `config/` entries as written (empty when unset). */
export interface PlotConfig {
  type: PlotType;
  title: string;
  caption: string;
  /** `config/colors/colors`: lines of `<rows> <columns> <plane> <color> [<dark color>]` (the clients' selectors). */
  colors: string;
  /** `config/colors/type`: `ix` or `clr`, how the lines are written; both shapes are read either way (colors.ts). */
  colorType: string;
  legend: { format: string; layout: string; position: string; type: string };
  /** `config/table/cell/*`: lines of `<rows> <columns> <instruction...>`. */
  cell: { align: string; format: string; border: string; padding: string; text: string; width: string };
  /** `config/custom/custom.css`, scoped to the plot when drawn. */
  customCss: string;
}

export interface Size {
  width: number;
  height: number;
}

export interface SvgOptions {
  /** A name unique on the page the SVG is put into (letters, digits, `-`): prefixes its ids, classes and CSS. */
  scope: string;
  /** What the plot is called when it has no title (its name). */
  name: string;
  size: Size;
}

/** The size a plot is drawn at when nothing asks for another. */
export const DEFAULT_SIZE: Size = { width: 800, height: 450 };

/** Width of the text and ANSI drawings, in characters, when the request names none. */
export const DEFAULT_TEXT_WIDTH = 80;
