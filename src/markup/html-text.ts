/**
 * The plain text of rendered HTML (a page's text, a mail's text part, a preview): block
 * ends become line breaks, list items dashes, entities characters; links may keep their
 * urls. Linear in its input. Pure.
 */

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  '#39': "'",
};

/**
 * Every tag `<` head `[^>]*` `>` of `s` (head: a sticky pattern of what follows `<`)
 * replaced by `by`, in one pass. The regex `/<head[^>]*>/g` would rescan to the end of
 * the text from every `<` of a run that no `>` closes: quadratic.
 */
function replaceTags(s: string, head: RegExp, by: string): string {
  let out = '';
  let done = 0;
  let gt = -1;
  for (let lt = s.indexOf('<'); lt >= 0; lt = s.indexOf('<', lt + 1)) {
    head.lastIndex = lt + 1;
    if (!head.test(s)) continue;
    if (gt < head.lastIndex) gt = s.indexOf('>', head.lastIndex);
    if (gt < 0) break;
    out += s.slice(done, lt) + by;
    done = gt + 1;
    lt = gt;
  }
  return done ? out + s.slice(done) : s;
}

/**
 * Spaces and tabs before each line break dropped (`/[ \t]+\n/g`, which is quadratic on a long run not followed by one).
 */
function trimLineEnds(s: string): string {
  const lines = s.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    let end = line.length;
    while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
    if (end < line.length) lines[i] = line.slice(0, end);
  }
  return lines.join('\n');
}

/**
 * Each link whose target is an absolute url (http, https, mailto) with that url after its
 * text, as `text <url>` (the brackets as entities, so the tag stripping keeps them), unless the
 * text is the url; a button (a `mail-button` table) on a line of its own. One pass: each tag
 * is read once, each `</a>` found once.
 */
function keepLinks(html: string): string {
  const lower = html.toLowerCase();
  let out = '';
  let done = 0;
  let close = -1;
  for (let lt = lower.indexOf('<a', 0); lt >= 0; lt = lower.indexOf('<a', lt + 2)) {
    if (!/[\s]/.test(lower[lt + 2] ?? '')) continue;
    const gt = html.indexOf('>', lt);
    if (gt < 0) break;
    if (close < gt) close = lower.indexOf('</a>', gt);
    if (close < 0) break;
    const href = /\shref="([^"]*)"/i.exec(html.slice(lt, gt + 1))?.[1];
    if (!href || !/^(https?:|mailto:)/i.test(href) || html.slice(gt + 1, close).trim() === href) continue;
    out += html.slice(done, close) + ` &lt;${href}&gt;`;
    done = close;
    lt = close;
  }
  return (out + html.slice(done)).replace(/<table\s[^>]*>/gi, (tag) => (tag.includes('mail-button') ? '\n' : tag));
}

/**
 * A readable plain-text rendition of sanitized HTML. Linear in its input. `links`: keep each
 * link's url after its text (an e-mail's text part, where nothing else shows it).
 */
export function htmlToText(html: string, opts: { links?: boolean } = {}): string {
  let s = replaceTags(opts.links ? keepLinks(html) : html, /li/iy, '\n- ');
  s = replaceTags(s, /[bh]r/iy, '\n');
  // Cells first: the whitespace a cell's end swallows must not be the line break its row's end adds.
  s = s.replace(/<\/t[dh]>\s*/gi, '\t').replace(/<\/(p|div|h[1-6]|li|tr|pre|blockquote|table|section|ul|ol)>/gi, '\n');
  s = replaceTags(s, /[^>]/y, '').replace(/&(#x[0-9a-f]+|#\d+|[a-z0-9]+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[e.toLowerCase()] ?? all;
  });
  return trimLineEnds(s)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
