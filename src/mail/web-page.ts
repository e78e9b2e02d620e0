/**
 * The web view of an e-mail at its url (`/u/<user>/m/<mail>`): the message as a recipient
 * sees it ("view in browser"), without the recipient's footer and the hidden preview text,
 * in a strict page shell (one hashed <style>, no script). Pictures the message embeds
 * (`cid:` parts in the sent message) are inlined as data: urls. Pure.
 */
import { resolveTheme } from '../markup/themes';
import { strictPage } from '../markup/strict-page';
import type { Composed } from './compose';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
// CSS values come from the built-in themes and the variables' threshold colours: keep them to what a value may hold.
const cssValue = (s: string) => s.replace(/[;{}<>\\]/g, '');

/** The page's one style: the theme's desk, paper, ink and font, the message width, the variables' colours. */
export function mailPageStyle(c: Composed): string {
  const { theme: t } = resolveTheme(c.theme);
  return (
    `body{margin:0;padding:24px 0;background:${cssValue(t.desk)}}` +
    `.mail{max-width:${c.width}px;margin:0 auto;padding:24px;background:${cssValue(t.bg)};color:${cssValue(t.fg)};font-family:${cssValue(t.font)};line-height:1.5}` +
    '.mail img{max-width:100%;height:auto}' +
    c.varColors.map(([cls, color]) => `.${cls.replace(/[^a-zA-Z0-9_-]/g, '')}{color:${cssValue(color)}}`).join('')
  );
}

/** The page: `images` maps an embedded asset name to its data: url; `policy` is repeated in a meta element. */
export function renderMailPage(c: Composed, images: ReadonlyMap<string, string>, policy: string): string {
  const body = c.body.replace(/src="cid:([a-z0-9][a-z0-9-]*(?:\.[a-z0-9]+)?)"/g, (m, name: string) =>
    images.has(name) ? `src="${images.get(name)!}"` : m,
  );
  return strictPage({
    title: c.subject,
    style: mailPageStyle(c),
    body: `<div class="mail theme-${esc(c.theme)}">${body}</div>`,
    policy,
  });
}
