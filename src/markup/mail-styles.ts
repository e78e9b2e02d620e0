/**
 * Inline styles for e-mail HTML: mail clients drop `<style>` elements and classes (Gmail in
 * many views) or lay out with Word (Outlook on Windows), so every element of a message body
 * carries its theme's style in its own `style` attribute. Pure functions.
 *
 * `inlineMailStyles` walks sanitized HTML tag by tag (the sanitizer has already escaped every
 * stray `<` and stripped every `style` attribute of the author's HTML): an element without a
 * `style` attribute gets its element's style for the theme; the block wrappers, which the
 * block renderer styles itself, keep theirs. Only properties every major client renders are
 * used (no flex, no border-radius, no max-height): the lint test checks them against
 * caniemail's data.
 */
import { escapeHtml } from './escape';
import type { Theme } from './themes';

/** Web-safe font stacks: the themes' system-ui stacks are for browsers; Outlook falls back to Times on unknown names. */
export const MAIL_SANS = "Arial, Helvetica, 'Segoe UI', Roboto, sans-serif";
export const MAIL_SERIF = "Georgia, 'Times New Roman', Times, serif";
const MAIL_MONO = 'Menlo, Consolas, monospace';

/** The web-safe stack of a theme font (serif themes keep a serif). */
export const mailFont = (font: string): string =>
  font.endsWith('serif') && !font.endsWith('sans-serif') ? MAIL_SERIF : MAIL_SANS;

/** Size of body text in px, and the heading sizes. */
export const MAIL_TEXT_PX = 16;
export const MAIL_HEADING_PX: Record<string, number> = { h1: 28, h2: 22, h3: 18, h4: 16, h5: 14, h6: 13 };

/** The style of each element a message body holds, for one theme (also what the screenshot test compares). */
export function mailElementStyles(t: Theme): Record<string, string> {
  const font = mailFont(t.font);
  const heading = mailFont(t.headingFont);
  const h = (tag: string, color: string, extra = '') =>
    `margin:24px 0 12px;font-family:${heading};font-size:${MAIL_HEADING_PX[tag]}px;line-height:1.25;font-weight:700;color:${color}${extra}`;
  return {
    h1: h('h1', t.accent, `;border-bottom:4px solid ${t.accent};padding-bottom:4px`),
    h2: h('h2', t.accent),
    h3: h('h3', t.fg),
    h4: h('h4', t.fg),
    h5: h('h5', t.fg),
    h6: h('h6', t.muted),
    // Paragraphs and list items inherit font, size and colour from the message cell (mail-html.ts): kept short, as
    // they are the most frequent elements and every byte counts toward the size limit.
    p: 'margin:0 0 16px',
    a: `color:${t.accent};text-decoration:underline`,
    ul: 'margin:0 0 16px;padding:0 0 0 24px',
    ol: 'margin:0 0 16px;padding:0 0 0 24px',
    li: 'margin:0 0 4px',
    table: `border-collapse:collapse;margin:0 0 16px;width:100%;font-family:${font};font-size:15px`,
    th: `border:1px solid ${t.border};border-bottom:3px solid ${t.accent};background-color:${t.surface};padding:6px 10px;text-align:left;font-weight:700;color:${t.fg}`,
    td: `border:1px solid ${t.border};padding:6px 10px;text-align:left;color:${t.fg}`,
    code: `font-family:${MAIL_MONO};font-size:14px;background-color:${t.surface};padding:1px 4px`,
    pre: `margin:0 0 16px;padding:12px 16px;background-color:${t.surface};border:1px solid ${t.border};color:${t.fg};font-family:${MAIL_MONO};font-size:13px;line-height:1.45`,
    'pre code': `font-family:${MAIL_MONO};font-size:13px;color:${t.fg};padding:0`,
    blockquote: `margin:0 0 16px;padding:4px 16px;border-left:4px solid ${t.accent};color:${t.muted}`,
    hr: `border:0;border-top:1px solid ${t.border};margin:24px 0;height:1px;line-height:1px;font-size:1px`,
    img: 'border:0;text-decoration:none;height:auto;max-width:100%',
    'var-up': `color:${t.up};font-weight:600`,
    'var-down': `color:${t.down};font-weight:600`,
    var: 'font-weight:600',
    button: `background-color:${t.accent};padding:12px 24px`,
    'button a': `color:${t.bg};font-family:${font};font-size:${MAIL_TEXT_PX}px;font-weight:700;text-decoration:none;display:inline-block`,
  };
}

