/**
 * Header values of outbound mail that nothing a caller hands in can break: attachment names
 * as RFC 2231 `filename*=` with an ASCII fallback, media types, Content-IDs. CR/LF and other
 * controls never pass. Pure; used by the raw message (mime-message.ts) and the structured
 * form (email-sending.ts).
 */

/** Control characters (C0, DEL, C1) and the line separators: never part of a header value. */
// oxlint-disable-next-line no-control-regex -- the controls are what a header value must not hold
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** Longest fallback and encoded forms, so `Content-Disposition` stays under the 998-character line limit. */
const MAX_ASCII = 100;
const MAX_ENCODED = 600;

/** RFC 5987 attr-chars: encodeURIComponent also leaves ' ( ) * raw, which ext-value does not allow. */
const pct = (s: string) =>
  encodeURIComponent(s).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * An attachment's file name as header parameters: `ascii` for `filename="..."` (printable
 * ASCII, quotes and backslashes removed, other characters `_`) and `encoded` for RFC 2231
 * `filename*=` (UTF-8, percent-encoded). Control characters are dropped from both first, so
 * nothing in a name can end the header line.
 */
export function filenameParams(name: string, fallback = 'attachment'): { ascii: string; encoded: string } {
  // Keep whole code points while the encoded form fits (one pass: a long name costs linear time).
  let kept = '';
  let size = "UTF-8''".length;
  for (const ch of name.replace(CONTROLS, '').trim()) {
    size += pct(ch).length;
    if (size > MAX_ENCODED) break;
    kept += ch;
  }
  const clean = kept.trim();
  const ascii = clean
    .replace(/["\\]/g, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .slice(0, MAX_ASCII)
    .trim();
  // Nothing but quotes, backslashes or spaces: the whole name is the fallback.
  return ascii ? { ascii, encoded: `UTF-8''${pct(clean)}` } : { ascii: fallback, encoded: `UTF-8''${pct(fallback)}` };
}

/** The media type of an attachment: `type/subtype` (and a plain charset), else application/octet-stream. */
export function safeType(type: string): string {
  const m = /^\s*([\w.+-]+\/[\w.+-]+)\s*(?:;\s*charset="?([\w.:-]+)"?)?/i.exec(type);
  if (!m || /[\r\n]/.test(type.slice(0, m[0].length + 1))) return 'application/octet-stream';
  return m[2] ? `${m[1]}; charset=${m[2]}` : m[1]!;
}

/** A name that can stand in `Content-ID: <name>` and `cid:name` as it is. */
export const CID_SAFE = /^[\w.+-]{1,100}$/;
