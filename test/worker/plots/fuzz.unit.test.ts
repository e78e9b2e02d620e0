// The drawings never throw on user input: random data (ragged rows too, though parseCsv never
// makes them) and random config entries, every type, both outputs; the SVG stays well formed
// and the text within its width. Seeded, so a failure repeats.
import { describe, expect, it } from 'vitest';
import { cellConfigProblem, CELL_FILES } from '../../../src/plots/cell';
import { colorsProblem } from '../../../src/plots/colors';
import { scopeCss } from '../../../src/plots/css';
import { parseCsv } from '../../../src/plots/csv';
import { PLOT_TYPES, type PlotConfig, type Table } from '../../../src/plots/model';
import { drawSvg } from '../../../src/plots/svg';
import { drawText } from '../../../src/plots/text';
import { expectWellFormed } from './fixtures';

/** mulberry32: a small seeded generator. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  ':',
  '1:',
  '-1',
  '0',
  '2:5',
  '::2',
  ',',
  'bg',
  'fg',
  'red',
  'gray-300',
  '#f80',
  'bad,neutral,good(_,0,_)^lin',
  'red,green(',
  '<',
  '>',
  '-',
  '^',
  'v',
  ',.2f',
  '.1%',
  '1s',
  '$.2m',
  '%Y',
  'a',
  'b',
  'x',
  'y',
  '1',
  '5',
  '9',
  'i',
  'f',
  '200',
  '--',
  '\n',
  ' ',
  '\t',
  '"',
  "'",
  '&',
  '<script>',
  '\u0000',
  '\u001b[2J',
  '\ud800',
  '🙂',
  'NaN',
  'inf',
  '1e308',
  '-0',
  '2024-01-01',
  '2024-02-30T25:00',
  '{',
  '}',
  'url(x)',
  '@import',
  '.bar',
  '#x',
  '*',
  '\\',
];

function words(r: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)]! + (r() < 0.5 ? ' ' : '');
  return s;
}

function cell(r: () => number): string {
  const x = r();
  if (x < 0.4) return String(Math.round((r() - 0.5) * 10 ** Math.floor(r() * 8)) / 100);
  if (x < 0.5) return '';
  if (x < 0.6) return new Date(Date.UTC(2020, 0, 1) + Math.floor(r() * 2000) * 86_400_000).toISOString().slice(0, 10);
  return words(r, 1 + Math.floor(r() * 3));
}

function randomTable(r: () => number): Table {
  const cols = Math.floor(r() * 6);
  const rows = Math.floor(r() ** 2 * 300);
  const header = Array.from({ length: cols }, () => (r() < 0.3 ? '' : words(r, 1)));
  return {
    header,
    // A ragged row now and then: the drawings take what they are given.
    rows: Array.from({ length: rows }, () =>
      Array.from({ length: r() < 0.05 ? Math.floor(r() * (cols + 2)) : cols }, () => cell(r)),
    ),
  };
}

function randomConfig(r: () => number): PlotConfig {
  const w = () => words(r, Math.floor(r() * 12));
  return {
    type: PLOT_TYPES[Math.floor(r() * PLOT_TYPES.length)]!,
    title: w(),
    caption: w(),
    colors: w(),
    colorType: w(),
    legend: {
      format: w(),
      layout: w(),
      position: ['top', 'bottom', 'left', 'right', 'none', w()][Math.floor(r() * 6)]!,
      type: w(),
    },
    cell: { align: w(), format: w(), border: w(), padding: w(), text: w(), width: w() },
    customCss: w(),
  };
}

describe('random data and config never make a drawing throw', () => {
  it('400 drawings of each output', () => {
    const r = rng(20261128);
    for (let i = 0; i < 400; i++) {
      const table = randomTable(r);
      const config = randomConfig(r);
      const size = { width: Math.floor(r() * 1200) - 100, height: Math.floor(r() * 900) - 100 };
      const what = `#${i} ${config.type}`;
      let svg = '';
      expect(
        () => (svg = drawSvg(table, config, { scope: words(r, 1) || 'p', name: words(r, 2), size })),
        what,
      ).not.toThrow();
      expectWellFormed(svg);
      const width = Math.floor(r() * 500) - 50;
      let text = '';
      expect(() => (text = drawText(table, config, { width, ansi: r() < 0.5 })), what).not.toThrow();
      const max = Math.min(400, Math.max(20, width));
      for (const line of text.split('\n'))
        // oxlint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
        expect([...line.replace(/\x1b\[[0-9;]*m/g, '')].length, what).toBeLessThanOrEqual(max);
    }
  });

  it('the strict readings answer a string or nothing, never throw', () => {
    const r = rng(7);
    for (let i = 0; i < 500; i++) {
      const text = words(r, Math.floor(r() * 20));
      expect(() => colorsProblem(text)).not.toThrow();
      for (const f of CELL_FILES) expect(() => cellConfigProblem(f, text)).not.toThrow();
      expect(() => scopeCss(text, 'p')).not.toThrow();
      expect(() => parseCsv(text)).not.toThrow();
    }
  });
});
