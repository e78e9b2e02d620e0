/**
 * Layout parser and JSON builder: a hand-written table of layouts with the exact
 * data.json each must give (sizes worked out by hand from the rules in src/grids/layout.ts:
 * the outer border counts fully to its box, a divider's character half to each side),
 * every fault of rules 1-3 with its row and column, and a property test over random nested
 * layouts (the parse time in workerd: layout-timing.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { buildData, lidFor, type GridNode } from '../../../src/grids/build';
import { LayoutError, parseInstruction, parseLayout, type LayoutBox } from '../../../src/grids/layout';
import { parseMapping } from '../../../src/grids/mapping';
import { parseGrid } from '../../../src/grids/store';
import { rng } from '../seeded';

const GRID = 7;
const MAPPING = ['A', 'B', 'C', 'D'].map((l) => `${l} => /u/ann/p/${l.toLowerCase()}`).join('\n');
const dataOf = (layout: string, mapping = MAPPING) => buildData(parseLayout(layout), parseMapping(mapping), GRID);
const draw = (...rows: string[]) => rows.join('\n');
const lid = (label: string) => lidFor(GRID, label);
const leaf = (
  width: number,
  height: number,
  l: string,
  position = 'middle',
  include_header = false,
  include_caption = false,
): GridNode => ({
  type: 'wrapper container',
  width,
  height,
  children: [],
  inst: { lid: l === '' ? '' : lid(l), position: position as 'middle', include_header, include_caption },
});
const wrap = (width: number, height: number, ...children: GridNode[]): GridNode => ({
  type: 'wrapper',
  width,
  height,
  children,
});

describe('layout table: exact data.json written by hand from the rules', () => {
  const table: [string, string, GridNode][] = [
    [
      'single cell: the root wrapper holds one container of the same size',
      draw('+-----+', '| {A} |', '+-----+'),
      wrap(7, 3, leaf(7, 3, 'A')),
    ],
    [
      'horizontal divider: two stacked boxes, the divider row counts half to each (2.5 + 2.5 = 5 rows)',
      draw('+-----+', '| {A} |', '+-----+', '| {B} |', '+-----+'),
      wrap(7, 5, leaf(7, 2.5, 'A'), leaf(7, 2.5, 'B')),
    ],
    [
      'vertical divider: two boxes side by side (6.5 + 6.5 = 13 columns)',
      draw('+-----+-----+', '| {A} | {B} |', '+-----+-----+'),
      wrap(13, 3, leaf(6.5, 3, 'A'), leaf(6.5, 3, 'B')),
    ],
    [
      'uneven shares: 3 and 7 inside columns give 4.5 and 8.5',
      draw('+---+-------+', '|{A}|  {B}  |', '+---+-------+'),
      wrap(13, 3, leaf(4.5, 3, 'A'), leaf(8.5, 3, 'B')),
    ],
    [
      'a middle box between two dividers counts half of each: 4.5 + 4 + 4.5',
      draw('+---+---+---+', '|{A}|{B}|{C}|', '+---+---+---+'),
      wrap(13, 3, leaf(4.5, 3, 'A'), leaf(4, 3, 'B'), leaf(4.5, 3, 'C')),
    ],
    [
      'nested alternating: rows, then the top row split into columns',
      draw('+-----+-----+', '| {A} |     |', '|     | {B} |', '+-----+-----+', '|   {C:^}   |', '+-----------+'),
      wrap(13, 6, wrap(13, 3.5, leaf(6.5, 3.5, 'A'), leaf(6.5, 3.5, 'B')), leaf(13, 2.5, 'C', 'top')),
    ],
    [
      'nested alternating three levels: columns, rows, columns',
      draw(
        '+-----+-----------+',
        '|     |{B}  |{C:v}|',
        '| {A} +-----+-----+',
        '|     |    {D}    |',
        '+-----+-----------+',
      ),
      wrap(
        19,
        5,
        leaf(6.5, 5, 'A'),
        wrap(12.5, 5, wrap(12.5, 2.5, leaf(6, 2.5, 'B'), leaf(6.5, 2.5, 'C', 'bottom')), leaf(12.5, 2.5, 'D')),
      ),
    ],
    [
      'a plain grid (full rows and full columns) is split into rows first',
      draw('+-----+-----+', '| {A} | {B} |', '+-----+-----+', '| {C} | {D} |', '+-----+-----+'),
      wrap(
        13,
        5,
        wrap(13, 2.5, leaf(6.5, 2.5, 'A'), leaf(6.5, 2.5, 'B')),
        wrap(13, 2.5, leaf(6.5, 2.5, 'C'), leaf(6.5, 2.5, 'D')),
      ),
    ],
    [
      'blank rows and columns around the rectangle are ignored',
      '\n\n    \n   +-----+   \n   | {A} |\t\n   +-----+\n\n  \n',
      wrap(7, 3, leaf(7, 3, 'A')),
    ],
    ['CRLF line ends read like LF', '+-----+\r\n| {A} |\r\n+-----+\r\n', wrap(7, 3, leaf(7, 3, 'A'))],
    ['position ^ is top', draw('+-------+', '| {A:^} |', '+-------+'), wrap(9, 3, leaf(9, 3, 'A', 'top'))],
    ['position v is bottom', draw('+-------+', '| {A:v} |', '+-------+'), wrap(9, 3, leaf(9, 3, 'A', 'bottom'))],
    ['position - is middle', draw('+-------+', '| {A:-} |', '+-------+'), wrap(9, 3, leaf(9, 3, 'A'))],
    ['an empty position is middle', draw('+------+', '| {A:} |', '+------+'), wrap(8, 3, leaf(8, 3, 'A'))],
    [
      'any other position makes the instruction invalid: the cell is empty',
      draw('+-------+', '| {A:x} |', '+-------+'),
      wrap(9, 3, leaf(9, 3, '')),
    ],
    [
      'positions are case-sensitive: V is not v',
      draw('+-------+', '| {A:V} |', '+-------+'),
      wrap(9, 3, leaf(9, 3, '')),
    ],
    [
      'a label missing from the mapping leaves the cell empty (its position kept)',
      draw('+-------+', '| {Z:v} |', '+-------+'),
      wrap(9, 3, leaf(9, 3, '', 'bottom')),
    ],
    [
      'a box without an instruction is an empty cell',
      draw('+-----+-----+', '|     | {B} |', '+-----+-----+'),
      wrap(13, 3, leaf(6.5, 3, ''), leaf(6.5, 3, 'B')),
    ],
    [
      'two instructions in one box make it empty',
      draw('+--------+', '|{A}  {B}|', '+--------+'),
      wrap(10, 3, leaf(10, 3, '')),
    ],
    ['a non-alphanumeric label is invalid', draw('+-------+', '| {A_1} |', '+-------+'), wrap(9, 3, leaf(9, 3, ''))],
    ['an instruction without braces is invalid', draw('+-----+', '|  A  |', '+-----+'), wrap(7, 3, leaf(7, 3, ''))],
    [
      'whitespace inside an instruction is removed first',
      draw('+---------+', '| { A : v}|', '+---------+'),
      wrap(11, 3, leaf(11, 3, 'A', 'bottom')),
    ],
    [
      'an instruction may span lines (whitespace removed)',
      draw('+-----+', '| {A  |', '|  :^}|', '+-----+'),
      wrap(7, 4, leaf(7, 4, 'A', 'top')),
    ],
    [
      'uneven heights: 2 and 1 inside rows give 3.5 and 2.5',
      draw('+-----+', '| {A} |', '|     |', '+-----+', '| {B} |', '+-----+'),
      wrap(7, 6, leaf(7, 3.5, 'A'), leaf(7, 2.5, 'B')),
    ],
    [
      'uneven heights between two dividers: 2.5 + 4 + 2.5 rows',
      draw('+-----+', '| {A} |', '+-----+', '| {B} |', '|     |', '|     |', '+-----+', '| {C} |', '+-----+'),
      wrap(7, 9, leaf(7, 2.5, 'A'), leaf(7, 4, 'B'), leaf(7, 2.5, 'C')),
    ],
    [
      'an empty instruction {} is invalid: the cell is empty',
      draw('+----+', '| {} |', '+----+'),
      wrap(6, 3, leaf(6, 3, '')),
    ],
    [
      'an empty label {:v} is invalid: the cell is empty at middle',
      draw('+------+', '| {:v} |', '+------+'),
      wrap(8, 3, leaf(8, 3, '')),
    ],
    [
      'a position of two characters {A:^^} is invalid',
      draw('+--------+', '| {A:^^} |', '+--------+'),
      wrap(10, 3, leaf(10, 3, '')),
    ],
    [
      'instruction text is never a line: | as a position is invalid, not a divider stub (box of two rows)',
      draw('+-----+', '|{A:|}|', '|     |', '+-----+'),
      wrap(7, 4, leaf(7, 4, '')),
    ],
    [
      'instruction text is never a line: + as a position does not split a one-row box',
      draw('+-----+', '|{A:+}|', '+-----+'),
      wrap(7, 3, leaf(7, 3, '')),
    ],
    [
      'instruction text is never a line: {A:|} on a middle row does not read as {A}',
      draw('+-------+', '|       |', '| {A:|} |', '|       |', '+-------+'),
      wrap(9, 5, leaf(9, 5, '')),
    ],
    [
      'instruction text is never a line: a - inside the braces is kept, so {A-} does not read as {A}',
      draw('+------+', '| {A-} |', '+------+'),
      wrap(8, 3, leaf(8, 3, '')),
    ],
    [
      'instruction text next to a real divider: {A:|} is empty, the divider still splits',
      draw('+-----+-----+', '|{A:|}| {B} |', '+-----+-----+'),
      wrap(13, 3, leaf(6.5, 3, ''), leaf(6.5, 3, 'B')),
    ],
  ];
  it.each(table)('%s', (_name, layout, structure) => {
    expect(dataOf(layout)).toEqual({ structure });
  });

  it('mapping parameters reach inst: include_header and include_caption', () => {
    expect(
      dataOf(
        draw('+-----+-----+', '| {A} | {B} |', '+-----+-----+'),
        'A => /u/ann/p/a, h=t, c=true\nB => /u/ann/p/b, include_header=maybe, include_caption=f',
      ),
    ).toEqual({
      structure: wrap(13, 3, leaf(6.5, 3, 'A', 'middle', true, true), leaf(6.5, 3, 'B')),
    });
  });

  it('an unwritten layout gives the empty structure', () => {
    expect(parseGrid(null, null, GRID).data).toEqual({
      structure: { type: 'wrapper', width: 0, height: 0, children: [] },
    });
  });

  it('lid: the same label gets the same lid on every parse; other labels and other grids differ', () => {
    expect(lidFor(7, 'A')).toBe(lidFor(7, 'A'));
    expect(lidFor(7, 'A')).toMatch(/^[0-9a-f]{14}$/);
    expect(new Set([lidFor(7, 'A'), lidFor(7, 'B'), lidFor(8, 'A'), lidFor(7, 'a')]).size).toBe(4);
  });
});

describe('layout faults of rules 1-3 name the row and column (1-based, in the file as written)', () => {
  const faults: [string, string, number, number, RegExp][] = [
    ['an empty layout', '  \n\n', 1, 1, /empty/],
    ['a rectangle without room inside', draw('++', '++'), 1, 1, /room inside/],
    ['a corner that is not +', draw('+-----', '| {A} |', '+-----+'), 1, 7, /corner/],
    ['two rectangles are not one rectangle', draw('+---+ +---+', '|{A}| |{B}|', '+---+ +---+'), 1, 6, /top border/],
    ['a character outside the rectangle', draw('+-----+', '| {A} |', '+-----+', '   x'), 4, 1, /corner/],
    ['a broken left border', draw('+-----+', '  {A} |', '+-----+'), 2, 1, /left border/],
    ['a letter on the right border', draw('+-----+', '| {A} x', '+-----+'), 2, 7, /right border/],
    ['a border mixing - and |', draw('+--|--+', '| {A} |', '+-----+'), 1, 4, /top border/],
    [
      'a horizontal divider mixing - and |',
      draw('+-------+', '|  {A}  |', '|---|---|', '|  {B}  |', '+-------+'),
      3,
      5,
      /cannot mix/,
    ],
    ['a vertical divider mixing | and -', draw('+---+---+', '|{A}|{B}|', '|{C}-{D}|', '+---+---+'), 3, 5, /cannot mix/],
    [
      'a horizontal divider that stops short of the right side',
      draw('+-------+', '|  {A}  |', '+---+   |', '|  {B}  |', '+-------+'),
      3,
      2,
      /edge to edge/,
    ],
    [
      'a vertical divider that stops short of the bottom',
      draw('+---+---+', '|{A}|{B}|', '|       |', '+-------+'),
      2,
      5,
      /edge to edge/,
    ],
    [
      'a horizontal line that crosses a full vertical divider with | (not +) mixes - and |',
      draw('+---+---+', '|{A}|{B}|', '|---|---|', '|{C}|{D}|', '+---+---+'),
      3,
      5,
      /cannot mix/,
    ],
    [
      'a vertical line that crosses a full horizontal divider with - (not +) mixes | and -',
      draw('+---+---+', '|{A}|{B}|', '+-------+', '|{C}|{D}|', '+---+---+'),
      3,
      5,
      /cannot mix/,
    ],
    ['two touching dividers leave no room', draw('+---++---+', '|{A}||{B}|', '+---++---+'), 2, 6, /room inside/],
    [
      'faults are counted in the file, blank margins included',
      '\n\n  +-----+\n  | {A} |\n  +---- +\n',
      5,
      8,
      /bottom border/,
    ],
  ];
  it.each(faults)('%s', (_name, layout, row, column, message) => {
    let caught: unknown;
    try {
      parseLayout(layout);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LayoutError);
    expect(caught).toMatchObject({ row, column });
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).toContain(`row ${row}, column ${column}`);
  });
});

describe('instructions', () => {
  it.each([
    ['{A}', 'A', 'middle'],
    ['{A:}', 'A', 'middle'],
    ['{A:^}', 'A', 'top'],
    ['{A:v}', 'A', 'bottom'],
    ['{Plot42:v}', 'Plot42', 'bottom'],
    ['{A:x}', null, 'middle'],
    ['{A:^^}', null, 'middle'],
    ['{A:-}', 'A', 'middle'],
    ['{A:|}', null, 'middle'],
    ['{A:+}', null, 'middle'],
    ['{:v}', null, 'middle'],
    ['{}', null, 'middle'],
    ['{A}{B}', null, 'middle'],
    ['', null, 'middle'],
    ['{é}', null, 'middle'],
  ])('%j reads as label %j at %s', (text, label, position) => {
    expect(parseInstruction(text)).toEqual({ label, position });
  });
});

/** A random valid nested layout, with each cell's expected size (from the rules, not the parser). */
function randomLayout(seed: number) {
  const rand = rng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const W = int(12, 90);
  const H = int(5, 40);
  const g = Array.from({ length: H }, () => Array.from({ length: W }, () => ' '));
  const expected = new Map<string, { width: number; height: number }>();
  const hline = (y: number, l: number, r: number) => {
    for (let x = l; x <= r; x++) g[y]![x] = x === l || x === r || g[y]![x] === '|' || g[y]![x] === '+' ? '+' : '-';
  };
  const vline = (x: number, t: number, b: number) => {
    for (let y = t; y <= b; y++) g[y]![x] = y === t || y === b || g[y]![x] === '-' || g[y]![x] === '+' ? '+' : '|';
  };
  hline(0, 0, W - 1);
  hline(H - 1, 0, W - 1);
  vline(0, 0, H - 1);
  vline(W - 1, 0, H - 1);
  let n = 0;
  const box = (
    t: number,
    l: number,
    b: number,
    r: number,
    w: [number, number, number, number],
    depth: number,
    dir: 'rows' | 'columns',
  ) => {
    const span = dir === 'rows' ? b - t : r - l;
    const min = dir === 'rows' ? 3 : 8; // room for a label and a divider
    const canSplit = span >= 2 * min && depth < 5 && rand() < 0.8;
    if (!canSplit) {
      const label = `{L${n++}${['', ':^', ':v', ':-', ':'][int(0, 4)]}}`;
      const y = int(t + 1, b - 1);
      const x = int(l + 1, r - label.length);
      [...label].forEach((c, i) => (g[y]![x + i] = c));
      expected.set(`L${n - 1}`, { width: r - l - 1 + w[1] + w[3], height: b - t - 1 + w[0] + w[2] });
      return;
    }
    const cuts: number[] = [];
    let at = (dir === 'rows' ? t : l) + min;
    const end = dir === 'rows' ? b : r;
    while (at <= end - min && cuts.length < 4) {
      cuts.push(at);
      at += int(min, Math.max(min, Math.floor((end - at) / 2)));
    }
    for (const c of cuts) {
      if (dir === 'rows') hline(c, l, r);
      else vline(c, t, b);
    }
    const edges = [dir === 'rows' ? t : l, ...cuts, end];
    const next = dir === 'rows' ? 'columns' : 'rows';
    for (let i = 0; i + 1 < edges.length; i++) {
      const lo = edges[i]!;
      const hi = edges[i + 1]!;
      const wlo = i === 0 ? (dir === 'rows' ? w[0] : w[3]) : 0.5;
      const whi = i + 2 === edges.length ? (dir === 'rows' ? w[2] : w[1]) : 0.5;
      if (dir === 'rows') box(lo, l, hi, r, [wlo, w[1], whi, w[3]], depth + 1, next);
      else box(t, lo, b, hi, [w[0], whi, w[2], wlo], depth + 1, next);
    }
  };
  box(0, 0, H - 1, W - 1, [1, 1, 1, 1], 0, rand() < 0.5 ? 'rows' : 'columns');
  return { text: g.map((row) => row.join('')).join('\n'), expected, W, H };
}

