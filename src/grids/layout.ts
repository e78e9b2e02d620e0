/**
 * The layout parser: a box drawing of + - | becomes a tree of boxes with sizes in
 * characters. Pure: no I/O, no clock; unit-tested on its own (test/worker/grids/layout.unit.test.ts).
 *
 * Rules, as implemented (docs/areas/grids.md says the same):
 *  1. The drawing is one rectangle. Rows and columns holding only whitespace around it are
 *     ignored; its bounding box must be bordered by - / + (top and bottom rows) and | / +
 *     (left and right columns), with + in the four corners.
 *  2. A divider is an inside row made only of - and + (horizontal split) or an inside
 *     column made only of | and + (vertical split), running edge to edge inside its box.
 *     An inside row (column) of a box made of drawing characters only that mixes - and |
 *     is a fault, checked in every box before it is split (so `|---|---|` crossing a full
 *     vertical divider is one), as is a - (|) that touches a box's side without crossing
 *     the box, and two dividers (or a divider and a border) with no room between them.
 *     Instruction text is never a line: on a row, the characters between a `{` and the
 *     nearest `}` after it are masked before dividers and stubs are looked for.
 *  3. Splits nest and alternate. A box holding both full rows and full columns (a plain
 *     grid) is split into rows first, then each row into columns.
 *  4. Sizes are character counts. The root measures the drawing's columns (width) and rows
 *     (height), borders included. A border character on the outside of the drawing counts
 *     fully to the box it bounds; a divider's own character counts half to each of the two
 *     boxes it separates. So a box between the outer left border and a divider at
 *     distance d counts d + 0.5 columns, the children of a box always sum exactly to it,
 *     and sizes are multiples of 0.5.
 *  5-7. An innermost box, once drawing characters (+ - |) and whitespace are removed, must
 *     read exactly {LABEL} or {LABEL:POSITION}; LABEL is [A-Za-z0-9]+ and POSITION is
 *     ^ (top), - or empty (middle), v (bottom). Drawing characters inside braces on one row
 *     are instruction text and stay, so `{A:|}` and `{A:+}` are invalid, not `{A:}`.
 *     Anything else makes the cell empty (label null) without failing the layout.
 * Faults of rules 1-3 throw a LayoutError naming the row and column (1-based, counted in
 * the file as written, blank margins included; a tab counts as one column).
 */

export type Position = 'top' | 'middle' | 'bottom';

export interface LayoutCell {
  /** The instruction's label, or null when the box holds no valid instruction. */
  label: string | null;
  position: Position;
}

export interface LayoutBox {
  width: number;
  height: number;
  /** Sub-boxes of a split, in reading order; empty for an innermost box. */
  children: LayoutBox[];
  /** Direction of the split: `rows` stacks children top to bottom, `columns` left to right. */
  split: 'rows' | 'columns' | null;
  /** Set on innermost boxes. */
  cell: LayoutCell | null;
}

export interface ParsedLayout {
  root: LayoutBox;
  /** Extent of the drawing in characters (the root box). */
  columns: number;
  rows: number;
  cells: number;
}

export class LayoutError extends Error {
  constructor(
    readonly row: number,
    readonly column: number,
    readonly problem: string,
  ) {
    super(`row ${row}, column ${column}: ${problem}`);
  }
}

interface Box {
  t: number;
  l: number;
  b: number;
  r: number;
  /** Weight of each border character: 1 on the drawing's outside, 0.5 for a divider. */
  wt: number;
  wl: number;
  wb: number;
  wr: number;
}

const PLUS = 43;
const DASH = 45;
const BAR = 124;
const SPACE = 32;
/** The whitespace of JavaScript's \s, by code point. */
const isSpace = (c: number) =>
  c === SPACE ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
const isDrawing = (c: number) => c === PLUS || c === DASH || c === BAR;
const describe = (c: number) => (c === SPACE ? 'a space' : c === 9 ? 'a tab' : `'${String.fromCharCode(c)}'`);
/** Astral characters count as one column: each becomes one placeholder (never part of a valid instruction). */
const ASTRAL = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

const INSTRUCTION = /^\{([A-Za-z0-9]+)(?::(.*))?\}$/s;
const POSITIONS: Record<string, Position> = { '': 'middle', '-': 'middle', '^': 'top', v: 'bottom' };

/** Reads the instruction of an innermost box from its text (drawing chars and whitespace already removed). */
export function parseInstruction(text: string): LayoutCell {
  const m = INSTRUCTION.exec(text);
  if (!m) return { label: null, position: 'middle' };
  const position = POSITIONS[m[2] ?? ''];
  return position ? { label: m[1]!, position } : { label: null, position: 'middle' };
}

