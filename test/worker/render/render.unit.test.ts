/** Pure parts of rendering: the platform's markdown, sanitization, themes, page building, geometry. */
import { describe, expect, it } from 'vitest';
import { htmlToText } from '../../../src/markup/html-text';
import { assetRefs, renderMarkdown, splitFrontMatter, varRefs } from '../../../src/markup/markdown';
import { sanitizeHtml } from '../../../src/markup/sanitize';
import { keepAliveMs } from '../../../src/render/browser';
import { pdfPageCount } from '../../../src/render/pdf';
import { fitImage } from '../../../src/render/pptx';
import { sheetScript } from '../../../src/render/print-layout';
import { buildPage, effectiveTheme, prepareCustomCss, type PageInput } from '../../../src/markup/page';
import { assetVersionUrl, cssAssetRefs } from '../../../src/render/source';
import { geometry, resolveTheme, resolveType, THEMES } from '../../../src/markup/themes';

const input = (over: Partial<PageInput> = {}): PageInput => ({
  content: '# Hello',
  title: 'doc',
  type: '',
  theme: '',
  customCss: '',
  vars: new Map(),
  varColors: new Map(),
  asset: () => null,
  ...over,
});

describe('front matter', () => {
  it('YAML front matter gives title, author, date, subtitle and theme, and is not content', () => {
    const { meta, body } = splitFrontMatter(
      '---\ntitle: "Q3: report"\nauthor: Ann\ndate: 2024-05-01\nsubtitle: draft\ntheme: dark\nother: x\n---\n# Body\n',
    );
    expect(meta).toEqual({ title: 'Q3: report', author: 'Ann', date: '2024-05-01', subtitle: 'draft', theme: 'dark' });
    expect(body).toBe('# Body\n');
  });
  it('invalid YAML is dropped without failing the render', () => {
    const r = renderMarkdown('---\ntitle: [unclosed\n---\nText');
    expect(r.meta).toEqual({});
    expect(r.html).toContain('<p>Text</p>');
  });
  it('without a leading --- block there is no front matter', () => {
    expect(splitFrontMatter('text\n---\ntitle: x\n---\n').meta).toEqual({});
  });
});

describe('pages', () => {
  it('a {{ page }} line starts a new page', () => {
    const r = renderMarkdown('one\n\n{{ page }}\n\ntwo\n{{page}}\nthree');
    expect(r.pages).toHaveLength(3);
    expect(r.pages[0]).toContain('one');
    expect(r.pages[1]).toContain('two');
    expect(r.pages[2]).toContain('three');
    expect(r.pageTexts).toEqual(['one', 'two', 'three']);
  });
  it('{{ page }} inside fenced code or inline is not a page break', () => {
    const r = renderMarkdown('```\n{{ page }}\n```\n\ntext {{ page }} here');
    expect(r.pages).toHaveLength(1);
    expect(r.html).toContain('{{ page }}');
  });
  it('GFM tables and fenced code with a language render', () => {
    const r = renderMarkdown('| a | b |\n|---|--:|\n| 1 | 2 |\n\n```ts\nlet x = 1;\n```');
    expect(r.html).toContain('<table>');
    expect(r.html).toContain('<td align="right">2</td>');
    expect(r.html).toContain('<code class="language-ts">');
  });
});

describe('variable references', () => {
  const src =
    'Sales {/u/ann/d/report/v/sales} and `{/u/ann/d/report/v/code}`\n\n```\n{/u/ann/d/report/v/block}\n```\n{/u/ann/d/other/v/x_1}';
  it('are found outside code only', () => {
    expect(varRefs(src).map((r) => r.key)).toEqual(['ann/report/sales', 'ann/other/x_1']);
  });
  it('render as the formatted value with its band; unknown ones stay as written; code is untouched', () => {
    const vars = new Map([
      ['ann/report/sales', { text: '↑ +12.5%', band: 'up' as const, about: 'Q3 <sales>', colorClass: 'var-c0' }],
    ]);
    const r = renderMarkdown(src, { vars });
    expect(r.html).toContain('<span class="var var-up var-c0" title="Q3 &lt;sales&gt;">↑ +12.5%</span>');
    expect(r.html).toContain('<code>{/u/ann/d/report/v/code}</code>');
    expect(r.html).toContain('{/u/ann/d/report/v/block}');
    expect(r.html).toContain('<span class="var var-missing">{/u/ann/d/other/v/x_1}</span>');
  });
});

