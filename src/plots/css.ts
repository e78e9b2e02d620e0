/**
 * A plot's `custom/custom.css`, scoped to the plot it styles, so that several plots inlined
 * in one page never style each other or the page:
 *
 * - every selector is put under the plot's root (`#<scope> ...`), and its classes and ids
 *   get the plot's prefix (`.bar` → `.<scope>-bar`, `#title` → `#<scope>-title`): custom
 *   CSS is written against the drawing's documented class names and reaches only the
 *   plot's own elements, never its root element nor anything outside it;
 * - `@media` and `@supports` blocks are kept around their scoped rules (four deep at most);
 *   every other at-rule is dropped (`@import`, `@charset`, `@namespace`, `@font-face`,
 *   `@keyframes`, `@page`, `@layer`, ...): they load things, or name things page-wide;
 * - a declaration is dropped when it could load or run anything (`url(`, `image(`,
 *   `image-set(`, `expression(`, `-moz-binding`, `behavior`) or hides something from this
 *   reading (a backslash escape, `<`, `>`, `@`, a nested block); a selector is dropped when it
 *   starts with a combinator (`~ x` would reach the root's siblings), nests (`&`) or escapes;
 * - comments are removed; the result holds no `<` at all (so no `</style`), and is safe in
 *   an HTML `<style>` as is (the SVG escapes it again as XML text).
 *
 * One pass over the text (each block is read at most once more per level of `@media`):
 * linear in the length of the CSS.
 */

/** Most `@media`/`@supports` levels kept. */
const MAX_DEPTH = 4;

