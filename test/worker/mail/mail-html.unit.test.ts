// The pure parts of the mail HTML: picture sizes from their headers, inline styles per
// element and theme, table buttons, the document skeleton, the footer slot and the notice.
import { describe, expect, it } from 'vitest';
import { imageSize } from '../../../src/mail/image-size';
import { FOOTER_SLOT, fillFooter, mailDocument, oversizeBody } from '../../../src/mail/mail-html';
import { styleValues } from '../../../src/mail/web-page';
import { inlineMailStyles, mailElementStyles, mailFont, MAIL_SANS, MAIL_SERIF } from '../../../src/markup/mail-styles';
import { renderMarkdown } from '../../../src/markup/markdown';
import { THEMES } from '../../../src/markup/themes';
import { MAIL_PNG } from './every-block';

const t = THEMES.default!;
const s = mailElementStyles(t);

describe('image sizes from picture headers', () => {
  it('PNG, GIF, JPEG and WebP give their natural size; anything else none', () => {
    expect(imageSize(MAIL_PNG)).toEqual({ width: 2, height: 2 });
    const gif = Uint8Array.from([...'GIF89a'].map((c) => c.charCodeAt(0)).concat([0x40, 0x01, 0xc8, 0x00]));
    expect(imageSize(gif)).toEqual({ width: 320, height: 200 });
    // SOI, an APP0 segment of 16 bytes, then SOF0 with height 480 and width 640.
    const jpeg = Uint8Array.from([
      0xff,
      0xd8,
      0xff,
      0xe0,
      0x00,
      0x10,
      ...Array.from({ length: 14 }, () => 0),
      0xff,
      0xc0,
      0x00,
      0x11,
      0x08,
      0x01,
      0xe0,
      0x02,
      0x80,
      0x03,
    ]);
    expect(imageSize(jpeg)).toEqual({ width: 640, height: 480 });
    const webp = new Uint8Array(30);
    webp.set(
      [...'RIFF'].map((c) => c.charCodeAt(0)),
      0,
    );
    webp.set(
      [...'WEBPVP8X'].map((c) => c.charCodeAt(0)),
      8,
    );
    webp.set([99, 0, 0, 49, 0, 0], 24);
    expect(imageSize(webp)).toEqual({ width: 100, height: 50 });
    expect(imageSize(new TextEncoder().encode('%PDF-1.7 not a picture'))).toBeNull();
    expect(imageSize(MAIL_PNG.subarray(0, 20))).toBeNull();
  });
});

describe('inline styles', () => {
  const mail = (md: string) => renderMarkdown(md, { blocks: { target: 'mail' } }).html;

  it('every element gets its style for the theme; styled elements keep theirs', () => {
    const html = inlineMailStyles(mail('# T\n\nA [l](https://x) and `c`.\n\n```\nx\n```'), t);
    expect(html).toContain(`<h1 style="${s.h1!.replace(/'/g, '&#39;')}">T</h1>`);
    expect(html).toContain(`<a href="https://x" style="${s.a}">l</a>`);
    expect(html).toMatch(/<code style="font-family:Menlo[^"]*background-color:#f6f8fa;padding:1px 4px">c<\/code>/);
    // code inside pre: the block's look, not the inline one
    expect(html).toMatch(/<pre style="[^"]*"><code style="[^"]*padding:0">x/);
    expect(inlineMailStyles('<div style="color:red"><p style="margin:0">x</p></div>', t)).toBe(
      '<div style="color:red"><p style="margin:0">x</p></div>',
    );
  });

  it('table cells keep their column alignment; tables get presentation attributes of a data table', () => {
    const html = inlineMailStyles(mail('| a | b |\n|:-|-:|\n| 1 | 2 |'), t);
    expect(html).toMatch(
      /<table cellpadding="0" cellspacing="0" border="0" width="100%" style="border-collapse:collapse/,
    );
    expect(html).toMatch(/<td align="right" style="[^"]*text-align:right/);
    expect(html).toMatch(/<th align="left" style="[^"]*text-align:left/);
  });

  it('variables carry their threshold colour inline (no <style> element), else their band colour', () => {
    const html = inlineMailStyles(
      '<span class="var var-down var-c0">-4%</span><span class="var var-up">+1%</span><span class="var var-none var-c1">x</span>',
      t,
      {
        varColors: [
          ['var-c0', '#cf222e'],
          ['var-c1', 'red;}body{display:none'],
        ],
      },
    );
    expect(html).toContain('<span class="var var-down var-c0" style="color:#cf222e;font-weight:600">-4%</span>');
    expect(html).toContain(`<span class="var var-up" style="color:${t.up};font-weight:600">+1%</span>`);
    expect(html).toContain('<span class="var var-none var-c1" style="font-weight:600">x</span>');
  });

  it('embedded pictures get width/height attributes, scaled down to the column', () => {
    const images = new Map([
      ['big.png', { width: 2000, height: 1000 }],
      ['small.png', { width: 40, height: 30 }],
    ]);
    const html = inlineMailStyles(
      '<img src="cid:big.png" alt=""><img src="cid:small.png"><img src="https://x/y.png">',
      t,
      {
        images,
        maxWidth: 552,
      },
    );
    expect(html).toContain('<img src="cid:big.png" alt="" width="552" height="276" style="');
    expect(html).toContain('<img src="cid:small.png" width="40" height="30" style="');
    expect(html).toMatch(/<img src="https:\/\/x\/y.png" style="[^"]*max-width:100%/);
  });

  it('a paragraph of one link titled "button" is a table-cell button; other links stay links', () => {
    const html = inlineMailStyles(mail('[Go](https://x/go "button")\n\nSee [Go](https://x/go "button") inline.'), t);
    expect(html).toMatch(
      new RegExp(
        `<table role="presentation" class="mail-button"[^>]*><tr><td class="mail-button" align="center" bgcolor="${t.accent}" style="[^"]*"><a href="https://x/go" title="button" style="color:${t.bg};`,
      ),
    );
    expect(html.match(/mail-button/g)).toHaveLength(2);
    expect(html).toContain('See <a href="https://x/go" title="button" style="');
    // documents are untouched by it
    expect(renderMarkdown('[Go](https://x/go "button")').html).toBe(
      '<p><a href="https://x/go" title="button">Go</a></p>\n',
    );
  });

  it('fonts are web-safe stacks: serif themes keep a serif', () => {
    expect(mailFont(THEMES.default!.font)).toBe(MAIL_SANS);
    expect(mailFont(THEMES.paper!.font)).toBe(MAIL_SERIF);
    expect(mailElementStyles(THEMES.ocean!).h1).toContain(`font-family:${MAIL_SERIF}`);
  });
});

