// Pure modules of the docs area: content-type sniffing, variable formatting and
// validation, names. No I/O.
import { describe, expect, it } from 'vitest';
import { ASSET_TYPES, checkUpload, isSvg, sniffType, svgProblem } from '../../../src/core/sniff';
import { assetNameProblem, etagMatches } from '../../../src/docs/assets';
import { THEME_NAMES, themeProblem } from '../../../src/docs/kind';
import { THEMES } from '../../../src/markup/themes';
import {
  ansiVar,
  bandOf,
  formatVar,
  MAX_FORMAT_PRECISION,
  MAX_FORMAT_WIDTH,
  varAttrProblem,
  varsFromEntries,
  VAR_DEFAULTS,
  type DocVar,
} from '../../../src/docs/vars';
import { FILES, PNG } from './fixtures';

const v = (fields: Partial<DocVar>): DocVar => ({ name: 'x', ...VAR_DEFAULTS, ...fields });
const enc = (s: string) => new TextEncoder().encode(s);

describe('sniffing: the nine asset types are told by their bytes', () => {
  it.each(Object.keys(FILES))('%s is recognised', (type) => {
    expect(sniffType(FILES[type]!)).toBe(type);
    expect(checkUpload(type, FILES[type]!)).toEqual({ ok: true, type });
  });
  it('there are exactly nine allowed types', () => expect(ASSET_TYPES).toHaveLength(9));
  it('a PNG body labelled image/jpeg is rejected with 400', () => {
    const r = checkUpload('image/jpeg', PNG);
    expect(r).toMatchObject({ ok: false, status: 400 });
    expect(!r.ok && r.message).toMatch(/image\/png/);
  });
  it('a type outside the nine is 415, whatever the bytes', () => {
    expect(checkUpload('application/pdf', enc('%PDF-1.4'))).toMatchObject({ ok: false, status: 415 });
    expect(checkUpload('', PNG)).toMatchObject({ ok: false, status: 415 });
  });
  it('an empty body is 400', () =>
    expect(checkUpload('image/png', new Uint8Array())).toMatchObject({ ok: false, status: 400 }));
  it('parameters on the Content-Type are ignored', () =>
    expect(checkUpload('image/svg+xml; charset=utf-8', FILES['image/svg+xml']!).ok).toBe(true));
  it('random bytes are nothing', () => expect(sniffType(enc('hello world'))).toBeNull());
});

describe('SVG must be XML with an <svg> root', () => {
  it.each([
    '<svg xmlns="http://www.w3.org/2000/svg"/>',
    '\uFEFF<?xml version="1.0" encoding="UTF-8"?><!-- c --><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"><svg><g/></svg>',
    '  <svg width="2">\n</svg>\n<!-- trailing -->',
  ])('accepts %j', (s) => expect(isSvg(enc(s))).toBe(true));
  it.each([
    '<html><svg></svg></html>',
    'svg',
    '<svg>',
    '<svgx></svgx>',
    '<?xml version="1.0"?><foo/>',
    '{"svg": true}',
  ])('rejects %j', (s) => expect(isSvg(enc(s))).toBe(false));
  it('rejects invalid UTF-8 and NUL bytes', () => {
    expect(isSvg(new Uint8Array([0x3c, 0x73, 0x76, 0x67, 0xff, 0x3e]))).toBe(false);
    expect(isSvg(enc('<svg>\u0000</svg>'))).toBe(false);
  });
  it('image/svg+xml with PNG bytes is 400', () =>
    expect(checkUpload('image/svg+xml', PNG)).toMatchObject({ ok: false, status: 400 }));
});

