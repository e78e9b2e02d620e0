/**
 * Bounds on markdown shapes that marked handles superlinearly: it lexes every blockquote
 * level again from its start (quadratic in the depth, and its recursion overflows the
 * stack), and its blank-line rule overflows the regex stack on a run of about a million
 * blank lines. Outside fenced code, quote markers past MAX_QUOTE_DEPTH on a line are
 * dropped and a run of blank lines is cut to MAX_BLANK_RUN; both change only what no
 * reader could tell apart (a quote 32 levels deep, a gap of a thousand empty lines).
 * One pass over the lines: linear. Pure.
 */

export const MAX_QUOTE_DEPTH = 32;
export const MAX_BLANK_RUN = 1_000;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The markdown as marked should lex it (identical unless it passes a bound). */
export function boundMarkdown(body: string): string {
  const lines = body.split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  let blanks = 0;
  for (const line of lines) {
    const opener = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length && line.trim() === opener) fence = null;
      out.push(line);
      continue;
    }
    if (opener) fence = opener;
    if (line.trim() === '') {
      if (++blanks > MAX_BLANK_RUN) continue;
    } else blanks = 0;
    out.push(boundQuotes(line));
  }
  return out.join('\n');
}

/** A line with at most MAX_QUOTE_DEPTH leading `>` markers (the rest of the line as written). */
function boundQuotes(line: string): string {
  let depth = 0;
  let i = 0;
  let cut = -1;
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c === 32 || c === 9) i++;
    else if (c === 62 /* > */) {
      if (++depth === MAX_QUOTE_DEPTH) cut = i + 1;
      i++;
    } else break;
  }
  if (depth <= MAX_QUOTE_DEPTH) return line;
  return line.slice(0, cut) + ' ' + line.slice(i);
}