/** Natural size of an image the message embeds, by asset name. */
export type ImageSizes = ReadonlyMap<string, { width: number; height: number }>;

export interface InlineOptions {
  /** Threshold colours of variables, by class (`var-cN`). */
  varColors?: readonly (readonly [string, string])[];
  /** Natural sizes of embedded images (`cid:<name>`): they get width/height attributes, at most `maxWidth`. */
  images?: ImageSizes;
  /** Width of the content column in px (images wider than it are scaled down to it). */
  maxWidth?: number;
}

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g;
const COLOR_VALUE = /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,30})$/;
const ATTR = { class: /\sclass="([^"]*)"/, src: /\ssrc="([^"]*)"/, align: /\salign="([^"]*)"/ };
const attr = (attrs: string, name: keyof typeof ATTR) => (attrs ? ATTR[name].exec(attrs)?.[1] : undefined);
const STYLED = /\sstyle="/;

/** The body's HTML with every element styled inline for the theme (elements already styled are kept). */
export function inlineMailStyles(html: string, t: Theme, opts: InlineOptions = {}): string {
  const s = mailElementStyles(t);
  const colors = new Map((opts.varColors ?? []).filter(([, c]) => COLOR_VALUE.test(c)));
  let pre = 0;
  let button = 0;
  return html.replace(TAG, (all, close: string, rawName: string, attrs: string) => {
    const name = rawName.toLowerCase();
    if (close) {
      if (name === 'pre') pre = Math.max(0, pre - 1);
      if (name === 'table' && button) button--;
      return all;
    }
    const cls = attr(attrs, 'class')?.split(/\s+/) ?? [];
    if (name === 'table' && cls.includes('mail-button')) {
      button++;
      return `<table role="presentation" class="mail-button" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 16px;border-collapse:collapse">`;
    }
    if (button && name === 'td')
      return `<td class="mail-button" align="center" bgcolor="${t.accent}" style="${s.button}">`;
    if (attrs && STYLED.test(attrs)) return all;
    let style: string | undefined;
    let extra = '';
    switch (name) {
      case 'code':
        style = pre ? s['pre code'] : s.code;
        break;
      case 'pre':
        pre++;
        style = s.pre;
        break;
      case 'a':
        style = button ? s['button a'] : s.a;
        break;
      case 'span': {
        const color = cls.map((c) => colors.get(c)).find(Boolean);
        const band = cls.includes('var-up') ? s['var-up'] : cls.includes('var-down') ? s['var-down'] : undefined;
        if (color) style = `color:${color};font-weight:600`;
        else if (band) style = band;
        else if (cls.includes('var')) style = s.var;
        break;
      }
      case 'table':
        extra = ' cellpadding="0" cellspacing="0" border="0" width="100%"';
        style = s.table;
        break;
      case 'img': {
        const src = attr(attrs, 'src') ?? '';
        const size = /^cid:(.+)$/.exec(src) && opts.images?.get(src.slice(4));
        if (size && size.width > 0 && size.height > 0) {
          const width = Math.min(size.width, opts.maxWidth ?? size.width);
          const height = Math.max(1, Math.round((size.height * width) / size.width));
          extra = ` width="${width}" height="${height}"`;
        }
        style = s.img;
        break;
      }
      case 'th':
      case 'td': {
        // Table cells keep the column alignment markdown gave them.
        const align = /^(left|center|right)$/.exec(attr(attrs, 'align') ?? '')?.[0];
        style = align ? s[name]!.replace('text-align:left', `text-align:${align}`) : s[name];
        break;
      }
      default:
        style = s[name];
    }
    if (!style) return all;
    const selfClose = attrs.endsWith('/');
    const head = selfClose ? attrs.slice(0, -1).trimEnd() : attrs;
    return `<${rawName}${head}${extra} style="${escapeHtml(style)}"${selfClose ? ' /' : ''}>`;
  });
}
