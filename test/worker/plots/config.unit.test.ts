// The plot config languages: slicing selectors, colour instructions, table cell
// instructions, cell formats and the legend; each strict reading names the line it refuses.
import { describe, expect, it } from 'vitest';
import { cellConfigProblem, tableStyles } from '../../../src/plots/cell';
import { cellPaints, chartPaints } from '../../../src/plots/color-apply';
import { chartData } from '../../../src/plots/chart-data';
import { colorsProblem, colorTypeProblem, paintShade, parseColors, resolveDomain } from '../../../src/plots/colors';
import { legendProblem, readLegend } from '../../../src/plots/legend';
import { cellFormat } from '../../../src/plots/number-format';
import { FAMILY_NAMES, namedColor, seriesColor } from '../../../src/plots/palette';
import {
  axisCovers,
  axisHas,
  axisMask,
  MAX_INSTRUCTIONS,
  parseAxis,
  parseInstructions,
} from '../../../src/plots/selector';
import { toNumber, toTime } from '../../../src/plots/values';
import { config, table } from './fixtures';

/** The indices an axis selects of `n`. */
const picks = (token: string, n: number) => {
  const axis = parseAxis(token);
  if (typeof axis === 'string') throw new Error(axis);
  return [...axisMask(axis, n)].flatMap((v, i) => (v ? [i] : []));
};

describe('selectors: Python slices over rows and columns (the header is row 0, the index column 0)', () => {
  it.each([
    [':', [0, 1, 2, 3, 4]],
    ['1:', [1, 2, 3, 4]],
    [':-1', [0, 1, 2, 3]],
    ['1:-1', [1, 2, 3]],
    ['-1', [4]],
    ['-2:', [3, 4]],
    ['2', [2]],
    ['0,2,4', [0, 2, 4]],
    ['4,1', [1, 4]],
    ['::2', [0, 2, 4]],
    ['1::2', [1, 3]],
    ['4:0:-1', [1, 2, 3, 4]],
    ['::-2', [0, 2, 4]],
    ['0,3:', [0, 3, 4]],
    ['9', []],
    ['-9', []],
    ['3:100', [3, 4]],
    ['-100:2', [0, 1]],
  ])('%s of 5 selects %j', (token, expected) => expect(picks(token, 5)).toEqual(expected));

  it("the client's Selector output: every data row, every data column", () => {
    // df.loc[:, :] on a 3x2 frame: rows 1..3 and columns 1..2 of the grid.
    const ins = parseInstructions('1,2,3 1,2 bg red');
    expect(ins.error).toBeUndefined();
    expect(picks('1,2,3', 4)).toEqual([1, 2, 3]);
    expect(ins.instructions[0]!.args).toEqual(['bg', 'red']);
  });

  it('a mask stops at its limit; single lookups and coverage agree with it', () => {
    const axis = parseAxis('1:') as ReturnType<typeof parseAxis> & object;
    expect(axisMask(axis as never, 100_001, 3)).toEqual(new Uint8Array([0, 1, 1]));
    expect(axisHas(axis as never, 10, 0)).toBe(false);
    expect(axisHas(axis as never, 10, 9)).toBe(true);
    expect(axisCovers(parseAxis('1:3,3:') as never, 10, 1, 10)).toBe(true);
    expect(axisCovers(parseAxis('1:3,4:') as never, 10, 1, 10)).toBe(false);
  });

  it.each([
    ['a', /not a selector/],
    ['1:2:3:4', /not a selector/],
    ['1.5', /whole numbers/],
    ['::0', /step cannot be zero/],
    ['1,,2', /not a selector/],
  ])('%s is refused', (token, why) => expect(parseAxis(token)).toMatch(why));

  it('comments after --, blank lines, and \\r\\n are fine; errors name the line', () => {
    const r = parseInstructions('-- all of it\n\n: : < -- left\r\n1: 1: >\n');
    expect(r.error).toBeUndefined();
    expect(r.instructions.map((i) => i.line)).toEqual([3, 4]);
    expect(parseInstructions(': :\n')).toMatchObject({ line: 1, error: expect.stringMatching(/^line 1: expected/) });
    expect(parseInstructions(': : <\nx : <\n')).toMatchObject({
      line: 2,
      error: expect.stringMatching(/^line 2: rows/),
    });
  });

  it(`at most ${MAX_INSTRUCTIONS} instructions in one entry`, () => {
    expect(parseInstructions(': : <\n'.repeat(MAX_INSTRUCTIONS)).error).toBeUndefined();
    expect(parseInstructions(': : <\n'.repeat(MAX_INSTRUCTIONS + 1)).line).toBe(MAX_INSTRUCTIONS + 1);
  });
});

