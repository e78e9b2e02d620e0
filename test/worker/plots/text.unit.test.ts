// Plots drawn for a terminal: never wider than asked, escapes only with ansi, user text unable to move the cursor.
import { describe, expect, it } from 'vitest';
import type { PlotConfig } from '../../../src/plots/model';
import { drawText, MAX_TEXT_WIDTH, MIN_TEXT_WIDTH } from '../../../src/plots/text';
import { config, frame, longSeries, table, TYPES } from './fixtures';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const visible = (line: string) => [...line.replace(ANSI, '')].length;
const lines = (s: string) => s.replace(/\n$/, '').split('\n');

describe('every type, every width, with and without colour', () => {
  const data = frame(60);
  const colored = (type: PlotConfig['type']) =>
    config(type, {
      title: 'Quarterly sales',
      caption: 'Source: the ledger, with a caption long enough to wrap at the narrowest width there is',
      colors: type === 'table' || type === 'mtable' ? '1: 1 bg red,green(_,_)\n0 : fg blue' : '',
    });
  for (const type of TYPES)
    for (const width of [20, 47, 80, 400])
      it(`${type} at ${width} columns`, () => {
        const plain = drawText(data, colored(type), { width, ansi: false });
        const ansi = drawText(data, colored(type), { width, ansi: true });
        for (const l of lines(plain)) expect(visible(l), l).toBeLessThanOrEqual(width);
        for (const l of lines(ansi)) expect(visible(l), l).toBeLessThanOrEqual(width);
        expect(plain).not.toContain('\x1b');
        // oxlint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
        expect(ansi).toMatch(/\x1b\[38;5;\d+m/);
        expect(ansi).toContain('\x1b[0m');
        // The same drawing: the text of plot.txt is plot.ansi without its escapes.
        expect(ansi.replace(ANSI, '')).toBe(plain);
        expect(plain.startsWith('Quarterly sales\n')).toBe(true);
      });
});

describe('what each type is drawn with', () => {
  const data = frame(30);
  const draw = (type: PlotConfig['type'], over: Partial<PlotConfig> = {}) =>
    drawText(data, config(type, over), { width: 80, ansi: false });
  it('lines, areas and scatters on a braille canvas with a value axis', () => {
    for (const type of ['line', 'area', 'scatter'] as const) {
      const out = draw(type);
      expect(out, type).toMatch(/[\u2801-\u28ff]/);
      expect(out, type).toMatch(/┤/);
      expect(out, type).toContain('└');
    }
    expect(draw('line')).toContain('■ Sales');
  });
  it('bars of eighth blocks, stacked bars shaded in turn, donuts by share', () => {
    expect(draw('hbar')).toMatch(/█+[▏▎▍▌▋▊▉]? /);
    expect(draw('sbar')).toMatch(/▓/);
    const donut = drawText(table(',v\na,1\nb,3\n'), config('donut'), { width: 40, ansi: false });
    expect(donut).toContain('25.0%');
    expect(donut).toContain('75.0%');
    expect(lines(donut)[0]).toBe('██████████▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓');
  });
  it('tables in a box, formatted and aligned as configured', () => {
    const out = drawText(
      table(',price\napple,1234.5\npear,9\n'),
      config('table', { cell: { align: ': 1 >', format: '1: 1 ,.2f', border: '', padding: '', text: '', width: '' } }),
      { width: 40, ansi: false },
    );
    expect(out).toBe(
      [
        '┌───────┬──────────┐',
        '│       │    price │',
        '├───────┼──────────┤',
        '│ apple │ 1,234.50 │',
        '│ pear  │     9.00 │',
        '└───────┴──────────┘',
        '',
      ].join('\n'),
    );
  });
  it('a chart is about width / 3.2 lines tall', () => {
    for (const width of [80, 160]) {
      const n = lines(drawText(frame(100), config('line'), { width, ansi: false })).length;
      expect(Math.abs(n - width / 3.2)).toBeLessThanOrEqual(3);
    }
  });
});

describe('bounds and hostile input', () => {
  it('the width is clamped to [20, 400]; not a number means the default 80', () => {
    const at = (width: number) =>
      Math.max(...lines(drawText(frame(10), config('hbar'), { width, ansi: false })).map(visible));
    expect(at(5)).toBeLessThanOrEqual(MIN_TEXT_WIDTH);
    expect(at(5000)).toBeLessThanOrEqual(MAX_TEXT_WIDTH);
    expect(at(NaN)).toBeLessThanOrEqual(80);
    expect(at(NaN)).toBeGreaterThan(40);
  });

  it('escape sequences and control characters in user text are removed', () => {
    const t = table(',"\x1b[2Jname"\n"\x1b]0;owned\x07row",1\nb,2\n');
    for (const type of TYPES) {
      const out = drawText(t, config(type, { title: 'T\x1b[31m\u202eitle', caption: 'c\x9bx' }), {
        width: 60,
        ansi: true,
      });
      // oxlint-disable-next-line no-control-regex -- the text must hold no control character
      expect(out.replace(ANSI, ''), type).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
    }
  });

  it('many rows: lines decimated, bars and tables cut with a count of the rest', () => {
    const big = longSeries(100_000);
    const t0 = performance.now();
    const line = drawText(big, config('line'), { width: 120, ansi: true });
    expect(performance.now() - t0).toBeLessThan(500);
    expect(lines(line).length).toBeLessThan(45);
    expect(drawText(big, config('bar'), { width: 80, ansi: false })).toMatch(/… [\d,]+ more categories\n$/);
    expect(drawText(big, config('table'), { width: 80, ansi: false })).toMatch(/… 99,000 more rows\n$/);
  });

  it('a table wider than the width shrinks its columns, then leaves some out', () => {
    const wide = table(
      ',' +
        Array.from({ length: 30 }, (_, i) => `column number ${i}`).join(',') +
        '\nx,' +
        Array(30).fill('1').join(',') +
        '\n',
    );
    const out = drawText(wide, config('table'), { width: 60, ansi: false });
    for (const l of lines(out)) expect(visible(l)).toBeLessThanOrEqual(60);
    expect(out).toMatch(/more columns/);
  });

  it('empty data says so', () => {
    for (const type of TYPES)
      expect(drawText({ header: [], rows: [] }, config(type), { width: 40, ansi: false })).toMatch(
        /No (numbers|data) to draw/,
      );
  });
});