describe('SVG must be well-formed XML', () => {
  const realWorld = {
    'Inkscape-style with namespaces, declaration, comments and metadata': `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!-- Created with Inkscape (http://www.inkscape.org/) -->
<svg xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
   xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width='210mm' height="297mm" viewBox="0 0 210 297" version="1.1">
  <sodipodi:namedview id="base" pagecolor="#ffffff"/>
  <defs><linearGradient id="g"><stop offset="0" style="stop-color:#000"/></linearGradient></defs>
  <g id="layer1"><path d="M 10,10 H 50 V 50 Z" style="fill:url(#g)"/><use xlink:href="#g"/></g>
  <text x="1" y="2">Tom &amp; Jerry &lt;3 &#160;&#xA0; &quot;hi&quot; &apos;</text>
</svg>
`,
    'a CDATA style block and a processing instruction': `<?xml-stylesheet href="s.css" type="text/css"?><svg xmlns="http://www.w3.org/2000/svg"><style><![CDATA[ a > b { fill: red } /* & < */ ]]></style><?pi data?></svg>`,
    'a public doctype': `<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg version="1.1"><title>x > y</title></svg>`,
    'a prefixed root': `<svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:rect width = "1" height='1' /></svg:svg>`,
    'the fixture': new TextDecoder().decode(FILES['image/svg+xml']),
  };
  it.each(Object.entries(realWorld))('accepts %s', (_, s) => expect(svgProblem(s)).toBeUndefined());

  it.each([
    ['an unclosed inner element', '<svg><g></svg>', /closes <g>/],
    ['an unknown entity', '<svg>&nosuch;</svg>', /&/],
    ['a stray <', '<svg> a < b </svg>', /"<"/],
    ['a stray &', '<svg> a & b </svg>', /"&"/],
    ['an unterminated attribute', '<svg width="1></svg>', /unterminated value/],
    ['two roots', '<svg></svg><svg></svg>', /second root/],
    ['a repeated attribute', '<svg a="1" a="2"/>', /repeated/],
    ['an unquoted attribute', '<svg width=1/>', /not quoted/],
    ['an attribute without value', '<svg hidden/>', /no value/],
    ['attributes run together', '<svg a="1"b="2"/>', /malformed attribute/],
    ['"<" in an attribute value', '<svg a="<"/>', /"<" in the value/],
    ['a bad reference in an attribute', '<svg a="&x;"/>', /"&"/],
    ['a mismatched end tag', '<svg><g></h></svg>', /closes <g>/],
    ['an end tag closing nothing', '<svg/></g>', /closes nothing/],
    ['a root never closed', '<svg><g/>', /never closed/],
    ['text after the root', '<svg/>junk', /text after/],
    ['text before the root', 'hello <svg/>', /text before/],
    [
      'a doctype with an internal subset (entity expansion)',
      '<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg>&a;</svg>',
      /internal subset/,
    ],
    ['"--" inside a comment', '<!-- a -- b --><svg/>', /--/],
    ['an unterminated comment', '<svg/><!-- x', /unterminated comment/],
    ['an unterminated CDATA section', '<svg><![CDATA[ x </svg>', /unterminated CDATA/],
    ['"]]>" in text', '<svg>a]]>b</svg>', /]]>/],
    ['a declaration not at the start', ' <?xml version="1.0"?><svg/>', /not at the start/],
    ['a malformed declaration', '<?xml encoding="UTF-8"?><svg/>', /declaration/],
    ['a reference to a forbidden character', '<svg>&#0;</svg>', /not allow/],
    ['a control character', '<svg>\u0001</svg>', /not allowed/],
    ['a root other than svg', '<?xml version="1.0"?><html/>', /not <svg>/],
    ['no root at all', '<!-- nothing -->', /no root/],
    ['a tag cut off at the end', '<svg', /unterminated tag/],
  ])('rejects %s', (_, s, why) => expect(svgProblem(s)).toMatch(why));

  it('checkUpload says what is wrong with an SVG', () => {
    const r = checkUpload('image/svg+xml', enc('<svg><g></svg>'));
    expect(r).toMatchObject({ ok: false, status: 400 });
    expect(!r.ok && r.message).toMatch(/well-formed.*closes <g>/);
  });

  it('stays linear on 5 MiB of adversarial input', () => {
    const cases = [
      '<svg>' + '&amp;'.repeat(1_000_000) + '</svg>',
      '<svg>' + '<g>'.repeat(1_000_000) + '</g>'.repeat(1_000_000) + '</svg>',
      '<svg ' + 'a'.repeat(5_000_000),
      '<svg>' + ']]'.repeat(2_500_000),
    ];
    const start = Date.now();
    expect(svgProblem(cases[0]!)).toBeUndefined();
    expect(svgProblem(cases[1]!)).toBeUndefined();
    expect(svgProblem(cases[2]!)).toBeDefined();
    expect(svgProblem(cases[3]!)).toBeDefined();
    // Many short text runs between elements: each must not rescan the rest for "]]>".
    expect(svgProblem('<svg>' + '<a/> '.repeat(1_000_000) + '</svg>')).toBeUndefined();
    expect(Date.now() - start).toBeLessThan(5000);
  });
});