describe('the document', () => {
  const doc = (extra: Partial<Parameters<typeof mailDocument>[0]> = {}) =>
    mailDocument({
      subject: 'S <1>',
      body: '<p>Hi</p>',
      preview: 'Pre',
      theme: 'dark',
      width: 600,
      varColors: [],
      ...extra,
    });

  it('an XHTML document: lang, colour schemes, presentation skeleton at the width, preheader first, no style element', () => {
    const html = doc({ viewUrl: 'https://h/u/a/m/x', footer: true });
    expect(html).toMatch(/^<!DOCTYPE html PUBLIC "-\/\/W3C\/\/DTD XHTML 1.0 Transitional\/\/EN"/);
    expect(html).toContain('<html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en">');
    expect(html).toContain('<title>S &lt;1&gt;</title>');
    expect(html).toMatch(
      /<body style="[^"]*background-color:#010409[^"]*"><div class="preheader" style="display:none;[^"]*mso-hide:all">Pre/,
    );
    expect(html).toContain('<!--[if mso]><table role="presentation" width="600" align="center"');
    expect(html).toContain('style="width:100%;max-width:600px;border-collapse:collapse"');
    expect(html).toMatch(
      /<td class="mail-body" bgcolor="#0d1117" style="padding:24px;background-color:#0d1117;color:#e6edf3;/,
    );
    expect(html).toContain('<p style="margin:0 0 16px">Hi</p>');
    expect(html).toContain(
      '<a href="https://h/u/a/m/x" style="color:#9198a1;text-decoration:underline">View in browser</a>',
    );
    expect(html).toContain(FOOTER_SLOT);
    expect(html).not.toContain('<style');
    expect(doc()).not.toContain('View in browser');
    expect(doc()).not.toContain(FOOTER_SLOT);
    expect(doc({ preview: '' })).not.toContain('preheader');
  });

  it("the footer slot takes the recipient's unsubscribe link; the notice links the web view with a button", () => {
    const html = fillFooter(doc({ footer: true }), 'https://h/unsub/"x', 'dark');
    expect(html).toContain(
      '<a href="https://h/unsub/&quot;x" style="color:#9198a1;text-decoration:underline">Unsubscribe</a>',
    );
    expect(html).not.toContain(FOOTER_SLOT);
    expect(oversizeBody('https://h/u/a/m/x', 'dark')).toMatch(
      /too large[\s\S]*<td class="mail-button"[^>]*><a href="https:\/\/h\/u\/a\/m\/x"[^>]*>Read it in your browser<\/a>/,
    );
  });

  it("the web view's policy lists each distinct style value once, as the browser reads it", () => {
    expect(styleValues('<p style="a:1"></p><p style="a:1"></p><i style="font-family:&#39;X&#39;"></i>')).toEqual([
      'a:1',
      "font-family:'X'",
    ]);
  });
});