describe('sanitization (untrusted content)', () => {
  it('script tags are stripped with their content', () => {
    const r = renderMarkdown(
      'before\n\n<script>alert("x")</script>\n\nafter <script src="https://evil/x.js"></script>',
    );
    expect(r.html).not.toMatch(/<script/i);
    expect(r.html).not.toContain('alert');
    expect(r.html).toContain('after');
  });
  it('event handler attributes are removed', () => {
    const html = sanitizeHtml(
      '<img src="https://x/a.png" onerror="alert(1)"><p onclick="x()" onmouseover=y>t</p><svg onload="z()"></svg>',
    );
    expect(html).not.toMatch(/on(error|click|mouseover|load)/i);
    expect(html).toContain('<img src="https://x/a.png">');
  });
  it('javascript: urls are removed from markdown and html links and images', () => {
    const r = renderMarkdown(
      '[click](javascript:alert(1)) <a href="JaVaScRiPt:alert(2)">x</a> <a href=" javascript:alert(3)">y</a> ![i](javascript:alert(4))',
    );
    expect(r.html.toLowerCase()).not.toContain('javascript');
  });
  it('iframes, objects, forms, style elements and style attributes are stripped', () => {
    const html = sanitizeHtml(
      '<iframe src="https://x"></iframe><object data="x"></object><form action="x"><input name="a"></form><style>body{}</style><p style="color:red">t</p>',
    );
    expect(html).not.toMatch(/<(iframe|object|form|style)|style=|<input name/i);
    expect(html).toContain('<p>t</p>');
  });
  it('GFM task list checkboxes survive, other inputs do not', () => {
    expect(renderMarkdown('- [x] done').html).toContain('<input checked disabled type="checkbox">');
    expect(sanitizeHtml('<input type="text">')).not.toContain('text');
  });
  it('the only input kept is a disabled checkbox: any other input (drawn as a text box) is removed whole', () => {
    for (const other of [
      '<input>',
      '<input name="password" placeholder="Your password">',
      '<input type="text" value="x">',
      '<input type="password">',
      '<input type="submit" value="Sign in">',
      '<input type="image" src="https://x/a.png">',
      '<input type="hidden" name="a">',
      '<input value="type=checkbox">',
      '<input type=checkboxes>',
      '<input type="text" type="checkbox">', // a browser takes the first of two
    ]) {
      expect(sanitizeHtml(`<p>a${other}b</p>`), other).toBe('<p>ab</p>');
    }
    expect(sanitizeHtml('<input type="checkbox" name="a" value="b" onclick="x()">')).toBe(
      '<input disabled type="checkbox">',
    );
    expect(sanitizeHtml('<input TYPE="CheckBox" checked>')).toBe('<input checked disabled type="checkbox">');
    expect(renderMarkdown('- [ ] todo\n- [x] done').html).toMatch(
      /<input disabled type="checkbox">[^]*<input checked disabled type="checkbox">/,
    );
  });
  it('data: urls are kept only as an image source, never in a link or elsewhere', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    expect(sanitizeHtml(`<img src="${png}" alt="a">`)).toBe(`<img src="${png}" alt="a">`);
    expect(renderMarkdown(`![a](${png})`).html).toContain(`src="${png}"`);
    for (const bad of [
      `[x](${png})`,
      `<a href="${png}">x</a>`,
      '<a href="data:image/svg+xml,&lt;svg onload=alert(1)&gt;">x</a>',
      '<a href="&#100;ata:image/png;base64,AA">x</a>',
      '<a href=" data:image/png;base64,AA">x</a>',
      '<a href="data:text/html,<script>alert(1)</script>">x</a>',
      `<video src="${png}" poster="${png}"></video>`,
      `<audio src="${png}"></audio>`,
    ]) {
      const html = renderMarkdown(bad).html;
      expect(html.toLowerCase(), bad).not.toMatch(/data:|&#100;ata/);
    }
  });
});

