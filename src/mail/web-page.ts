/**
 * The web view of an e-mail at its url (`/u/<user>/m/<mail>`), what "view in browser" opens:
 * the very document a recipient gets (mail-html.ts), without their footer and the "view in
 * browser" link, with the pictures the message embeds (`cid:` parts in the sent message)
 * inlined as data: urls. Pure.
 *
 * Its policy allows no script and no style element; the inline `style` attributes the mail
 * HTML consists of are allowed one by one, by the hash of each distinct value
 * (`'unsafe-hashes'`), so no style the renderer did not write applies.
 */
import { docInput, type Composed } from './compose';
import type { ImageSize } from './image-size';
import { mailDocument } from './mail-html';

/** Distinct style values a page's policy lists at most (a header stays small); others are not applied. */
const MAX_STYLE_HASHES = 256;

export interface PageImage {
  /** data: url of the picture. */
  url: string;
  size: ImageSize | null;
}

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** The distinct values of the document's style attributes, as the browser reads them (entities decoded). */
export function styleValues(html: string): string[] {
  const out = new Set<string>();
  for (const m of html.matchAll(/\sstyle="([^"]*)"/g)) {
    out.add(m[1]!.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ENTITY[e]!));
    if (out.size >= MAX_STYLE_HASHES) break;
  }
  return [...out];
}

/** The page's policy: nothing but pictures inlined as data: urls and the hashed style attributes. */
export function mailPagePolicy(styleHashes: readonly string[], forMeta = false): string {
  return [
    "default-src 'none'",
    `style-src 'unsafe-hashes' ${styleHashes.map((h) => `'sha256-${h}'`).join(' ') || "'none'"}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    ...(forMeta ? [] : ["frame-ancestors 'none'"]),
  ].join('; ');
}

/** The page; `policy` is repeated in a meta element (a saved page keeps it). */
export function renderMailPage(c: Composed, images: ReadonlyMap<string, PageImage>, policy?: string): string {
  const sizes = new Map([...images].flatMap(([name, i]) => (i.size ? [[name, i.size] as const] : [])));
  const html = mailDocument({
    ...docInput(c),
    images: sizes,
    ...(policy ? { policy } : {}),
  });
  return html.replace(/src="cid:([a-z0-9][a-z0-9-]*(?:\.[a-z0-9]+)?)"/g, (m, name: string) =>
    images.has(name) ? `src="${images.get(name)!.url}"` : m,
  );
}
