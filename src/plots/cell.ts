/**
 * A table plot's cell instructions (`config/table/cell/<file>`), each a line of
 * `<rows> <columns> <instruction...>` applied in order (a later line wins where two set the
 * same property of a cell), as novem's table documentation describes them:
 *
 * - align:   `<` left, `-` centre, `>` right; `^` top, `=` middle, `v` bottom; one of
 *            each may be combined (`>^`). Default: left, middle.
 * - format:  a format (number-format.ts): `,.2f`, `.1%`, `1s`, `$.2m`, `%Y-%m`.
 * - border:  `<sides> <size> [<color> [<dark color>]]`, sides any of l r t b, x (l+r),
 *            y (t+b), a (all); size 1-5 (0 removes the border). Default colour: the theme's
 *            text colour, muted.
 * - padding: `<sides> <size>`, sides as for borders, size 0-5 (0, 2, 4, 8, 12, 16 px).
 * - text:    `<style> [<size>] [<family>] [<color> [<dark color>]]`: style letters b bold,
 *            i italic, u underline, s strikethrough, r regular (clears those), n nothing,
 *            `-` blank (the cell shows nothing, its value still colours it), or a weight
 *            100-900; size xs sm md lg xl or pixels (6-72); family sans, serif or mono. The
 *            colour is this platform's addition (the clients' tree lists colour under text).
 * - width:   `<kind> <units>` (or `<units> <kind>`): kind i minimum, x maximum, f fixed;
 *            units are pixels. Applies to the columns selected (rows are ignored).
 *
 * The header row is bold unless an instruction says otherwise (`0 : r`). Drawing never fails
 * on these files (a line that does not read is skipped); `cellConfigProblem` is the strict
 * reading for a 400 on write.
 */
import type { PlotConfig, Table } from './model';
import { cellFormat, type CellFormat } from './number-format';
import { namedColor, THEME, type Shade } from './palette';
import { axisMask, clip, parseInstructions, type Instruction } from './selector';

type HAlign = 'left' | 'center' | 'right';
type VAlign = 'top' | 'middle' | 'bottom';
type Side = 'l' | 'r' | 't' | 'b';

interface Border {
  size: number;
  color: Shade;
}

export interface CellStyle {
  h: HAlign;
  v: VAlign;
  format: CellFormat | undefined;
  border: Record<Side, Border | undefined>;
  pad: Record<Side, number>;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  strike: boolean;
  blank: boolean;
  weight: number | undefined;
  size: number | undefined;
  family: string | undefined;
  color: Shade | undefined;
}

interface ColumnWidth {
  min?: number;
  max?: number;
  fixed?: number;
}

export const CELL_FILES = ['align', 'format', 'border', 'padding', 'text', 'width'] as const;
type CellFile = (typeof CELL_FILES)[number];

/** What one instruction does to a cell's style (or to its column's width), or why it cannot. */
type Apply = { style: (s: CellStyle) => void } | { width: (w: ColumnWidth) => void };

const PAD_PX = [0, 2, 4, 8, 12, 16];
const SIZES: Record<string, number> = { xs: 9, sm: 11, md: 13, lg: 16, xl: 20 };
const FAMILIES: Record<string, string> = {
  sans: 'system-ui,sans-serif',
  serif: 'Georgia,serif',
  mono: 'ui-monospace,Menlo,Consolas,monospace',
};
const BORDER_DEFAULT: Shade = { light: THEME.axis.light, dark: THEME.axis.dark };

function sides(word: string): Side[] | string {
  const out = new Set<Side>();
  for (const c of word) {
    if (c === 'l' || c === 'r' || c === 't' || c === 'b') out.add(c);
    else if (c === 'x') {
      out.add('l');
      out.add('r');
    } else if (c === 'y') {
      out.add('t');
      out.add('b');
    } else if (c === 'a') for (const s of ['l', 'r', 't', 'b'] as const) out.add(s);
    else return `'${clip(word)}' is not a side (l r t b x y a)`;
  }
  return [...out];
}

const sizeOf = (word: string | undefined, max: number): number | string =>
  word !== undefined && /^\d$/.test(word) && Number(word) <= max
    ? Number(word)
    : `'${clip(word ?? '')}': the size is 0-${max}`;