describe('asset names: [a-z0-9][a-z0-9-]*(.[a-z0-9]+)?, at most 64 characters', () => {
  it.each(['logo.png', 'a', 'font-2.woff2', '0'])('accepts %s', (n) => expect(assetNameProblem(n)).toBeUndefined());
  it.each(['Logo.png', '-a', 'a.b.c', 'a_b', 'a.', '.png', 'a b'])('rejects %s', (n) =>
    expect(assetNameProblem(n)).toMatch(/invalid/),
  );
  it('64 characters pass, 65 do not', () => {
    expect(assetNameProblem('a'.repeat(60) + '.png')).toBeUndefined();
    expect(assetNameProblem('a'.repeat(61) + '.png')).toMatch(/64/);
  });
});

describe('If-None-Match', () => {
  it('matches the ETag, a weak form of it, one of a list, or *', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', '"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
  });
  it('does not match another tag, nothing, or garbage', () => {
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
    expect(etagMatches(null, '"abc"')).toBe(false);
    expect(etagMatches('"', '"abc"')).toBe(false);
  });
});

describe('theme names', () => {
  it.each([...THEME_NAMES, '+acme/brand', '+acme/dark-2'])('accepts %s', (t) =>
    expect(themeProblem(t)).toBeUndefined(),
  );
  it.each(['', 'Dark', '+acme', 'acme/brand', '+acme/', '+/x', 'a b'])('rejects %j', (t) =>
    expect(themeProblem(t)).toBeDefined(),
  );
  it("config/theme accepts only the renderer's built-in theme names (unknown names are 400)", () => {
    expect(THEME_NAMES).toEqual(Object.keys(THEMES));
    expect(themeProblem('nosuchtheme')).toMatch(/use one of default, dark/);
    expect(themeProblem('dark-2')).toBeDefined();
  });
});

describe('variable formatting (d3-format, Python-style specs)', () => {
  it('number with ,.2f groups thousands', () =>
    expect(formatVar(v({ value: '1234567.891', format: ',.2f' })).text).toBe('1,234,567.89'));
  it('number with .1% is a percentage', () =>
    expect(formatVar(v({ value: '0.256', format: '.1%' })).text).toBe('25.6%'));
  it('negative numbers use the minus sign U+2212', () =>
    expect(formatVar(v({ value: '-3.5', format: '.1f' })).text).toBe('\u22123.5'));
  it('a number without a format shows its shortest form', () => expect(formatVar(v({ value: '42' })).text).toBe('42'));
  it('a number has no colour band', () =>
    expect(formatVar(v({ value: '-5' }))).toMatchObject({ band: 'none', color: '' }));
  it('relative values show an up arrow and a plus sign', () =>
    expect(formatVar(v({ type: 'relative', value: '0.031', format: '.1%' }))).toEqual({
      text: '↑ +3.1%',
      band: 'up',
      color: '#1a7f37',
    }));
  it('relative negatives show a down arrow and U+2212', () =>
    expect(formatVar(v({ type: 'relative', value: '-2.5', format: ',.1f' }))).toEqual({
      text: '↓ \u22122.5',
      band: 'down',
      color: '#cf222e',
    }));
  it('+,.1% keeps its sign', () =>
    expect(formatVar(v({ type: 'relative', value: '1234.5', format: '+,.1%' })).text).toBe('↑ +123,450.0%'));
  it('relative zero has no arrow and no band', () =>
    expect(formatVar(v({ type: 'relative', value: '0' }))).toEqual({ text: '+0', band: 'none', color: '' }));
  it('thresholds pick the band: above the highest up, below the lowest down, between none', () => {
    expect(bandOf(3, '-5,5')).toBe('none');
    expect(bandOf(6, '-5,5')).toBe('up');
    expect(bandOf(-6, '-5,5')).toBe('down');
    expect(bandOf(6, '10')).toBe('down');
    expect(bandOf(0.5, '')).toBe('up');
    expect(formatVar(v({ type: 'relative', value: '3', threshold: '-5,5' })).band).toBe('none');
  });
  it('dates format with strftime directives', () =>
    expect(formatVar(v({ type: 'date', value: '2024-03-05', format: '%d %b %Y' })).text).toBe('05 Mar 2024'));
  it('dates without a format read as written', () =>
    expect(formatVar(v({ type: 'date', value: '2024-03-05' })).text).toBe('2024-03-05'));
  it('text is shown as written', () => expect(formatVar(v({ type: 'text', value: 'hello' })).text).toBe('hello'));
  it('a value that does not suit its type shows as written and never throws', () => {
    expect(formatVar(v({ value: 'n/a', format: ',.2f' })).text).toBe('n/a');
    expect(formatVar(v({ type: 'date', value: '2024-01-01', format: ',.2f' })).text).toBe('2024-01-01');
  });
  it('ansi wraps the value in green (up) or red (down), plain otherwise', () => {
    expect(ansiVar({ text: '↑ +1', band: 'up', color: '' })).toBe('\u001b[32m↑ +1\u001b[0m');
    expect(ansiVar({ text: '↓ \u22121', band: 'down', color: '' })).toBe('\u001b[31m↓ \u22121\u001b[0m');
    expect(ansiVar({ text: '7', band: 'none', color: '' })).toBe('7');
  });
});

