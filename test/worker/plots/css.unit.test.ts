// A plot's custom.css is scoped to the plot: it styles the plot's own elements and nothing else, and loads nothing.
import { describe, expect, it } from 'vitest';
import { scopeCss } from '../../../src/plots/css';

const S = 'plot-7';

/** Every selector of the output, at every level of @media. */
function selectors(css: string): string[] {
  const out: string[] = [];
  for (const m of css.matchAll(/(?:^|[{}])\s*([^{}@][^{}]*)\{/g)) out.push(...m[1]!.split(',').map((s) => s.trim()));
  return out;
}

describe('custom CSS is scoped under the plot', () => {
  it('every selector is under the root, classes and ids prefixed', () => {
    expect(scopeCss('.bar { fill: red } #title, text.tick:hover { font-weight: bold }', S)).toBe(
      `#${S} .${S}-bar{fill:red;}\n#${S} #${S}-title,#${S} text.${S}-tick:hover{font-weight:bold;}`,
    );
  });

  it('@media and @supports keep their scoped rules; other at-rules are dropped', () => {
    const css = [
      '@import url("https://evil.example/x.css");',
      '@charset "utf-8";',
      '@namespace svg url(http://www.w3.org/2000/svg);',
      '@font-face { font-family: x; src: url(https://evil.example/f.woff) }',
      '@keyframes spin { from { opacity: 0 } to { opacity: 1 } }',
      '@media (prefers-color-scheme: dark) { .line { stroke: white } }',
      '@supports (display: grid) { @media (min-width: 10px) { .bar { opacity: .5 } } }',
    ].join('\n');
    const out = scopeCss(css, S);
    expect(out).toBe(
      `@media (prefers-color-scheme: dark){#${S} .${S}-line{stroke:white;}}\n` +
        `@supports (display: grid){@media (min-width: 10px){#${S} .${S}-bar{opacity:.5;}}}`,
    );
  });

  it('nothing loads: url(), image-set(), escapes that spell url, expression(), -moz-binding', () => {
    const css = [
      '.a { background: url(https://evil.example/track.png) }',
      '.b { background: URL( "x" ) }',
      '.c { background-image: image-set("x.png" 1x) }',
      '.d { background: \\75 rl(x) }',
      '.e { width: expression(alert(1)) }',
      '.f { -moz-binding: url(x.xml#x) }',
      '.g { behavior: url(x.htc) }',
      '.h { fill: blue; stroke: u\\rl(x) }',
    ].join('\n');
    const out = scopeCss(css, S);
    expect(out).not.toMatch(/url|image|expression|binding|behavior|\\/i);
    expect(out).toBe(`#${S} .${S}-h{fill:blue;}`);
  });

  it('a hostile sheet cannot reach outside the plot', () => {
    const css = [
      '} body { display: none }', // a stray close brace: the next rule is still scoped
      '~ div, + p, > * { color: red }', // combinators first would reach the root's siblings
      '.a { color: red; .b { color: blue } }', // nesting (& or bare) is not read
      '& .x { color: red }',
      'html, :root, body, svg { background: red }', // under the root they match nothing outside it
      '.x\\,body { color: red }', // an escape in a selector
      '.ok { fill: green }',
    ].join('\n');
    const out = scopeCss(css, S);
    for (const sel of selectors(out)) expect(sel.startsWith(`#${S} `), sel).toBe(true);
    expect(out).not.toMatch(/[&\\]/);
    expect(out).toContain(`#${S} .${S}-ok{fill:green;}`);
    expect(out).toContain(`#${S} html,#${S} :root,#${S} body,#${S} svg{background:red;}`);
    expect(out).not.toMatch(/^#\S+ body\{color/m);
    expect(out).not.toContain('blue');
  });

  it('no </style, no <, no > in values; comments removed, strings kept whole', () => {
    const out = scopeCss(
      '/* </style><script>x</script> */ .a::after { content: "</style>" } .b { content: "}" ; fill: red } .c { fill: blue /* } */ }',
      S,
    );
    expect(out).not.toContain('<');
    expect(out).toBe(`#${S} .${S}-b{fill:red;}\n#${S} .${S}-c{fill:blue;}`);
  });

  it('an unclosed block or string ends the sheet, nothing after it is read', () => {
    expect(scopeCss('.a { fill: red } .b { fill: blue', S)).toBe(`#${S} .${S}-a{fill:red;}`);
    expect(scopeCss('.a { content: "x } .b { fill: blue }', S)).toBe('');
  });

  it('attribute selectors and strings in selectors are kept as written', () => {
    expect(scopeCss('[data-x=".y"] .z { fill: red }', S)).toBe(`#${S} [data-x=".y"] .${S}-z{fill:red;}`);
  });

  it('@media with anything but a plain query is dropped, and four levels at most', () => {
    expect(scopeCss('@media screen and (x: url(y)) { .a { fill: red } }', S)).toBe('');
    const deep = '@media a{'.repeat(5) + '.a{fill:red}' + '}'.repeat(5);
    expect(scopeCss(deep, S)).toBe('');
    expect(scopeCss('@media a{'.repeat(4) + '.a{fill:red}' + '}'.repeat(4), S)).toContain(`#${S} .${S}-a`);
  });
});
