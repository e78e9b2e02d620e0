/**
 * Content-type sniffing for uploads (document assets, group pictures, mail assets):
 * the declared Content-Type must match what the bytes are. Binary formats are told by
 * their magic numbers; SVG must be well-formed UTF-8 XML whose root element is <svg>. Pure.
 */

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml', 'image/webp'] as const;
const FONT_TYPES = ['font/woff', 'font/woff2', 'font/ttf', 'font/otf'] as const;
export const ASSET_TYPES = [...IMAGE_TYPES, ...FONT_TYPES] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

const startsWith = (b: Uint8Array, sig: number[], at = 0) =>
  b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
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

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Characters XML 1.0 never allows (lone surrogates cannot survive the fatal UTF-8 decode). */
// oxlint-disable-next-line no-control-regex -- the characters XML 1.0 forbids are control characters
const BAD_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const NAME = /[A-Za-z_:\u00C0-\uFFFF][\w.:\-\u00B7\u00C0-\uFFFF]*/y;
/** The five predefined entities and numeric references: nothing else is declared (no DTD subset). */
const REF = /&(?:lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});/y;
const XML_DECL =
  /^<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*("1\.[0-9]+"|'1\.[0-9]+')(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*("[A-Za-z][\w.-]*"|'[A-Za-z][\w.-]*'))?(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*("(?:yes|no)"|'(?:yes|no)'))?[ \t\r\n]*\?>$/;
const isWs = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

const validCodePoint = (c: number) =>
  c === 0x9 ||
  c === 0xa ||
  c === 0xd ||
  (c >= 0x20 && c <= 0xd7ff) ||
  (c >= 0xe000 && c <= 0xfffd) ||
  (c >= 0x10000 && c <= 0x10ffff);

/**
 * Why `text` is not a well-formed XML document whose root element is <svg> (undefined when
 * it is). Workers have no XML parser, so this is a strict, single-pass checker: one root,
 * tags balanced and properly nested, attributes quoted and not repeated, only the five
 * predefined entities and numeric references, no stray `<` or `&`, comments, CDATA,
 * processing instructions, and a doctype without internal subset. Linear in the input:
 * every search moves forward (the `&` and `<` positions are cached), no recursion.
 */