describe('property: random valid nested layouts', () => {
  it('children sum to their parent, every instruction is found once, each cell has its size', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const { text, expected, W, H } = randomLayout(seed);
      const parsed = parseLayout(text);
      expect(parsed.root.width, `seed ${seed}`).toBe(W);
      expect(parsed.root.height, `seed ${seed}`).toBe(H);
      const found = new Map<string, LayoutBox>();
      const walk = (b: LayoutBox) => {
        if (b.cell) {
          expect(b.cell.label, `seed ${seed}: cell without its instruction\n${text}`).not.toBeNull();
          expect(found.has(b.cell.label!), `seed ${seed}: ${b.cell.label} twice`).toBe(false);
          found.set(b.cell.label!, b);
          return;
        }
        expect(b.children.length).toBeGreaterThan(1);
        const sum = (k: 'width' | 'height') => b.children.reduce((s, c) => s + c[k], 0);
        if (b.split === 'rows') {
          expect(sum('height'), `seed ${seed}`).toBe(b.height);
          for (const c of b.children) expect(c.width).toBe(b.width);
        } else {
          expect(sum('width'), `seed ${seed}`).toBe(b.width);
          for (const c of b.children) expect(c.height).toBe(b.height);
        }
        b.children.forEach(walk);
      };
      walk(parsed.root);
      expect([...found.keys()].sort(), `seed ${seed}\n${text}`).toEqual([...expected.keys()].sort());
      expect(parsed.cells).toBe(expected.size);
      for (const [label, size] of expected)
        expect({ width: found.get(label)!.width, height: found.get(label)!.height }, `seed ${seed} ${label}`).toEqual(
          size,
        );
    }
  });
});