describe('colours: a Tailwind palette, the colours of intent, hex', () => {
  it('a family without a step is its 500; a step is mirrored in the dark theme', () => {
    expect(namedColor('blue')).toEqual({ light: '#3b82f6', dark: '#3b82f6' });
    expect(namedColor('gray-300')).toEqual({ light: '#d1d5db', dark: '#374151' });
    expect(namedColor('pink-500')).toEqual({ light: '#ec4899', dark: '#ec4899' });
    expect(namedColor('grey-100')).toEqual(namedColor('gray-100'));
  });
  it('good, neutral and bad have their own light and dark values, and steps of their family', () => {
    expect(namedColor('good')).toEqual({ light: '#16a34a', dark: '#4ade80' });
    expect(namedColor('bad')).toEqual({ light: '#dc2626', dark: '#f87171' });
    expect(namedColor('neutral')?.light).toBe('#9ca3af');
    expect(namedColor('bad-700')?.light).toBe('#b91c1c');
  });
  it('#rgb and #rrggbb are themselves in both themes; anything else is not a colour', () => {
    expect(namedColor('#F80')).toEqual({ light: '#ff8800', dark: '#ff8800' });
    expect(namedColor('#123456')).toEqual({ light: '#123456', dark: '#123456' });
    for (const bad of ['#12', '#1234567', 'blue-50', 'blue-1000', 'chartreuse', 'url(x)', ''])
      expect(namedColor(bad), bad).toBeUndefined();
  });
  it('21 families of nine steps, ten series colours', () => {
    expect(FAMILY_NAMES).toHaveLength(21);
    for (const f of FAMILY_NAMES) for (let s = 100; s <= 900; s += 100) expect(namedColor(`${f}-${s}`)).toBeDefined();
    expect(seriesColor(10)).toEqual(seriesColor(0));
  });
});

describe('colour instructions', () => {
  it('static and dynamic lines as the clients write them', () => {
    const c = parseColors(
      ': : bg gray-300 pink-500\n1: 1 fg red,green(_,_)^lin\n: 2 bg bad,neutral,good(_,0,_)^lin\n: 1 bg red,green(_,_)^lin blue,purple(_,_)^lin\n',
    );
    expect(c.rules).toHaveLength(4);
    expect(c.rules[0]).toMatchObject({
      plane: 'bg',
      paint: { kind: 'static', shade: { light: '#d1d5db', dark: '#ec4899' } },
    });
    expect(c.rules[1]).toMatchObject({
      plane: 'fg',
      paint: { kind: 'dynamic', domain: [undefined, undefined], scale: 'lin' },
    });
    expect(c.rules[2]!.paint).toMatchObject({ kind: 'dynamic', domain: [undefined, 0, undefined] });
    expect(c.rules[3]!.paint).toMatchObject({ dark: ['#3b82f6', '#a855f7'] });
  });

  it('plain colour lines colour the series in order; a line without a plane is bg', () => {
    const c = parseColors('red\nblue-300 #000\n: 1 orange\n');
    expect(c.series).toEqual([namedColor('red'), { light: '#93c5fd', dark: '#000000' }]);
    expect(c.rules[0]).toMatchObject({ plane: 'bg', paint: { shade: namedColor('orange') } });
  });

  it('unknown colours are skipped when drawing, refused with their line when written', () => {
    const text = ': : bg blue\n: 1 bg chartreuse\n';
    expect(parseColors(text).rules).toHaveLength(1);
    expect(colorsProblem(text)).toMatch(/^line 2: unknown colour 'chartreuse'/);
    expect(colorsProblem(': : bg red,green(1,2,3)\n')).toMatch(/^line 1: .*3 values for 2 colours/);
    expect(colorsProblem(': : bg red,green(_,_)^cubic\n')).toMatch(/^line 1: .*scale/);
    expect(colorsProblem(': : bg red green blue\n')).toMatch(/^line 1/);
    expect(colorsProblem('x y z w\n')).toMatch(/^line 1/);
    expect(colorsProblem(': : bg red,green(_,_)^lin blue\n')).toMatch(/^line 1: the dark colour/);
    expect(colorsProblem('')).toBeUndefined();
    expect(colorsProblem(': : bg red -- a comment\nblue\n')).toBeUndefined();
  });

  it('colour type: ix, clr or nothing', () => {
    expect(colorTypeProblem('ix')).toBeUndefined();
    expect(colorTypeProblem(' clr\n')).toBeUndefined();
    expect(colorTypeProblem('')).toBeUndefined();
    expect(colorTypeProblem('pack')).toMatch(/ix or clr/);
  });

  it('dynamic colours: _ from the data, a middle stop, the scales', () => {
    const [rule] = parseColors(': : bg #000000,#ffffff(_,_)\n').rules;
    const d = resolveDomain([undefined, undefined], 0, 10);
    expect(d).toEqual([0, 10]);
    expect(paintShade(rule!.paint, 5, d).light).toBe('#808080');
    expect(paintShade(rule!.paint, -5, d).light).toBe('#000000');
    expect(paintShade(rule!.paint, 50, d).light).toBe('#ffffff');
    expect(resolveDomain([undefined, undefined, undefined], 0, 10)).toEqual([0, 5, 10]);
    expect(resolveDomain([undefined, 0, undefined], -4, 10)).toEqual([-4, 0, 10]);
    const [pow] = parseColors(': : bg #000000,#ffffff(0,10)^pow\n').rules;
    expect(paintShade(pow!.paint, 5, [0, 10]).light).toBe('#404040');
  });

  it('charts: whole-series instructions colour the series, row instructions only their marks', () => {
    const t = table(',A,B\nx,1,5\ny,2,6\nz,3,7\n');
    const data = chartData(t);
    const p = chartPaints(data, 3, parseColors(': 2 bg red\n2 1 bg green\n'), 3);
    expect(p.series[1]).toEqual(namedColor('red'));
    expect(p.series[0]).toEqual(seriesColor(0));
    expect(p.mark(0, 1)).toEqual(namedColor('green'));
    expect(p.mark(0, 0)).toEqual(seriesColor(0));
    // The client's own selector for a column: every data row.
    expect(chartPaints(data, 3, parseColors('1,2,3 1 bg orange\n'), 0).series[0]).toEqual(namedColor('orange'));
  });

  it('tables: bg and fg per cell, a dynamic domain from the selected numbers', () => {
    const t = table(',A,B\nx,0,text\ny,10,5\n');
    const p = cellPaints(t, parseColors('1: 1: bg #000000,#ffffff(_,_)\n0 : fg red\n'), 3);
    expect(p.bg(1, 1)?.light).toBe('#000000');
    expect(p.bg(2, 1)?.light).toBe('#ffffff');
    expect(p.bg(2, 2)?.light).toBe('#808080');
    expect(p.bg(1, 2)).toBeUndefined(); // text: left as it was
    expect(p.fg(0, 0)).toEqual(namedColor('red'));
  });
});

