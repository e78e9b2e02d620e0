/**
 * Writing SVG by hand safely: every user string through `esc` (the five XML specials, and
 * the characters XML 1.0 cannot hold at all, which would make the whole document unreadable:
 * C0 controls, lone surrogates, U+FFFE/U+FFFF), every number through `num` (finite, short).
 */

const SPECIAL: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// Characters XML 1.0 has no place for (tab, LF and CR stay).
const INVALID =
  // oxlint-disable-next-line no-control-regex -- the characters XML 1.0 forbids are control characters
  /[\0-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `s` as XML text or attribute value. */
export function esc(s: string): string {
  // Most strings (numbers, names) need nothing: one pass over their codes says so without a copy.
  let plain = true;
  for (let i = 0; i < s.length && plain; i++) {
    const c = s.charCodeAt(i);
    plain =
      c >= 0x20
        ? c !== 38 && c !== 60 && c !== 62 && c !== 34 && c !== 39 && c < 0xd800
        : c === 9 || c === 10 || c === 13;
  }
  return plain ? s : s.replace(INVALID, '').replace(/[&<>"']/g, (c) => SPECIAL[c]!);
}

/** A coordinate or length: rounded to 0.1, 0 for anything not finite (no NaN ever reaches an attribute). */
export function num(v: number): string {
  if (!Number.isFinite(v)) return '0';
  const r = Math.round(v * 10) / 10;
  return r === 0 ? '0' : String(r);
}

/** `s` cut to `max` code points, with an ellipsis when cut. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const cps = Array.from(s.slice(0, max * 2 + 2));
  return cps.length <= max ? cps.join('') : cps.slice(0, Math.max(0, max - 1)).join('') + '…';
}

/** Approximate width in pixels of `s` at `size` px in a sans-serif face (no fonts to measure with at the edge). */
export function textWidth(s: string, size: number): number {
  let w = 0;
  const n = Math.min(s.length, 400);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    // Narrow: i l . , : ; ' | ! and space; wide: capitals, m w and anything past Latin-1 (CJK counts double).
    w +=
      c === 32 ||
      c === 105 ||
      c === 108 ||
      c === 46 ||
      c === 44 ||
      c === 58 ||
      c === 59 ||
      c === 39 ||
      c === 124 ||
      c === 33
        ? 0.3
        : (c >= 65 && c <= 90) || c === 109 || c === 119
          ? 0.68
          : c > 0x2e80
            ? 1
            : 0.55;
  }
  return w * size;
}
