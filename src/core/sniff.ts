/**
 * Content-type sniffing for uploads (document assets, group pictures, mail assets):
 * the declared Content-Type must match what the bytes are. Binary formats are told by
 * their magic numbers; SVG must be UTF-8 XML whose root element is <svg>. Pure.
 */

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml', 'image/webp'] as const;
export const FONT_TYPES = ['font/woff', 'font/woff2', 'font/ttf', 'font/otf'] as const;
export const ASSET_TYPES = [...IMAGE_TYPES, ...FONT_TYPES] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

const startsWith = (b: Uint8Array, sig: number[], at = 0) => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

const MAGIC: [Exclude<AssetType, 'image/svg+xml'>, (b: Uint8Array) => boolean][] = [
  ['image/png', (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['image/jpeg', (b) => startsWith(b, [0xff, 0xd8, 0xff])],
  ['image/gif', (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a'))],
  ['image/webp', (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8)],
  ['font/woff', (b) => startsWith(b, ascii('wOFF'))],
  ['font/woff2', (b) => startsWith(b, ascii('wOF2'))],
  ['font/ttf', (b) => startsWith(b, [0x00, 0x01, 0x00, 0x00]) || startsWith(b, ascii('true'))],
  ['font/otf', (b) => startsWith(b, ascii('OTTO'))],
];

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * True when the bytes are an XML document whose root element is <svg>: UTF-8, an optional
 * XML declaration, comments, processing instructions and doctype before the root, the root
 * closed at the end, and no NUL bytes. (Workers have no XML parser; this checks the shape.)
 */
export function isSvg(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return false;
  }
  if (text.includes('\u0000')) return false;
  let rest = text.replace(/^\uFEFF/, '').trimStart();
  const prolog = /^(?:<\?xml[^>]*\?>|<!--[\s\S]*?-->|<\?[a-zA-Z][^>]*\?>|<!DOCTYPE\s+svg(?:[^>[]|\[[^\]]*\])*>)\s*/;
  for (let m = prolog.exec(rest); m; m = prolog.exec(rest)) rest = rest.slice(m[0].length);
  if (!/^<svg[\s>/]/.test(rest)) return false;
  const end = rest.trimEnd().replace(/(?:\s*<!--[\s\S]*?-->)+$/, '');
  return /<\/svg\s*>$/.test(end) || /^<svg[^<>]*\/>$/.test(end);
}

/** What the bytes are, among the asset types; null when none matches. */
export function sniffType(bytes: Uint8Array): AssetType | null {
  for (const [type, test] of MAGIC) if (test(bytes)) return type;
  return isSvg(bytes) ? 'image/svg+xml' : null;
}

export function isAssetType(type: string): type is AssetType {
  return (ASSET_TYPES as readonly string[]).includes(type);
}

export type SniffResult = { ok: true; type: AssetType } | { ok: false; status: 400 | 415; message: string };

/**
 * Checks an upload: the declared media type must be one of `allowed` and the bytes must
 * be that type. 415 for a type not allowed, 400 for bytes that are something else.
 */
export function checkUpload(declared: string, bytes: Uint8Array, allowed: readonly AssetType[] = ASSET_TYPES): SniffResult {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(type)) {
    return { ok: false, status: 415, message: `Content-Type must be one of ${allowed.join(', ')}; got ${type || 'none'}` };
  }
  if (bytes.byteLength === 0) return { ok: false, status: 400, message: 'empty body: expected the file as the request body' };
  const actual = sniffType(bytes);
  if (actual === type) return { ok: true, type: actual };
  const what = actual ? `the body is ${actual}` : type === 'image/svg+xml' ? 'the body is not an XML document with an <svg> root' : `the body is not ${type}`;
  return { ok: false, status: 400, message: `Content-Type ${type} does not match the file: ${what}` };
}