describe('table cell instructions', () => {
  const t = table(',A,B\nx,1234.5,0.25\ny,-2,0.5\n');
  const styles = (cell: Partial<ReturnType<typeof config>['cell']>) =>
    tableStyles(t, { ...config('table').cell, ...cell }, 3);

  it('align: glyphs, combined, later lines win', () => {
    const s = styles({ align: ': : <\n: 1: >\n0 : -^\n' });
    expect(s.style(1, 0)).toMatchObject({ h: 'left', v: 'middle' });
    expect(s.style(1, 2)).toMatchObject({ h: 'right' });
    expect(s.style(0, 1)).toMatchObject({ h: 'center', v: 'top' });
  });

  it('format, border, padding, text and width', () => {
    const s = styles({
      format: '1: 1 ,.1f\n1: 2 .0%\n',
      border: ': : a 1 gray-400\n0 : b 3\n1 : t 0\n',
      padding: ': 0 l 3\n',
      text: '0 : r\n-1 : bi lg mono red\n1: 2 -\n',
      width: ': 1 x 80\n: 2 120 i\n: 0 f 50\n',
    });
    expect(s.style(1, 1).format!('1234.5')).toBe('1,234.5');
    expect(s.style(1, 2).format!('0.25')).toBe('25%');
    expect(s.style(0, 1).border.b).toMatchObject({ size: 3 });
    expect(s.style(0, 1).border.l).toMatchObject({ size: 1, color: namedColor('gray-400') });
    expect(s.style(1, 1).border.t).toBeUndefined();
    expect(s.style(2, 0).pad.l).toBe(8);
    expect(s.style(0, 1).bold).toBe(false);
    expect(s.style(2, 1)).toMatchObject({ bold: true, italic: true, size: 16, color: namedColor('red') });
    expect(s.style(2, 1).family).toMatch(/mono/);
    expect(s.style(1, 2).blank).toBe(true);
    expect(s.widths).toEqual([{ fixed: 50 }, { max: 80 }, { min: 120 }]);
  });

  it('the header is bold unless told otherwise', () => {
    expect(styles({}).style(0, 1).bold).toBe(true);
    expect(styles({}).style(1, 1).bold).toBe(false);
  });

  it.each([
    ['align', ': : x\n', /^line 1: 'x' is not an alignment/],
    ['align', ': : <\n: : <>\n', /^line 2/],
    ['format', ': : ,.2q\n', /^line 1: .*not a format/],
    ['border', ': : q 1\n', /^line 1: 'q' is not a side/],
    ['border', ': : a 9\n', /^line 1: .*size is 0-5/],
    ['border', ': : a 1 nocolour\n', /^line 1: unknown colour/],
    ['padding', ': : l\n', /^line 1: .*size/],
    ['text', ': : bz\n', /^line 1: 'bz' is not a text style/],
    ['width', ': 1 z 10\n', /^line 1: width is/],
    ['width', ': 1 x\n', /^line 1: width is/],
    ['align', ': <\n', /^line 1: expected/],
    ['align', 'a b <\n', /^line 1: rows/],
  ])('%s %j is refused', (file, text, why) =>
    expect(cellConfigProblem(`config/table/cell/${file}`, text)).toMatch(why),
  );

  it('the documented examples are accepted', () => {
    const ok: [string, string][] = [
      ['align', '   :     :     <   -- left align everything\n   :    1:     -   -- center\n'],
      ['format', ' 1:-1  1:     ,.1%\n-1     1:     5s\n :    1       .2m\n :    2      $.3m\n :    3      .4m$\n'],
      ['border', ': : a 1 gray-400 -- add a gray grid\n0 : b 2\n'],
      ['padding', ': : x 2\n: 0 l 4\n'],
      ['text', '  0   :   b\n 1:   :   i\n -1   :   bi\n  :   1   -\n  :   :   - lg\n'],
      ['width', ':  0  x  200\n:  1  i  200\n:  2  f  200\n'],
    ];
    for (const [file, text] of ok) expect(cellConfigProblem(file, text), file).toBeUndefined();
    expect(cellConfigProblem('config/table/cell/merge', '')).toMatch(/not a table cell file/);
  });
});