function colorOf(words: string[]): Shade | string | undefined {
  if (words.length === 0) return undefined;
  if (words.length > 2) return `too many words after the colour: '${clip(words.join(' '))}'`;
  const light = namedColor(words[0]!);
  if (!light) return `unknown colour '${clip(words[0]!)}'`;
  if (words.length === 1) return light;
  const dark = namedColor(words[1]!);
  return dark ? { light: light.light, dark: dark.light } : `unknown dark colour '${clip(words[1]!)}'`;
}

/** One instruction of `file` read, or why not. */
function instruction(file: CellFile, args: string[]): Apply | string {
  const [a, b] = args;
  switch (file) {
    case 'align': {
      if (args.length !== 1 || a!.length > 2) return `'${clip(args.join(' '))}' is not an alignment (< - > ^ = v)`;
      let h: HAlign | undefined;
      let v: VAlign | undefined;
      for (const c of a!) {
        const hh = ({ '<': 'left', '-': 'center', '>': 'right' } as const)[c as '<'];
        const vv = ({ '^': 'top', '=': 'middle', v: 'bottom' } as const)[c as '^'];
        if (hh && !h) h = hh;
        else if (vv && !v) v = vv;
        else return `'${clip(a!)}' is not an alignment (< - > ^ = v)`;
      }
      return {
        style: (s) => {
          if (h) s.h = h;
          if (v) s.v = v;
        },
      };
    }
    case 'format': {
      const f = cellFormat(args.join(' '));
      return typeof f === 'string' ? f : { style: (s) => void (s.format = f) };
    }
    case 'border': {
      const at = sides(a!);
      if (typeof at === 'string') return at;
      const size = sizeOf(b, 5);
      if (typeof size === 'string') return size;
      const color = colorOf(args.slice(2));
      if (typeof color === 'string') return color;
      const border = size === 0 ? undefined : { size, color: color ?? BORDER_DEFAULT };
      return { style: (s) => at.forEach((side) => (s.border[side] = border)) };
    }
    case 'padding': {
      const at = sides(a!);
      if (typeof at === 'string') return at;
      const size = sizeOf(b, 5);
      if (typeof size === 'string') return size;
      if (args.length > 2) return `padding is <sides> <size>: '${clip(args.join(' '))}'`;
      return { style: (s) => at.forEach((side) => (s.pad[side] = PAD_PX[size]!)) };
    }
    case 'text': {
      const style = a!;
      let weight: number | undefined;
      const letters = new Set<string>();
      if (/^[1-9]00$/.test(style)) weight = Number(style);
      else
        for (const c of style)
          if ('bisurn-'.includes(c)) letters.add(c);
          else return `'${clip(style)}' is not a text style (b i s u r n -, or a weight 100-900)`;
      let rest = args.slice(1);
      let size: number | undefined;
      let family: string | undefined;
      if (rest[0] !== undefined && (SIZES[rest[0]] || /^\d{1,2}$/.test(rest[0]))) {
        size = SIZES[rest[0]] ?? Math.min(72, Math.max(6, Number(rest[0])));
        rest = rest.slice(1);
      }
      if (rest[0] !== undefined && FAMILIES[rest[0]]) {
        family = FAMILIES[rest[0]];
        rest = rest.slice(1);
      }
      const color = colorOf(rest);
      if (typeof color === 'string') return color;
      return {
        style: (s) => {
          if (letters.has('r')) s.bold = s.italic = s.underline = s.strike = s.blank = false;
          if (letters.has('b')) s.bold = true;
          if (letters.has('i')) s.italic = true;
          if (letters.has('u')) s.underline = true;
          if (letters.has('s')) s.strike = true;
          if (letters.has('-')) s.blank = true;
          if (weight !== undefined) s.weight = weight;
          if (size !== undefined) s.size = size;
          if (family !== undefined) s.family = family;
          if (color !== undefined) s.color = color;
        },
      };
    }
    case 'width': {
      if (args.length !== 2) return `width is <i|x|f> <units>: '${clip(args.join(' '))}'`;
      const [kind, units] = /^[ixf]$/.test(a!) ? [a!, b!] : [b!, a!];
      if (!/^[ixf]$/.test(kind) || !/^\d{1,4}$/.test(units))
        return `width is <i|x|f> <units> (i minimum, x maximum, f fixed): '${clip(args.join(' '))}'`;
      const px = Number(units);
      return {
        width: (w) => {
          if (kind === 'i') w.min = px;
          else if (kind === 'x') w.max = px;
          else w.fixed = px;
        },
      };
    }
  }
}