describe('variable attributes are validated', () => {
  it('value is at most 50 characters', () => {
    expect(varAttrProblem('value', '1'.repeat(50), v({}))).toBeUndefined();
    expect(varAttrProblem('value', '1'.repeat(51), v({}))).toMatch(/50/);
  });
  it('value must suit the type', () => {
    expect(varAttrProblem('value', 'abc', v({}))).toMatch(/not a number/);
    expect(varAttrProblem('value', 'abc', v({ type: 'text' }))).toBeUndefined();
    expect(varAttrProblem('value', '2024-13-45', v({ type: 'date' }))).toMatch(/ISO date/);
    expect(varAttrProblem('value', '\u22121.5', v({}))).toBeUndefined();
  });
  it('type is number, relative, date or text, and must suit the stored value and format', () => {
    expect(varAttrProblem('type', 'percent', v({}))).toMatch(/number, relative, date, text/);
    expect(varAttrProblem('type', 'date', v({ value: '12' }))).toMatch(/change or clear the value/);
    expect(varAttrProblem('type', 'date', v({ format: ',.2f' }))).toMatch(/change or clear the format/);
    expect(varAttrProblem('type', 'relative', v({ value: '12', format: ',.2f' }))).toBeUndefined();
  });
  it('format must be a valid spec for the type', () => {
    expect(varAttrProblem('format', ',.2f', v({}))).toBeUndefined();
    expect(varAttrProblem('format', '+,.1%', v({ type: 'relative' }))).toBeUndefined();
    expect(varAttrProblem('format', 'abc', v({}))).toMatch(/Python-style/);
    expect(varAttrProblem('format', '%Y-%m-%d', v({ type: 'date' }))).toBeUndefined();
    expect(varAttrProblem('format', '%Y-%k', v({ type: 'date' }))).toMatch(/date format/);
  });
  it('about is at most 250 characters', () => expect(varAttrProblem('about', 'a'.repeat(251), v({}))).toMatch(/250/));
  it('threshold is comma-separated numbers', () => {
    expect(varAttrProblem('threshold', '-5, 5', v({}))).toBeUndefined();
    expect(varAttrProblem('threshold', '5,high', v({}))).toMatch(/comma-separated/);
  });
  it('stored entries fold into variables with defaults', () => {
    const vars = varsFromEntries(
      new Map([
        ['vars/b/value', '2'],
        ['vars/a/type', 'text'],
        ['vars/a/value', 'hi'],
        ['vars/a/junk', 'x'],
      ]),
    );
    expect(vars).toEqual([
      { name: 'a', value: 'hi', type: 'text', format: '', about: '', threshold: '' },
      { name: 'b', value: '2', type: 'number', format: '', about: '', threshold: '' },
    ]);
  });
});

describe('number formats: width at most 64, precision at most 20', () => {
  const num = (over: Partial<DocVar>): DocVar => ({ name: 'x', ...VAR_DEFAULTS, ...over });
  it('a write above a bound is refused naming it', () => {
    expect(varAttrProblem('format', '150000000d', num({}))).toBe(
      `the format's width is at most ${MAX_FORMAT_WIDTH} (got 150000000)`,
    );
    expect(varAttrProblem('format', '>065,.2f', num({ type: 'relative' }))).toContain('width is at most 64');
    expect(varAttrProblem('format', '.21f', num({}))).toBe(
      `the format's precision is at most ${MAX_FORMAT_PRECISION} (got 21)`,
    );
    expect(varAttrProblem('format', '64,.20f', num({}))).toBeUndefined();
    expect(varAttrProblem('format', '999999%Y', num({ type: 'date' }))).toBeUndefined();
  });
  it('a stored format above a bound formats clamped', () => {
    expect(formatVar(num({ value: '7', format: '150000000d' })).text).toBe(' '.repeat(63) + '7');
    expect(formatVar(num({ value: '7', format: '0150000000d', type: 'relative' })).text).toBe(`↑ +${'0'.repeat(62)}7`);
    expect(formatVar(num({ value: '1', format: '.99999f' })).text).toBe(`1.${'0'.repeat(20)}`);
  });
});