describe('cell formats: Python format mini-language and novem s and m', () => {
  const f = (spec: string, v: string) => {
    const fmt = cellFormat(spec);
    if (typeof fmt === 'string') throw new Error(fmt);
    return fmt(v);
  };
  it.each([
    [',.2f', '1234.5678', '1,234.57'],
    ['.1%', '0.123', '12.3%'],
    [',.0f', '-1234567', '-1,234,567'],
    ['+.3e', '1234.6', '+1.235e+03'],
    ['.3E', '0.00012', '1.200E-04'],
    ['>10.1f', '3.14159', '       3.1'],
    ['08.2f', '3.14159', '00003.14'],
    ['g', '0.5000', '0.5'],
    ['_.0f', '1234567', '1_234_567'],
    ['d', '42', '42'],
    ['1s', '1234567', '1.2M'],
    ['2s', '0.00123', '1.23m'],
    ['1s', '999.96', '1.0k'],
    ['m', '1234567', '1.2M'],
    ['.2m', '-2500', '-2.50K'],
    ['$.3m', '1234567890', '$1.235B'],
    ['.1m€', '5', '5.0€'],
    ['%Y-%m', '2024-03-15', '2024-03'],
    ['%d %b %Y', '2024-03-15 10:00:00', '15 Mar 2024'],
  ])('%s formats %s as %s', (spec, v, out) => expect(f(spec, v)).toBe(out));

  it('a cell the format is not for is shown as written', () => {
    expect(f(',.2f', 'n/a')).toBe('n/a');
    expect(f(',.2f', '')).toBe('');
    expect(f('%Y', 'soon')).toBe('soon');
  });

  it('what pandas never writes as a number is not one', () => {
    for (const s of ['0x1f', 'Infinity', 'nan', 'inf', '', ' ', '1,000', '1e400']) expect(toNumber(s), s).toBeNaN();
    expect(toNumber(' -1.5e3 ')).toBe(-1500);
    expect(toTime('2024-02-30')).not.toBeNaN(); // Date.UTC rolls over, as pandas never writes it
    expect(toTime('2024-01-01T00:00:00Z')).toBe(Date.UTC(2024, 0, 1));
    expect(toTime('2024-01-01 01:00:00+01:00')).toBe(Date.UTC(2024, 0, 1));
    expect(toTime('2024-13-01')).toBeNaN();
  });
});

describe('legend', () => {
  it('position, layout and format, with defaults', () => {
    expect(readLegend(config('line').legend)).toEqual({
      position: 'top',
      explicit: false,
      layout: 'row',
      format: '.1%',
    });
    expect(readLegend({ position: 'right', layout: '', format: ',.0f', type: '' })).toMatchObject({
      position: 'right',
      explicit: true,
      layout: 'column',
      format: ',.0f',
    });
    expect(readLegend({ position: 'hide', layout: 'row', format: 'zz', type: 'x' })).toMatchObject({
      position: 'none',
      format: '.1%',
    });
  });
  it('problems for writes', () => {
    expect(legendProblem('position', 'middle')).toMatch(/top, bottom, left, right or none/);
    expect(legendProblem('config/legend/layout', 'grid')).toMatch(/row or column/);
    expect(legendProblem('format', ',.2q')).toMatch(/not a format/);
    expect(legendProblem('type', 'anything')).toBeUndefined();
    expect(legendProblem('position', 'bottom')).toBeUndefined();
  });
});