/** The file's lines read: each instruction with what it does, and the first problem (undefined when none). */
function readFile(file: CellFile, text: string): { lines: { ins: Instruction; apply: Apply }[]; problem?: string } {
  const parsed = parseInstructions(text, 1);
  const lines: { ins: Instruction; apply: Apply }[] = [];
  let problem: string | undefined;
  for (const ins of parsed.instructions) {
    const apply = instruction(file, ins.args);
    if (typeof apply === 'string') problem ??= `line ${ins.line}: ${apply}`;
    else lines.push({ ins, apply });
  }
  if (parsed.error !== undefined) problem ??= parsed.error;
  return { lines, problem };
}

/** Why a `config/table/cell/<file>` value cannot be stored (`path` may be the whole entry path or the file), or undefined. */
export function cellConfigProblem(path: string, text: string): string | undefined {
  const file = path.split('/').pop() as CellFile;
  if (!CELL_FILES.includes(file)) return `'${clip(path)}' is not a table cell file (${CELL_FILES.join(', ')})`;
  return readFile(file, text).problem;
}

export interface TableStyles {
  /** Rows drawn (the header counted): styles of row r, column c at `r * columns + c`. */
  rows: number;
  columns: number;
  style(r: number, c: number): CellStyle;
  widths: ColumnWidth[];
}

function defaultStyle(header: boolean): CellStyle {
  return {
    h: 'left',
    v: 'middle',
    format: undefined,
    border: { l: undefined, r: undefined, t: undefined, b: undefined },
    pad: { l: 4, r: 4, t: 2, b: 2 },
    bold: header,
    italic: false,
    underline: false,
    strike: false,
    blank: false,
    weight: undefined,
    size: undefined,
    family: undefined,
    color: undefined,
  };
}

/**
 * The style of every drawn cell (the first `rowLimit` rows of the grid, the header being
 * row 0) and every column's width, from the six files. Each instruction costs the cells it
 * selects among those drawn (plus its selector's parts), never the whole table.
 */
export function tableStyles(table: Table, cell: PlotConfig['cell'], rowLimit: number): TableStyles {
  const columns = table.header.length;
  const n = table.rows.length + 1;
  const rows = Math.max(0, Math.min(n, rowLimit));
  // oxlint-disable-next-line unicorn/no-new-array -- preallocates one slot per cell, filled below
  const styles: (CellStyle | undefined)[] = new Array(rows * columns);
  const headerDefault = defaultStyle(true);
  const bodyDefault = defaultStyle(false);
  const own = (i: number, r: number): CellStyle => {
    let s = styles[i];
    if (!s) {
      const d = r === 0 ? headerDefault : bodyDefault;
      s = { ...d, border: { ...d.border }, pad: { ...d.pad } };
      styles[i] = s;
    }
    return s;
  };
  const widths: ColumnWidth[] = Array.from({ length: columns }, () => ({}));
  for (const file of CELL_FILES) {
    for (const { ins, apply } of readFile(file, cell[file]).lines) {
      const cm = axisMask(ins.cols, columns);
      if ('width' in apply) {
        for (let c = 0; c < columns; c++) if (cm[c]) apply.width(widths[c]!);
        continue;
      }
      const rm = axisMask(ins.rows, n, rows);
      for (let r = 0; r < rows; r++) {
        if (!rm[r]) continue;
        for (let c = 0; c < columns; c++) if (cm[c]) apply.style(own(r * columns + c, r));
      }
    }
  }
  return {
    rows,
    columns,
    widths,
    style: (r, c) => styles[r * columns + c] ?? (r === 0 ? headerDefault : bodyDefault),
  };
}