describe('assets', () => {
  it('assets/<name> references of images and links are found and resolved', () => {
    const src = '![logo](assets/logo.png) [file](./assets/a-b.svg) ![ext](https://x/y.png) ![bad](assets/../x)';
    expect(assetRefs(src)).toEqual(['logo.png', 'a-b.svg']);
    const r = renderMarkdown(src, { asset: (n) => `/A/${n}` });
    expect(r.html).toContain('src="/A/logo.png"');
    expect(r.html).toContain('href="/A/a-b.svg"');
    expect(r.html).toContain('src="https://x/y.png"');
  });
  it('cache-key pages name an asset by its version; the stand-in url survives sanitizing', () => {
    const a = { name: 'logo.png', last_modified: '2024-01-01T00:00:00.000Z', size: 70, content_type: 'image/png' };
    const url = assetVersionUrl(a);
    expect(url).not.toBe(assetVersionUrl({ ...a, size: 71 }));
    expect(url).not.toBe(assetVersionUrl({ ...a, last_modified: '2024-01-01T00:00:00.001Z' }));
    expect(renderMarkdown('![x](assets/logo.png)', { asset: () => url }).html).toContain(`src="${url}"`);
  });
  it('custom CSS url(assets/<name>) references resolve, and the CSS cannot close its style element', () => {
    const css = '@font-face{src:url("assets/f.woff2")} body{background:url(assets/bg.png)} </style><script>x</script>';
    expect(cssAssetRefs(css)).toEqual(['f.woff2', 'bg.png']);
    const out = prepareCustomCss(css, (n) => `data:x/${n}`);
    expect(out).toContain('url("data:x/f.woff2")');
    expect(out).not.toMatch(/<\/style/i);
  });
});

describe('themes and types', () => {
  it('built-in themes select themselves; +org/theme is accepted with the default palette; unknown names fall back', () => {
    expect(resolveTheme('dark')).toEqual({ theme: THEMES.dark, known: true });
    expect(resolveTheme('')).toEqual({ theme: THEMES.default, known: true });
    expect(resolveTheme('+acme/brand')).toEqual({ theme: THEMES.default, known: true });
    expect(resolveTheme('nope')).toEqual({ theme: THEMES.default, known: false });
  });
  it('types: doc/docs A4 portrait, pres 16:9, blog/web continuous; anything else is doc', () => {
    expect(geometry('doc')).toMatchObject({ widthPx: 794, heightPx: 1123 });
    expect(geometry('docs')).toEqual(geometry('doc'));
    expect(geometry('pres').widthPx / geometry('pres').heightPx).toBeCloseTo(16 / 9, 5);
    expect(geometry('blog').heightPx).toBe(0);
    expect(resolveType('web')).toBe('web');
    expect(resolveType('weird')).toBe('doc');
  });
});