const BAD_VALUE = /url\(|image-set\(|image\(|expression\(|javascript:|[\\<>{}@]/i;
const BAD_PROPERTY = /^(behavior|-moz-binding)$/i;
const PROPERTY = /^(--[A-Za-z0-9_-]+|-?[A-Za-z][A-Za-z0-9-]*)$/;
const SAFE_PRELUDE = /^[A-Za-z0-9 \t\n():,.\-/]*$/;

/** The CSS without comments (strings kept whole: a `/*` inside quotes is text). */
function stripComments(css: string): string {
  let out = '';
  let i = 0;
  let from = 0;
  const n = css.length;
  while (i < n) {
    const c = css[i];
    if (c === '"' || c === "'") {
      i = stringEnd(css, i, n);
      continue;
    }
    if (c === '/' && css[i + 1] === '*') {
      out += css.slice(from, i) + ' ';
      const close = css.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
      from = i;
      continue;
    }
    i++;
  }
  return out + css.slice(from);
}

/** The index after the string opening at `i` (an unclosed string ends at the line's end, as CSS reads it). */
function stringEnd(s: string, i: number, end: number): number {
  const q = s[i];
  for (let j = i + 1; j < end; j++) {
    const c = s[j];
    if (c === '\\') j++;
    else if (c === q) return j + 1;
    else if (c === '\n') return j;
  }
  return end;
}

/** The first of `stops` at the top level (outside strings, parentheses and brackets) from `i`, or `end`. */
function scanTo(s: string, i: number, end: number, stops: string): number {
  let depth = 0;
  while (i < end) {
    const c = s[i]!;
    if (c === '"' || c === "'") {
      i = stringEnd(s, i, end);
      continue;
    }
    if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    else if (depth === 0 && stops.includes(c)) return i;
    i++;
  }
  return end;
}

/** The index of the `}` closing the block opened at `open`, or -1 when it is never closed. */
function blockEnd(s: string, open: number, end: number): number {
  let depth = 0;
  let i = open;
  while (i < end) {
    const c = s[i];
    if (c === '"' || c === "'") {
      i = stringEnd(s, i, end);
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
    i++;
  }
  return -1;
}

/** Splits at top-level `sep` (outside strings, parentheses, brackets and blocks). */
function split(s: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"' || c === "'") {
      i = stringEnd(s, i, s.length);
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    else if (depth === 0 && c === sep) {
      parts.push(s.slice(from, i));
      from = i + 1;
    }
    i++;
  }
  parts.push(s.slice(from));
  return parts;
}

const isIdentChar = (c: string | undefined) => c !== undefined && (/[A-Za-z0-9_-]/.test(c) || c > '\x7f');

/** One selector under the scope with its classes and ids prefixed, or undefined when it is dropped. */
function scopeSelector(sel: string, scope: string): string | undefined {
  const s = sel.trim();
  if (!s || s.length > 1000 || /[\\<&@{};]/.test(s) || /^[>+~]/.test(s)) return undefined;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"' || c === "'") {
      const j = stringEnd(s, i, s.length);
      out += s.slice(i, j);
      i = j;
    } else if (c === '[') {
      const j = scanTo(s, i + 1, s.length, ']');
      out += s.slice(i, j + 1);
      i = j + 1;
    } else if ((c === '.' || c === '#') && isIdentChar(s[i + 1]) && !/[0-9]/.test(s[i + 1]!)) {
      out += `${c}${scope}-`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return `#${scope} ${out}`;
}

/** The declarations of a block that are kept, as `name:value;` text. */
function declarations(block: string): string {
  let out = '';
  for (const d of split(block, ';')) {
    const colon = d.indexOf(':');
    if (colon < 0) continue;
    const name = d.slice(0, colon).trim();
    const value = d.slice(colon + 1).trim();
    if (!value || !PROPERTY.test(name) || BAD_PROPERTY.test(name) || BAD_VALUE.test(value)) continue;
    out += `${name}:${value};`;
  }
  return out;
}

function rules(src: string, start: number, end: number, scope: string, out: string[], depth: number): void {
  let i = start;
  while (i < end) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === ';' || c === '}') {
      i++;
      continue;
    }
    if (c === '@') {
      let j = i + 1;
      while (j < end && /[A-Za-z-]/.test(src[j]!)) j++;
      const name = src.slice(i + 1, j).toLowerCase();
      const k = scanTo(src, j, end, ';{');
      if (k >= end || src[k] === ';') {
        i = k + 1; // a statement at-rule (@import, @charset, @namespace, ...): dropped
        continue;
      }
      const close = blockEnd(src, k, end);
      if (close < 0) return;
      const prelude = src.slice(j, k).trim();
      if (
        (name === 'media' || name === 'supports') &&
        depth < MAX_DEPTH &&
        SAFE_PRELUDE.test(prelude) &&
        !BAD_VALUE.test(prelude)
      ) {
        const inner: string[] = [];
        rules(src, k + 1, close, scope, inner, depth + 1);
        if (inner.length) out.push(`@${name} ${prelude.replace(/\s+/g, ' ')}{${inner.join('')}}`);
      }
      i = close + 1;
      continue;
    }
    const k = scanTo(src, i, end, '{;}');
    if (k >= end) return;
    if (src[k] !== '{') {
      i = k + 1; // a selector without a block: garbage, skipped
      continue;
    }
    const close = blockEnd(src, k, end);
    if (close < 0) return; // an unclosed block: the rest is not read
    // An escape anywhere in the selectors hides what they say (`\,` is not a comma): the rule is dropped.
    const prelude = src.slice(i, k);
    const selectors = (prelude.includes('\\') ? [] : split(prelude, ','))
      .map((s) => scopeSelector(s, scope))
      .filter((s) => s !== undefined);
    const decls = declarations(src.slice(k + 1, close));
    if (selectors.length && decls) out.push(`${selectors.join(',')}{${decls}}`);
    i = close + 1;
  }
}

/** `css` with every rule scoped under the plot whose root id (and class and id prefix) is `scope`. */
export function scopeCss(css: string, scope: string): string {
  const src = stripComments(css);
  const out: string[] = [];
  rules(src, 0, src.length, scope, out, 0);
  return out.join('\n');
}
