/**
 * The HTML part of an e-mail, in the shape the mail-client-proof generators (MJML,
 * react-email) produce: one XHTML document (doctype, `lang`, `color-scheme` metas), a
 * `role="presentation"` table skeleton with a centred inner table of the message width
 * (fluid up to it, with an Outlook-only ghost table fixing the width where `max-width` is
 * ignored), every element styled inline for the theme (markup/mail-styles.ts), web-safe
 * fonts, the hidden preheader, a "view in browser" link and a footer slot for the
 * recipient's unsubscribe link. No <style> element: Gmail drops them in many views. Pure.
 *
 * The web view (web-page.ts) is the same document without the recipient's footer and the
 * "view in browser" link.
 */
import { escapeHtml as esc } from '../markup/escape';
import { inlineMailStyles, mailElementStyles, mailFont, MAIL_TEXT_PX, type ImageSizes } from '../markup/mail-styles';
import { resolveTheme } from '../markup/themes';

/** Gmail clips a message's HTML above ~102 KB: above this many bytes the body becomes a notice linking the web view. */
export const MAIL_HTML_LIMIT = 100 * 1024;

/** Where the recipient's footer goes (a comment: the sanitizer drops every comment of the content, so none collides). */
export const FOOTER_SLOT = '<!--footer-->';

/** Longest footer a send writes in the slot (the unsubscribe url is bounded), counted in the size check. */
const FOOTER_RESERVE = 600;

/** Horizontal padding of the message column, each side (px). */
const GUTTER = 24;

export interface MailDocInput {
  subject: string;
  /** Body HTML as rendered (sanitized, block wrappers styled, markdown elements not yet). */
  body: string;
  preview: string;
  theme: string;
  width: number;
  varColors: readonly (readonly [string, string])[];
  /** The web view's url: a "view in browser" link above the message (sends only). */
  viewUrl?: string;
  /** Whether the document has the footer slot (sends; the web view has none). */
  footer?: boolean;
  /** Content-Security-Policy repeated in a meta element (the web view). */
  policy?: string;
  /** Natural sizes of embedded images: width/height attributes. */
  images?: ImageSizes;
}

/** Width of the content column inside the message's padding. */
const contentWidth = (width: number) => width - 2 * GUTTER;

/** The hidden preheader: inbox previews show it, the opened message does not. */
function preheader(preview: string): string {
  if (!preview) return '';
  // Trailing zero-width joiners keep clients from filling the preview with body text.
  return `<div class="preheader" style="display:none;font-size:1px;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;mso-hide:all">${esc(preview)}${'&#8204;&nbsp;'.repeat(30)}</div>`;
}

/** A button as one filled table cell around a link (the one shape Outlook on Windows draws). */
function mailButtonHtml(href: string, label: string, themeName: string): string {
  const s = mailElementStyles(resolveTheme(themeName).theme);
  const { accent } = resolveTheme(themeName).theme;
  return (
    `<table role="presentation" class="mail-button" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 16px;border-collapse:collapse">` +
    `<tr><td class="mail-button" align="center" bgcolor="${esc(accent)}" style="${esc(s.button!)}">` +
    `<a href="${esc(href)}" style="${esc(s['button a']!)}">${esc(label)}</a></td></tr></table>`
  );
}

/** The whole document. */
export function mailDocument(d: MailDocInput): string {
  const { theme: t } = resolveTheme(d.theme);
  const font = mailFont(t.font);
  const body = inlineMailStyles(d.body, t, {
    varColors: d.varColors,
    ...(d.images ? { images: d.images } : {}),
    maxWidth: contentWidth(d.width),
  });
  const small = `font-family:${font};font-size:12px;line-height:1.5;color:${t.muted}`;
  const view = d.viewUrl
    ? `<tr><td align="right" style="padding:0 ${GUTTER}px 8px;${small}"><a href="${esc(d.viewUrl)}" style="color:${t.muted};text-decoration:underline">View in browser</a></td></tr>`
    : '';
  const footer = d.footer ? `<tr><td style="padding:12px ${GUTTER}px 0;${small}">${FOOTER_SLOT}</td></tr>` : '';
  return (
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n' +
    '<html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en"><head>' +
    '<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />' +
    (d.policy ? `<meta http-equiv="Content-Security-Policy" content="${esc(d.policy)}" />` : '') +
    '<meta name="viewport" content="width=device-width, initial-scale=1.0" />' +
    '<meta name="x-apple-disable-message-reformatting" />' +
    '<meta name="color-scheme" content="light dark" />' +
    '<meta name="supported-color-schemes" content="light dark" />' +
    `<title>${esc(d.subject)}</title></head>\n` +
    `<body style="margin:0;padding:0;width:100%;background-color:${t.desk};-webkit-text-size-adjust:100%">` +
    preheader(d.preview) +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${t.desk}" style="width:100%;border-collapse:collapse;background-color:${t.desk}">` +
    `<tr><td align="center" style="padding:24px 0">\n` +
    `<!--[if mso]><table role="presentation" width="${d.width}" align="center" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->\n` +
    `<table role="presentation" class="mail theme-${esc(t.name)}" width="100%" align="center" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:${d.width}px;border-collapse:collapse">` +
    view +
    `<tr><td class="mail-body" bgcolor="${t.bg}" style="padding:${GUTTER}px;background-color:${t.bg};color:${t.fg};font-family:${font};font-size:${MAIL_TEXT_PX}px;line-height:1.5;text-align:left">\n` +
    body +
    `\n</td></tr>` +
    footer +
    `</table>\n<!--[if mso]></td></tr></table><![endif]-->\n` +
    `</td></tr></table></body></html>\n`
  );
}

/** The footer of one recipient: why they receive the mail, and their unsubscribe link. */
export function fillFooter(html: string, unsubscribe: string, themeName: string): string {
  const { theme: t } = resolveTheme(themeName);
  return html.replace(
    FOOTER_SLOT,
    () =>
      `You receive this e-mail because you are on its recipient list. <a href="${esc(unsubscribe)}" style="color:${t.muted};text-decoration:underline">Unsubscribe</a>`,
  );
}

/** Bytes of the document a recipient gets (the footer at its longest). */
export const mailBytes = (html: string) =>
  new TextEncoder().encode(html).length + (html.includes(FOOTER_SLOT) ? FOOTER_RESERVE : 0);

/** The body that replaces one too large to arrive whole: a short notice and a button to the web view. */
export function oversizeBody(viewUrl: string, themeName: string): string {
  return (
    '<p>This message is too large for your mail program to show in full.</p>' +
    mailButtonHtml(viewUrl, 'Read it in your browser', themeName)
  );
}