export function svgProblem(text: string): string | undefined {
  const bad = BAD_CHAR.exec(text);
  if (bad)
    return `character U+${bad[0].charCodeAt(0).toString(16).padStart(4, '0')} is not allowed in XML (offset ${bad.index})`;
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const at = (what: string) => `${what} (offset ${i})`;
  // Next position of a character at or after `from`; `from` only grows, so each is found once.
  const cache = new Map<string, number>();
  const next = (ch: string, from: number) => {
    let p = cache.get(ch) ?? -1;
    if (p < from) {
      p = text.indexOf(ch, from);
      if (p < 0) p = n;
      cache.set(ch, p);
    }
    return p;
  };
  const name = (from: number) => {
    NAME.lastIndex = from;
    return NAME.exec(text)?.[0];
  };
  // `&` in text or an attribute value [from, to) must start a reference.
  const refsProblem = (from: number, to: number) => {
    for (let a = next('&', from); a < to; a = next('&', a + 1)) {
      REF.lastIndex = a;
      const m = REF.exec(text);
      if (!m || a + m[0].length > to)
        return `"&" that is not &lt; &gt; &amp; &quot; &apos; or a numeric reference (offset ${a})`;
      if (m[0][1] === '#') {
        const code = m[0][2] === 'x' ? parseInt(m[0].slice(3, -1), 16) : parseInt(m[0].slice(2, -1), 10);
        if (!validCodePoint(code)) return `reference ${m[0]} names a character XML does not allow (offset ${a})`;
      }
    }
    return undefined;
  };
  if (text.startsWith('<?xml', i) && (isWs(text[i + 5]) || text[i + 5] === '?')) {
    const end = text.indexOf('?>', i);
    if (end < 0 || !XML_DECL.test(text.slice(i, end + 2))) return at('malformed XML declaration');
    i = end + 2;
  }
  const open: string[] = [];
  let root: string | undefined;
  let doctype = false;
  while (i < n) {
    const lt = text.indexOf('<', i);
    const end = lt < 0 ? n : lt;
    if (end > i) {
      if (open.length === 0) {
        for (let k = i; k < end; k++)
          if (!isWs(text[k])) return `${root ? 'text after' : 'text before'} the root element (offset ${k})`;
      } else {
        const problem = refsProblem(i, end);
        if (problem) return problem;
        const cdataEnd = next(']]>', i);
        if (cdataEnd >= 0 && cdataEnd < end) return `"]]>" in text (offset ${cdataEnd})`;
      }
    }
    if (lt < 0) break;
    i = lt;
    if (text.startsWith('<!--', i)) {
      const close = text.indexOf('--', i + 4);
      if (close < 0) return at('unterminated comment');
      if (text[close + 2] !== '>') return at('"--" inside a comment');
      i = close + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      if (open.length === 0) return at('CDATA section outside the root element');
      const close = text.indexOf(']]>', i + 9);
      if (close < 0) return at('unterminated CDATA section');
      i = close + 3;
    } else if (text.startsWith('<!DOCTYPE', i)) {
      if (root || doctype) return at(root ? 'doctype after the root element' : 'second doctype');
      doctype = true;
      let k = i + 9;
      if (!isWs(text[k])) return at('malformed doctype');
      for (let quote = ''; ; k++) {
        if (k >= n) return at('unterminated doctype');
        const c = text[k]!;
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '[') return at('doctype with an internal subset (entity declarations are not accepted)');
        else if (c === '>') break;
      }
      i = k + 1;
    } else if (text.startsWith('<?', i)) {
      const target = name(i + 2);
      if (!target || target.toLowerCase() === 'xml')
        return at(target ? 'XML declaration not at the start' : 'malformed processing instruction');
      const close = text.indexOf('?>', i + 2 + target.length);
      if (close < 0) return at('unterminated processing instruction');
      if (close > i + 2 + target.length && !isWs(text[i + 2 + target.length]))
        return at('malformed processing instruction');
      i = close + 2;
    } else if (text.startsWith('</', i)) {
      const tag = name(i + 2);
      if (!tag) return at('malformed end tag');
      let k = i + 2 + tag.length;
      while (isWs(text[k])) k++;
      if (text[k] !== '>') return at(`malformed end tag </${tag}`);
      const expected = open.pop();
      if (expected !== tag) return at(expected ? `</${tag}> closes <${expected}>` : `</${tag}> closes nothing`);
      i = k + 1;
    } else {
      const tag = name(i + 1);
      if (!tag) return at('"<" that starts no tag');
      if (open.length === 0) {
        if (root) return at(`second root element <${tag}>`);
        if (tag !== 'svg' && !tag.endsWith(':svg')) return at(`the root element is <${tag}>, not <svg>`);
        root = tag;
      }
      const seen = new Set<string>();
      let k = i + 1 + tag.length;
      for (;;) {
        const before = k;
        while (isWs(text[k])) k++;
        if (text[k] === '>') {
          open.push(tag);
          i = k + 1;
          break;
        }
        if (text.startsWith('/>', k)) {
          i = k + 2;
          break;
        }
        if (k >= n) return at(`unterminated tag <${tag}`);
        const attr = name(k);
        if (!attr || k === before) return at(`malformed attribute in <${tag}>`);
        if (seen.has(attr)) return at(`attribute ${attr} repeated in <${tag}>`);
        seen.add(attr);
        k += attr.length;
        while (isWs(text[k])) k++;
        if (text[k] !== '=') return at(`attribute ${attr} in <${tag}> has no value`);
        k++;
        while (isWs(text[k])) k++;
        const quote = text[k];
        if (quote !== '"' && quote !== "'") return at(`attribute ${attr} in <${tag}> is not quoted`);
        const close = text.indexOf(quote, k + 1);
        if (close < 0) return at(`unterminated value of attribute ${attr} in <${tag}>`);
        if (next('<', k + 1) < close) return at(`"<" in the value of attribute ${attr}`);
        const problem = refsProblem(k + 1, close);
        if (problem) return problem;
        k = close + 1;
      }
    }
  }
  if (!root) return 'no root element: expected <svg>';
  if (open.length) return `<${open.at(-1)}> is never closed`;
  return undefined;
}

/** True when the bytes are UTF-8 and a well-formed XML document whose root element is <svg>. */
export function isSvg(bytes: Uint8Array): boolean {
  return svgBytesProblem(bytes) === undefined;
}

function svgBytesProblem(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return 'not UTF-8';
  }
  return svgProblem(text);
}

/** What the bytes are, among the asset types; null when none matches. */
export function sniffType(bytes: Uint8Array): AssetType | null {
  return sniffWithReason(bytes).type;
}

/** The sniffed type, and when nothing matched, why the bytes are not an SVG (checked once). */
function sniffWithReason(bytes: Uint8Array): { type: AssetType | null; svgProblem?: string } {
  for (const [type, test] of MAGIC) if (test(bytes)) return { type };
  const svgProblem = svgBytesProblem(bytes);
  return svgProblem ? { type: null, svgProblem } : { type: 'image/svg+xml' };
}

export type SniffResult = { ok: true; type: AssetType } | { ok: false; status: 400 | 415; message: string };

/**
 * Checks an upload: the declared media type must be one of `allowed` and the bytes must
 * be that type. 415 for a type not allowed, 400 for bytes that are something else.
 */
export function checkUpload(
  declared: string,
  bytes: Uint8Array,
  allowed: readonly AssetType[] = ASSET_TYPES,
): SniffResult {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(type)) {
    return {
      ok: false,
      status: 415,
      message: `Content-Type must be one of ${allowed.join(', ')}; got ${type || 'none'}`,
    };
  }
  if (bytes.byteLength === 0)
    return { ok: false, status: 400, message: 'empty body: expected the file as the request body' };
  const { type: actual, svgProblem: whyNotSvg } = sniffWithReason(bytes);
  if (actual === type) return { ok: true, type: actual };
  const what = actual
    ? `the body is ${actual}`
    : type === 'image/svg+xml'
      ? `the body is not a well-formed XML document with an <svg> root: ${whyNotSvg}`
      : `the body is not ${type}`;
  return { ok: false, status: 400, message: `Content-Type ${type} does not match the file: ${what}` };
}