const MASK = '\uE000';

/**
 * A row with the drawing characters of its instruction text masked: between a `{` and the
 * nearest `}` after it (no other `{` in between) nothing is a line, so `{A:|}` or `{A:+}`
 * never splits a box nor reads as a divider stub. Rows without braces are returned as is.
 */
function maskInstructions(row: string): string {
  let open = row.indexOf('{');
  if (open < 0) return row;
  let out = '';
  let done = 0;
  while (open >= 0) {
    const close = row.indexOf('}', open + 1);
    if (close < 0) break;
    const start = row.lastIndexOf('{', close) + 1;
    out += row.slice(done, start) + row.slice(start, close).replace(/[+|-]/g, MASK);
    done = close;
    open = row.indexOf('{', close + 1);
  }
  return done ? out + row.slice(done) : row;
}

/** Parses a layout drawing; throws LayoutError for faults of rules 1-3. */
export function parseLayout(text: string): ParsedLayout {
  const raw = text
    .split(/\r\n|\n|\r/)
    .map((line) => (/[\uD800-\uDFFF]/.test(line) ? line.replace(ASTRAL, '\uFFFD') : line));
  const lines = raw;
  // The shape of the drawing: the rows with instruction text masked, so a | or + in `{A:|}` is never a line.
  const shape = lines.map(maskInstructions);
  // Past the end of its row a character reads as a space. Rows are not padded to the widest
  // one: one long row over many short ones would make the grid quadratic in the text.
  const charAt = (row: string, x: number): number => (x < row.length ? row.charCodeAt(x) : SPACE);
  const at = (y: number, x: number): number => charAt(shape[y]!, x);

  // Rule 1: the bounding box of everything that is not whitespace.
  let t = -1;
  let b = -1;
  let l = Infinity;
  let r = -1;
  shape.forEach((row, y) => {
    let first = -1;
    let last = -1;
    for (let x = 0; x < row.length; x++) {
      if (!isSpace(row.charCodeAt(x))) {
        if (first < 0) first = x;
        last = x;
      }
    }
    if (first < 0) return;
    if (t < 0) t = y;
    b = y;
    l = Math.min(l, first);
    r = Math.max(r, last);
  });
  if (t < 0) throw new LayoutError(1, 1, 'the layout is empty: draw one rectangle of + - |');
  const fault = (y: number, x: number, problem: string) => new LayoutError(y + 1, x + 1, problem);
  if (b - t < 2 || r - l < 2)
    throw fault(t, l, 'the drawing must be one rectangle of + - | with room inside (at least 3 by 3 characters)');
  for (let y = t; y <= b; y++) {
    const edge = y === t || y === b;
    for (let x = l; x <= r; x++) {
      const side = x === l || x === r;
      if (!edge && !side) {
        x = r - 1; // skip the inside
        continue;
      }
      const c = at(y, x);
      if (edge && side) {
        if (c !== PLUS)
          throw fault(y, x, `the drawing must be one rectangle: expected + at its corner, found ${describe(c)}`);
      } else if (edge && c !== DASH && c !== PLUS) {
        throw fault(
          y,
          x,
          `the drawing must be one rectangle: its ${y === t ? 'top' : 'bottom'} border must be - or +, found ${describe(c)}`,
        );
      } else if (side && c !== BAR && c !== PLUS) {
        throw fault(
          y,
          x,
          `the drawing must be one rectangle: its ${x === l ? 'left' : 'right'} border must be | or +, found ${describe(c)}`,
        );
      }
    }
  }

  let cells = 0;
  const split = (box: Box): LayoutBox => {
    const width = box.r - box.l - 1 + box.wl + box.wr;
    const height = box.b - box.t - 1 + box.wt + box.wb;
    if (box.b - box.t < 2 || box.r - box.l < 2) {
      const [y, x] = box.b - box.t < 2 ? [box.b, box.l + 1] : [box.t + 1, box.r];
      throw fault(y, x, 'two dividers (or a divider and a border) touch: a box needs room inside');
    }
    // Rule 2: full rows of - and +, then full columns of | and +. Both directions are
    // scanned before any split, so a mixed line is a fault even where a split would cut it.
    const rowCuts = dividers(box, 'rows');
    const columnCuts = dividers(box, 'columns');
    if (rowCuts.length) return splitBox(box, 'rows', rowCuts, width, height);
    if (columnCuts.length) return splitBox(box, 'columns', columnCuts, width, height);
    checkStubs(box, 'rows');
    checkStubs(box, 'columns');
    cells++;
    let content = '';
    for (let y = box.t + 1; y < box.b; y++) {
      const row = shape[y]!;
      let from = -1;
      for (let x = box.l + 1; x <= box.r; x++) {
        // masked instruction text is kept as written: `{A:|}` reads as such (an invalid position)
        const keep = x < box.r && !isDrawing(charAt(row, x)) && !isSpace(charAt(lines[y]!, x));
        if (keep && from < 0) from = x;
        else if (!keep && from >= 0) {
          content += lines[y]!.slice(from, x);
          from = -1;
        }
      }
    }
    return { width, height, children: [], split: null, cell: parseInstruction(content) };
  };

  const splitBox = (box: Box, dir: 'rows' | 'columns', at: number[], width: number, height: number): LayoutBox => {
    const children: LayoutBox[] = [];
    const cuts = dir === 'rows' ? [box.t, ...at, box.b] : [box.l, ...at, box.r];
    for (let i = 0; i + 1 < cuts.length; i++) {
      const lo = cuts[i]!;
      const hi = cuts[i + 1]!;
      const wlo = i === 0 ? (dir === 'rows' ? box.wt : box.wl) : 0.5;
      const whi = i + 2 === cuts.length ? (dir === 'rows' ? box.wb : box.wr) : 0.5;
      children.push(
        split(dir === 'rows' ? { ...box, t: lo, b: hi, wt: wlo, wb: whi } : { ...box, l: lo, r: hi, wl: wlo, wr: whi }),
      );
    }
    return { width, height, children, split: dir, cell: null };
  };

  /** The lines of a box in one direction: rows (i = y, j = x) or columns (i = x, j = y). */
  const linesOf = (box: Box, dir: 'rows' | 'columns') =>
    dir === 'rows'
      ? {
          from: box.t,
          to: box.b,
          lo: box.l,
          hi: box.r,
          get: (i: number, j: number) => at(i, j),
          fault: (i: number, j: number, m: string) => fault(i, j, m),
          along: DASH,
          cross: BAR,
        }
      : {
          from: box.l,
          to: box.r,
          lo: box.t,
          hi: box.b,
          get: (i: number, j: number) => at(j, i),
          fault: (i: number, j: number, m: string) => fault(j, i, m),
          along: BAR,
          cross: DASH,
        };

  /**
   * The dividers of a box in one direction: its inside lines made only of the direction's
   * line character and +. An inside line of drawing characters only that mixes - and | is a fault.
   */
  const dividers = (box: Box, dir: 'rows' | 'columns'): number[] => {
    const L = linesOf(box, dir);
    const out: number[] = [];
    for (let i = L.from + 1; i < L.to; i++) {
      let drawing = true;
      let crossAt = -1;
      let along = false;
      for (let j = L.lo + 1; j < L.hi && drawing; j++) {
        const c = L.get(i, j);
        if (c === L.along) along = true;
        else if (c === L.cross) crossAt = crossAt < 0 ? j : crossAt;
        else drawing = c === PLUS;
      }
      if (!drawing) continue;
      if (crossAt < 0) out.push(i);
      else if (along) {
        const [kind, a, x] = dir === 'rows' ? ['horizontal', '-', '|'] : ['vertical', '|', '-'];
        throw L.fault(
          i,
          crossAt,
          `a divider cannot mix ${a} and ${x}: a ${kind} divider is made of ${a} and + only (use + where lines cross)`,
        );
      }
    }
    return out;
  };

  /** An innermost box: no divider stub (a line character or + touching a side without crossing the box). */
  const checkStubs = (box: Box, dir: 'rows' | 'columns') => {
    const L = linesOf(box, dir);
    const across = dir === 'rows' ? 'columns' : 'rows';
    for (let i = L.from + 1; i < L.to; i++) {
      for (let j = L.lo + 1; j < L.hi; j = j === L.hi - 1 ? L.hi : L.hi - 1) {
        const c = L.get(i, j);
        if (c === L.along || c === PLUS) {
          throw L.fault(
            i,
            j,
            `a divider must run edge to edge inside its box (${across} ${L.lo + 1} to ${L.hi + 1}); this one stops short`,
          );
        }
      }
    }
  };

  const root = split({ t, l, b, r, wt: 1, wl: 1, wb: 1, wr: 1 });
  return { root, columns: r - l + 1, rows: b - t + 1, cells };
}
