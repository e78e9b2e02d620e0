/**
 * The HTML part of an e-mail is checked like a browser page, but for mail clients: a mail
 * with every block kind, in every theme and size, is linted against caniemail's data (no
 * feature Gmail, Outlook on Windows or Apple Mail lacks, but for the progressive ones named
 * below), stays under the size limit, and has its preheader, `lang` and `color-scheme`.
 * Node suite: caniemail and its HTML parser run in Node.
 */
import { caniemail } from 'caniemail';
import { describe, expect, it } from 'vitest';
import { personalise } from '../../src/mail/compose';
import { MAIL_HTML_LIMIT, mailDocument } from '../../src/mail/mail-html';
import { renderMarkdown } from '../../src/markup/markdown';
import { SIZES } from '../../src/mail/rules';
import { THEMES } from '../../src/markup/themes';
import { EVERY_BLOCK, everyBlockMail, MAIL_PNG, VIS_PNG } from '../worker/mail/every-block';

const CLIENTS: Parameters<typeof caniemail>[0]['clients'] = ['gmail.*', 'outlook.windows', 'apple-mail.*'];

/**
 * Features those clients lack that the HTML uses on purpose, each harmless where unsupported:
 * the colour-scheme hint (ignored: the message shows its light design), and the declarations
 * that hide the preheader, of which each client honours at least one (mso-hide for Outlook).
 */
const ANYWHERE = new Set(['color-scheme meta tag']);
const PREHEADER_ONLY = new Set(['display:none', 'opacity', 'max-height property', 'overflow', 'max-width']);

function lint(html: string): string[] {
  const { issues } = caniemail({ clients: CLIENTS, html });
  const start = html.indexOf('<div class="preheader"');
  const end = html.indexOf('</div>', start);
  // Line/column of every offset: the lint reports positions that way.
  const lineStarts = [0];
  for (let i = html.indexOf('\n'); i >= 0; i = html.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const offset = (p: { line: number; column: number }) => lineStarts[p.line - 1]! + p.column - 1;
  const out: string[] = [];
  for (const [client, list] of issues.errors)
    for (const issue of list) {
      if (ANYWHERE.has(issue.title)) continue;
      const at = issue.position ? offset(issue.position.start) : -1;
      if (PREHEADER_ONLY.has(issue.title) && at >= start && at < end) continue;
      out.push(`${client}: ${issue.title} at ${html.slice(Math.max(0, at - 60), at + 60)}`);
    }
  return [...new Set(out)];
}

describe('e-mail HTML that every client renders', () => {
  const sizes = Object.entries(SIZES);
  for (const theme of Object.keys(THEMES))
    it(`theme ${theme}: every block kind at ${sizes.map(([k]) => k).join(', ')} uses nothing Gmail, Outlook or Apple Mail lacks`, () => {
      for (const [size, width] of sizes) {
        const c = everyBlockMail({ 'config/theme': theme, 'config/size': size });
        const { html } = personalise(c, 'https://example.com/v1/mail/unsubscribe/tok.sig', [
          { filename: 'pic.png', content: MAIL_PNG },
          { filename: VIS_PNG, content: MAIL_PNG },
        ]);
        expect(lint(html), `${theme} ${size}`).toEqual([]);
        expect(html).toContain(`src="cid:${VIS_PNG}"`);
        expect(new TextEncoder().encode(html).length).toBeLessThan(MAIL_HTML_LIMIT);
        expect(html).toMatch(/^<!DOCTYPE html PUBLIC "-\/\/W3C\/\/DTD XHTML 1.0 Transitional\/\/EN"/);
        expect(html).toMatch(/<html [^>]*lang="en"/);
        expect(html).toContain('<meta name="color-scheme" content="light dark" />');
        expect(html).toContain('<meta name="supported-color-schemes" content="light dark" />');
        expect(html).toMatch(/<body[^>]*><div class="preheader" style="display:none;[^"]*">The preview line/);
        expect(html).toContain(`max-width:${width}px`);
        expect(html).toContain(`<!--[if mso]><table role="presentation" width="${width}"`);
        expect(html).not.toMatch(/<style|class="[^"]*"[^>]*>\s*<\/style/);
        // Every element of the body carries its style: no heading, paragraph, cell or link left to the client.
        const visible = html.replace(/<!--\[if mso\]>.*?<!\[endif\]-->/g, '');
        for (const tag of [
          'h1',
          'h2',
          'p',
          'a',
          'ul',
          'li',
          'table',
          'th',
          'td',
          'code',
          'pre',
          'blockquote',
          'hr',
          'img',
        ])
          expect(visible, `${tag} unstyled`).not.toMatch(new RegExp(`<${tag}(\\s(?![^>]*style=)[^>]*)?>`));
        // The picture has its size, scaled to the column.
        expect(html).toMatch(/<img [^>]*src="cid:pic.png"[^>]* width="2" height="2"/);
        // Links that matter are table buttons.
        expect(html).toMatch(
          /<td class="mail-button" align="center" bgcolor="[^"]+" style="[^"]*"><a href="https:\/\/example.com\/report"/,
        );
        expect(html).toContain('>View in browser</a>');
        expect(html).toContain('Unsubscribe</a>');
      }
    });

  it('a body over the size limit becomes a notice with a button to the web view; the text part stays whole', () => {
    const big = everyBlockMail({}, 'x'.repeat(60) + '\n\n| a | b |\n|---|---|\n' + '| cell | cell |\n'.repeat(4000));
    expect(big.oversize).toBe(true);
    expect(big.htmlBytes).toBeGreaterThan(MAIL_HTML_LIMIT);
    const { html, text } = personalise(big, 'https://example.com/u');
    expect(new TextEncoder().encode(html).length).toBeLessThan(10 * 1024);
    expect(html).toContain('too large');
    expect(html).toMatch(/<a href="https:\/\/example.com\/u\/ann\/m\/weekly"[^>]*>Read it in your browser<\/a>/);
    expect(text.split('cell').length).toBeGreaterThan(8000);
    expect(lint(html)).toEqual([]);
    expect(everyBlockMail({}).oversize).toBe(false);
  });

  it('the HTML builder adds little to the render of a 50 KB mail with every block', () => {
    // The absolute compose time (target 10 ms) is what `npm run bench` reports; on a shared
    // test machine only the builder's share is stable enough to check.
    const extra = 'A paragraph with **bold** and a [link](https://example.com) in a sentence of prose.\n\n'.repeat(560);
    const median = (f: () => void) => {
      f();
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const t0 = performance.now();
        f();
        times.push(performance.now() - t0);
      }
      return times.sort((a, b) => a - b)[3]!;
    };
    const c = everyBlockMail({}, extra);
    const build = median(() => mailDocument({ ...c, footer: true }));
    const render = median(() =>
      renderMarkdown(c.body.length ? `${EVERY_BLOCK}\n\n${extra}` : '', { blocks: { target: 'mail' } }),
    );
    expect(build).toBeLessThan(Math.max(5, render));
  });
});