describe('page', () => {
  it('config/theme wins over the front matter theme, which wins over the default', async () => {
    expect((await buildPage(input({ content: '---\ntheme: paper\n---\nx', theme: 'dark' }))).theme.name).toBe('dark');
    expect((await buildPage(input({ content: '---\ntheme: paper\n---\nx' }))).theme.name).toBe('paper');
    expect((await buildPage(input())).theme.name).toBe('default');
  });
  it('the effective theme (for reports) follows the same order as the page: config/theme, front matter, default', () => {
    expect(effectiveTheme('', '---\ntheme: paper\n---\nx')).toBe('paper');
    expect(effectiveTheme('dark', '---\ntheme: paper\n---\nx')).toBe('dark');
    expect(effectiveTheme('', 'x')).toBe('default');
    expect(effectiveTheme('+acme/brand', 'x')).toBe('+acme/brand');
  });
  it('the CSP allows no script and only the page style, by its hash', async () => {
    const p = await buildPage(input({ customCss: 'h1{color:red}' }));
    expect(p.csp).toContain("default-src 'none'");
    expect(p.csp).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
    const style = /<style>([\s\S]*)<\/style>/.exec(p.html)![1]!;
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(style)));
    expect(p.csp).toContain(`style-src 'sha256-${btoa(String.fromCharCode(...digest))}'`);
    expect(style).toContain('h1{color:red}');
    expect(p.html).toContain('http-equiv="Content-Security-Policy"');
  });
  it('img-src allows only the page itself and data: urls: remote images are not loaded', async () => {
    const p = await buildPage(input({ content: '![x](https://example.com/x.png)' }));
    expect(p.csp).toMatch(/img-src 'self' data:(;|$)/);
    expect(p.csp).not.toContain('https:');
  });
  it("the type's page size comes after custom CSS, so custom @page rules cannot change it", async () => {
    const p = await buildPage(input({ type: 'doc', customCss: '@page{size:letter landscape}' }));
    const css = /<style>([\s\S]*)<\/style>/.exec(p.html)![1]!;
    expect(css.lastIndexOf('@page{size:A4 portrait;margin:0}')).toBeGreaterThan(css.indexOf('size:letter'));
    expect(css).toMatch(/@page :first\{size:A4 portrait;margin:0\}/);
    expect((await buildPage(input({ type: 'pres' }))).html).toContain('@page{size:960px 540px;margin:0}');
  });
  it('each page is a section; the front matter makes a header on the first page', async () => {
    const p = await buildPage(
      input({ content: '---\ntitle: T <1>\nauthor: Ann\n---\nA\n{{ page }}\nB', type: 'pres' }),
    );
    expect(p.html.match(/<section class="page"/g)).toHaveLength(2);
    expect(p.html).toContain('<h1 class="title">T &lt;1&gt;</h1>');
    expect(p.html).toContain('<title>T &lt;1&gt;</title>');
    expect(p.html).toContain('class="type-pres theme-default"');
  });
  it('variable colours become classes; values that are not colours are dropped', async () => {
    const p = await buildPage(
      input({
        varColors: new Map([
          ['var-c0', '#1a7f37'],
          ['var-c1', 'red;}body{display:none'],
        ]),
      }),
    );
    expect(p.html).toContain('.var-c0{color:#1a7f37}');
    expect(p.html).not.toContain('display:none');
  });
});

describe('geometry helpers', () => {
  it('an image is fitted and centred on its slide', () => {
    expect(fitImage({ widthIn: 10, heightIn: 5 }, 200, 100)).toEqual({ x: 0, y: 0, w: 10, h: 5 });
    expect(fitImage({ widthIn: 10, heightIn: 5 }, 100, 100)).toEqual({ x: 2.5, y: 0, w: 5, h: 5 });
  });
  it('PDF pages are counted from the page objects', () => {
    const pdf = new TextEncoder().encode(
      '%PDF-1.4\n1 0 obj <</Type /Pages /Count 2>>\n2 0 obj <</Type /Page>>\n3 0 obj <</Type/Page /Parent 1 0 R>>',
    );
    expect(pdfPageCount(pdf)).toBe(2);
  });
  it('plain text keeps the words, not the markup', () => {
    expect(htmlToText('<h1>A &amp; B</h1><ul><li>x</li></ul><p>&#8593; 5</p>')).toBe('A & B\n\n- x\n\n↑ 5');
  });
});

describe('browser keep-alive setting', () => {
  it('sheet layout: doc/docs cut sections into A4 sheets, pres keeps one slide per section, blog/web are one page', () => {
    expect(sheetScript('doc', 200)).toMatch(/\)\(1122, 200, true\)$/);
    expect(sheetScript('docs', 5)).toMatch(/\)\(1122, 5, true\)$/);
    expect(sheetScript('pres', 200)).toMatch(/\)\(1122, 200, false\)$/);
    expect(sheetScript('blog', 200)).toContain("document.querySelector('main.document').innerText");
  });
  it('off unless BROWSER_KEEP_ALIVE_MS is a positive number; capped at 10 minutes', () => {
    const env = (v?: string) => ({ BROWSER_KEEP_ALIVE_MS: v }) as unknown as Env;
    expect(keepAliveMs(env())).toBe(0);
    expect(keepAliveMs(env('nope'))).toBe(0);
    expect(keepAliveMs(env('-5'))).toBe(0);
    expect(keepAliveMs(env('60000'))).toBe(60000);
    expect(keepAliveMs(env('9999999'))).toBe(600000);
  });
});
