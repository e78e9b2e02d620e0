/** Mapping parser, meta_data builder and the page renderer (pure functions). */
import { describe, expect, it } from 'vitest';
import { buildData, buildMeta, lidFor } from '../../../src/grids/build';
import { placeCells, renderGridPage } from '../../../src/grids/html';
import { escapeHtml } from '../../../src/markup/escape';
import { parseLayout } from '../../../src/grids/layout';
import { flag, parseMapping } from '../../../src/grids/mapping';

const meta = (text: string) => buildMeta(parseMapping(text), 3);
const entry = (label: string, ref: string, params: Record<string, string | boolean> = {}) => ({
  [label]: { lid: lidFor(3, label), ref, params: { include_header: false, include_caption: false, ...params } },
});

describe('mapping rules', () => {
  it('one binding per line: LABEL => /u/<user>/p/<plot>', () => {
    expect(meta('A => /u/ann/p/sales\nB=>/u/bob/p/costs')).toEqual({
      ...entry('A', '/u/ann/p/sales'),
      ...entry('B', '/u/bob/p/costs'),
    });
  });
  it('whitespace anywhere on a line is ignored', () => {
    expect(meta('  A \t=  > / u/ann /p/ sales , h = t ,  c= true  ')).toEqual(
      entry('A', '/u/ann/p/sales', { include_header: true, include_caption: true }),
    );
  });
  it('lines without => are skipped', () => {
    expect(meta('# comment\nA -> /u/ann/p/x\n\nA = /u/ann/p/y\nB => /u/ann/p/b')).toEqual(entry('B', '/u/ann/p/b'));
  });
  it('the last line of a label wins', () => {
    expect(meta('A => /u/ann/p/one, h=t\nA => /u/ann/p/two')).toEqual(entry('A', '/u/ann/p/two'));
  });
  it('a reference may be a bare shortname, kept as written', () => {
    expect(meta('A => x7Kq_a-1')).toEqual(entry('A', 'x7Kq_a-1'));
  });
  it('a line with an invalid label or reference is skipped (an earlier line of the label stays)', () => {
    expect(meta('A => /u/ann/p/ok\nA => /nope/x\nA-B => /u/ann/p/z\n => /u/ann/p/q\nC =>')).toEqual(
      entry('A', '/u/ann/p/ok'),
    );
  });
  it.each([
    ['h=t', true],
    ['h=true', true],
    ['h=TRUE', true],
    ['include_header=t', true],
    ['h=f', false],
    ['h=false', false],
    ['h=yes', false],
    ['h=1', false],
    ['h=', false],
  ])('include_header: %s gives %s (any other value falls back to the default false)', (param, value) => {
    expect(meta(`A => /u/ann/p/a, ${param}`).A!.params.include_header).toBe(value);
  });
  it.each([
    ['c=t', true],
    ['include_caption=true', true],
    ['c=f', false],
    ['c=maybe', false],
  ])('include_caption: %s gives %s', (param, value) => {
    expect(meta(`A => /u/ann/p/a, ${param}`).A!.params.include_caption).toBe(value);
  });
  it('a later parameter of a line overrides an earlier one; aliases and full names are one parameter', () => {
    expect(meta('A => /u/ann/p/a, h=t, include_header=f, c=f, c=t').A!.params).toEqual({
      include_header: false,
      include_caption: true,
    });
  });
  it('unknown parameters are kept in meta_data as written but never reach inst', () => {
    const mapping = parseMapping(
      'A => /u/ann/p/a, colour=blue, __proto__=x, constructor=y, size=3=4, novalue, =orphan,,',
    );
    expect(JSON.stringify(buildMeta(mapping, 3).A!.params)).toBe(
      '{"include_header":false,"include_caption":false,"colour":"blue","__proto__":"x","constructor":"y","size":"3=4"}',
    );
    expect(Object.getPrototypeOf(buildMeta(mapping, 3).A!.params)).toBe(Object.prototype);
    const data = buildData(parseLayout('+---+\n|{A}|\n+---+'), mapping, 3);
    expect(data.structure.children[0]!.inst).toEqual({
      lid: lidFor(3, 'A'),
      position: 'middle',
      include_header: false,
      include_caption: false,
    });
  });
  it('labels bound but absent from the layout are listed in meta_data and unused', () => {
    const mapping = parseMapping('A => /u/ann/p/a\nUnused => /u/ann/p/u');
    expect(Object.keys(buildMeta(mapping, 3)).sort()).toEqual(['A', 'Unused']);
  });
  it('an empty mapping gives {}', () => {
    expect(meta('')).toEqual({});
  });
  it('flag reads t/true/f/false in any case', () => {
    expect([flag('t'), flag('True'), flag('F'), flag('x')]).toEqual([true, true, false, false]);
  });
});

describe('rendered page (pure)', () => {
  const layout = parseLayout('+---+-------+\n|{A}| {B:v} |\n+---+-------+\n|   {C:^}   |\n+-----------+');
  const mapping = parseMapping('A => /u/ann/p/a\nC => /u/<script>/p/"x"');
  const data = buildData(layout, mapping, 3);

  it('places each cell at its share of the drawing', () => {
    // 13 columns x 5 rows; A 4.5 x 2.5, B 8.5 x 2.5, C 13 x 2.5
    expect(placeCells(data).map(({ path, x, y, w, h }) => ({ path, x, y, w, h }))).toEqual([
      { path: '0.0', x: 0, y: 0, w: 4.5 / 13, h: 0.5 },
      { path: '0.1', x: 4.5 / 13, y: 0, w: 8.5 / 13, h: 0.5 },
      { path: '1', x: 0, y: 0.5, w: 1, h: 0.5 },
    ]);
  });
  it('escapes every text and uses no script', () => {
    const page = renderGridPage('<b>"grid"</b>', data, buildMeta(mapping, 3), (_i, label, ref) => ({
      missing: `${label} ${ref}`,
    }));
    expect(page.html).not.toContain('<script');
    expect(page.html).not.toContain('<b>');
    expect(page.html).toContain('<h1>&lt;b&gt;&quot;grid&quot;&lt;/b&gt;</h1>');
    expect(page.html).toContain('/u/&lt;script&gt;/p/&quot;x&quot;');
    expect(page.html).toContain(`<style>${page.style}</style>`);
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
  it("a bound cell shows its drawing (its style joins the page's) or its label and why there is none; an unbound cell shows nothing", () => {
    const page = renderGridPage('g', data, buildMeta(mapping, 3), (i, label) =>
      label === 'A' ? { svg: `<svg id="drawn${i}"></svg>`, style: '.drawn{fill:red}' } : { missing: 'no plot to show' },
    );
    expect(page.html).toMatch(/<div class="cell middle" id="c0"[^>]*title="A"><svg id="drawn0"><\/svg><\/div>/);
    expect(page.style).toContain('.drawn{fill:red}');
    expect(page.html).toMatch(/<div class="cell empty bottom" id="c1"[^>]*><\/div>/);
    expect(page.html).toMatch(
      /<div class="cell top" id="c2"[^>]*><span class="label">C<\/span><span class="missing">no plot to show<\/span>/,
    );
    expect(page.html).not.toContain('/u/ann/p/a');
  });
  it('a grid without a layout says so', () => {
    expect(renderGridPage('g', buildData(null, new Map(), 3), {}).html).toContain('no layout yet');
  });
});
