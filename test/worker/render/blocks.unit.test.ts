/** Section blocks (docs/areas/docs.md "Section blocks"): the grammar and each block's HTML, pure. */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../src/markup/markdown';
import { buildPage, type PageInput } from '../../../src/markup/page';
import { blockRefs, parseBlocks, parseDocRef, type BlockNode } from '../../../src/markup/block-parser';
import { commonDecls } from '../../../src/markup/block-styles';

const doc = (src: string, profiles?: Map<string, { username: string; name?: string; bio?: string }>) =>
  renderMarkdown(src, { blocks: { target: 'document', profiles } });
const mail = (src: string) => renderMarkdown(src, { blocks: { target: 'mail', origin: 'https://nvm.test' } });

/** What the python library writes for a callout. */
const CALLOUT = '{{ callout\n  type: warning\n  desc: Mind the gap\n}}\nThe **body** text.\n{{ /callout }}\n';

const noBraces = (s: string) => expect(s).not.toMatch(/\{\{|\}\}/);

describe('grammar', () => {
  it('a block: kind, key: value parameters, positional first line, markdown body', () => {
    const [b] = parseBlocks(
      '{{ author\n  alice\n  include bio: true\n  Override_Bio: Hi there\n}}\n{{ /author }}\n',
    ) as [BlockNode];
    expect(b).toMatchObject({ type: 'block', kind: 'author', known: true, positional: ['alice'] });
    expect([...b.params]).toEqual([
      ['include bio', 'true'],
      ['override bio', 'Hi there'],
    ]);
  });

  it('blocks nest; a closer closes the innermost block of its kind', () => {
    const tree = parseBlocks(
      '{{ callout }}\nouter\n{{ paragraph\n  font size: l\n}}\ninner\n{{ /paragraph }}\nafter\n{{ /callout }}\nend\n',
    );
    expect(tree).toHaveLength(2);
    const outer = tree[0] as BlockNode;
    expect(outer.children.map((c) => c.type)).toEqual(['text', 'block', 'text']);
    expect((outer.children[1] as BlockNode).kind).toBe('paragraph');
    expect(tree[1]).toEqual({ type: 'text', text: 'end\n' });
  });

  it('an unknown kind renders its body as plain markdown; unknown parameters are ignored', () => {
    const r = doc(
      '{{ sparkle\n  glitter: max\n}}\nSome *body*.\n{{ /sparkle }}\n\n{{ callout\n  shade: purple\n}}\nx\n{{ /callout }}',
    );
    expect(r.html).toContain('<p>Some <em>body</em>.</p>');
    expect(r.html).not.toMatch(/sparkle|glitter|shade|purple/);
    noBraces(r.html);
  });

  it('an unknown kind without a closer is not a block: its line stays text', () => {
    expect(doc('{{ name }} is a template variable').html).toContain('{{ name }} is a template variable');
  });

  it('unterminated blocks degrade safely: a known block ends with the content, a header without }} ends at the first unindented line', () => {
    const r = doc('{{ callout\n  desc: Open\nbody line\n\n{{ paragraph }}\nmore');
    expect(r.html).toContain('Open');
    expect(r.html).toContain('body line');
    expect(r.html).toContain('more');
    noBraces(r.html);
    noBraces(r.text);
    for (const src of [
      '{{ callout',
      '{{ callout\n',
      '{{ callout\n  type: info',
      '{{ /callout }}',
      'a\n{{ /vis }}\nb',
      '{{ page\n  x: 1',
      '{{ callout }}{{ /callout }}',
    ]) {
      const out = doc(src);
      for (const s of [out.html, out.text]) expect(s, src).not.toMatch(/\{\{\s*\/?(callout|vis|page)/);
    }
  });

  it('block syntax inside fenced code stays code', () => {
    const r = doc('```\n{{ callout }}\nx\n{{ /callout }}\n```\n');
    expect(r.html).toContain('{{ callout }}');
    expect(r.html).not.toContain('sb-callout');
  });

  it('a closer ends a code fence left open in the block body', () => {
    const r = doc('{{ callout }}\n```\ncode\n{{ /callout }}\nafter');
    expect(r.html).toContain('sb-callout');
    expect(r.html).toMatch(/<\/div><\/div>\n?<p>after<\/p>/);
  });

  it('{{ page }} with and without parameters splits pages; inside a block it is dropped', () => {
    const r = doc(
      'one\n{{ page\n  title: Two\n}}\ntwo\n{{ page }}\n{{ callout }}\nin\n{{ page }}\nstill\n{{ /callout }}',
    );
    expect(r.pages).toHaveLength(3);
    expect(r.pages[2]).toContain('still');
    noBraces(r.html);
  });

  it('deep nesting is bounded and renders', () => {
    const src = '{{ callout }}\n'.repeat(200) + 'deep\n' + '{{ /callout }}\n'.repeat(200);
    const r = doc(src);
    expect(r.html).toContain('deep');
    noBraces(r.html);
  });

  it('the grammar is linear: 2 MiB of hostile lines parse quickly', () => {
    const inputs = [
      `{{ callout\n  ${'a '.repeat(1 << 20)}\n}}\n`,
      '{{ '.repeat(700_000),
      'x {{ /callout }}\n'.repeat(120_000),
      '{{ callout }} x\n'.repeat(120_000),
      '{{ mystery }}\n'.repeat(140_000) + '{{ /mystery }}',
      `a${' '.repeat(1 << 21)}b {{ /callout }}`,
    ];
    for (const src of inputs) {
      const t0 = Date.now();
      parseBlocks(src);
      expect(Date.now() - t0, src.slice(0, 20)).toBeLessThan(3000);
    }
  });

  it('references: attachment and author blocks are gathered for the loaders, with how many author blocks name each user', () => {
    const tree = parseBlocks(
      '{{ author\n  username: @Bob\n}}\n{{ /author }}\n{{ attachment\n  ref: /u/bob/d/report\n}}\n{{ /attachment }}\n{{ author\n  bob\n}}\n{{ /author }}',
    );
    expect(blockRefs(tree)).toEqual({
      authors: ['bob'],
      authorBlocks: new Map([['bob', 2]]),
      attachments: [{ user: 'bob', doc: 'report' }],
      plots: new Map(),
    });
    expect(parseDocRef('https://x.test/u/a/d/b')).toEqual({ user: 'a', doc: 'b' });
    const vis = parseBlocks(
      '{{ vis\n  /u/Carol/p/Sales\n}}\n{{ /vis }}\n{{ vis\n  ref: @carol~sales\n}}\n{{ /vis }}\n{{ vis\n  q3_short\n}}\n{{ /vis }}\n{{ vis\n  javascript:alert(1)\n}}\n{{ /vis }}',
    );
    expect(blockRefs(vis).plots).toEqual(
      new Map([
        ['/u/carol/p/sales', 2],
        ['q3_short', 1],
      ]),
    );
    expect(parseDocRef('javascript:alert(1)')).toBeNull();
  });
});

describe('blocks', () => {
  it('callout: a coloured box with icon and title; type aliases; default info', () => {
    const r = doc(CALLOUT);
    expect(r.html).toContain('sb-callout-warning');
    expect(r.html).toContain('Mind the gap');
    expect(r.html).toContain('<strong>body</strong>');
    expect(doc('{{ callout\n  type: err\n}}\nx\n{{ /callout }}').html).toContain('sb-callout-error');
    expect(doc('{{ callout\n  type: bogus\n}}\nx\n{{ /callout }}').html).toContain('sb-callout-info');
    expect(r.text).toContain('Mind the gap');
    noBraces(r.text);
  });

  it('preview: ignored in documents; in e-mail collected as the preview and absent from body and text', () => {
    const src = '{{ preview }}\nHot *news* inside\n{{ /preview }}\n\nHello';
    const d = doc(src);
    expect(d.html).not.toContain('Hot');
    expect(d.preview).toBe('');
    const m = mail(src);
    expect(m.preview).toBe('Hot news inside');
    expect(m.html).not.toContain('Hot');
    expect(m.text).toBe('Hello');
  });

  it('paragraph: font size and style', () => {
    const r = doc('{{ paragraph\n  font size: xl\n  font style: i\n}}\nBig\n{{ /paragraph }}');
    expect(r.css.join('')).toContain('font-size:1.5em');
    expect(r.css.join('')).toContain('font-style:italic');
    expect(mail('{{ paragraph\n  font size: xs\n  font style: b\n}}\nx\n{{ /paragraph }}').html).toMatch(
      /style="[^"]*font-size:0.75em;font-weight:700/,
    );
  });

  it('author: name and bio from the profile; override bio; include bio/picture false; unknown users show the username', () => {
    const profiles = new Map([['ann', { username: 'ann', name: 'Ann Lee', bio: 'Writes things' }]]);
    const r = doc('{{ author\n  ann\n}}\n{{ /author }}', profiles);
    expect(r.html).toContain('Ann Lee');
    expect(r.html).toContain('Writes things');
    expect(r.html).toContain('sb-author-pic');
    const o = doc(
      '{{ author\n  ann\n  override bio: Guest <b>star</b>\n  include picture: false\n}}\n{{ /author }}',
      profiles,
    );
    expect(o.html).toContain('Guest &lt;b&gt;star&lt;/b&gt;');
    expect(o.html).not.toContain('sb-author-pic');
    expect(doc('{{ author\n  ann\n  include bio: false\n}}\n{{ /author }}', profiles).html).not.toContain(
      'Writes things',
    );
    const unknown = doc('{{ author\n  zed\n}}\n{{ /author }}');
    expect(unknown.html).toContain('zed');
  });

  it('attachment: a link in documents; in e-mail an absolute link, and the document is named', () => {
    const src = '{{ attachment\n  /u/ann/d/q3\n  format: pdf\n  name: Q3 report\n}}\n{{ /attachment }}';
    expect(doc(src).html).toContain('<a href="/u/ann/d/q3">Q3 report</a>');
    const m = mail(src);
    expect(m.html).toContain('href="https://nvm.test/u/ann/d/q3"');
    expect(m.attachments).toEqual([{ user: 'ann', doc: 'q3', name: 'Q3 report', format: 'pdf' }]);
  });

  it('html: the body as HTML, sanitised', () => {
    const r = doc(
      '{{ html }}\n<b>bold</b><script>alert(1)</script><img src=x onerror=alert(1)>\n<a href="javascript:alert(1)">x</a>\n{{ /html }}',
    );
    expect(r.html).toContain('<b>bold</b>');
    expect(r.html).not.toMatch(/script|onerror|javascript:/);
  });

  it('vis: a placeholder naming the reference, with title, caption and link options', () => {
    const r = doc(
      '{{ vis\n  ref: /u/ann/p/sales\n  override title: Sales\n  override caption: Per month\n  include link: true\n}}\n{{ /vis }}',
    );
    expect(r.html).toContain('/u/ann/p/sales');
    expect(r.html).toContain('Sales');
    expect(r.html).toContain('Per month');
  });

  it('common parameters map to validated styles; raw CSS never gets through', () => {
    expect(
      commonDecls(
        new Map([
          ['p', '[l2, t1]'],
          ['border', 'a1 #ff0000'],
          ['fg', 'navy'],
          ['bg', '#fff'],
        ]),
      ),
    ).toEqual([
      ['padding-left', '8px'],
      ['padding-top', '4px'],
      ['border-top', '1px solid #ff0000'],
      ['border-right', '1px solid #ff0000'],
      ['border-bottom', '1px solid #ff0000'],
      ['border-left', '1px solid #ff0000'],
      ['color', 'navy'],
      ['background-color', '#fff'],
    ]);
    const evil = new Map([
      ['bg', 'red;position:fixed'],
      ['fg', 'url(x)'],
      ['b', 'a9 red'],
      ['padding', 'q3'],
      ['m', 'l1;}body{display:none'],
    ]);
    expect(commonDecls(evil)).toEqual([]);
    const r = mail('{{ callout\n  bg: red;background:url(//evil)\n  fg: "><script>\n}}\nx\n{{ /callout }}');
    expect(r.html).not.toMatch(/evil|<script/);
  });

  it('documents style blocks by class (the page CSP forbids style attributes); their CSS lands in the page style', async () => {
    const input: PageInput = {
      content: `${CALLOUT}\n{{ paragraph\n  bg: #abcdef\n}}\nx\n{{ /paragraph }}`,
      title: 'd',
      type: '',
      theme: '',
      customCss: '',
      vars: new Map(),
      varColors: new Map(),
      asset: () => null,
    };
    const page = await buildPage(input);
    expect(page.html).not.toMatch(/ style="/);
    expect(page.html).toContain('.sb-callout-warning{');
    expect(page.html).toMatch(/\.sb\.sb-s0\{background-color:#abcdef\}/);
    noBraces(page.html.replace(/<style>[\s\S]*<\/style>/, ''));
    // A document without blocks renders as before (no block CSS).
    expect((await buildPage({ ...input, content: '# Plain' })).html).not.toContain('sb-callout');
  });
});
