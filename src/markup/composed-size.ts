/**
 * What a composed page or mail weighs before it is built. A few bytes of content can stand
 * for much more once filled in: a 14-byte variable reference shows its value and its
 * 250-character `about`, a 30-byte author block a 4 KiB bio. So the sum of the source and of
 * every filled-in reference, counted per occurrence, is checked against COMPOSED_LIMIT
 * before anything is rendered (the HTML around it is linear in this sum). Pure.
 */
import type { AuthorProfile } from './block-renderer';
import type { ContentRefs, VarView } from './markdown';

/** The most a composed text may weigh with its references filled in: 8 MiB. */
export const COMPOSED_LIMIT = 8 * 1024 * 1024;

/** Markup around one filled-in variable and one author block, at most. */
const VAR_MARKUP = 96;
const AUTHOR_MARKUP = 1024;

const bytes = (s: string | undefined) => (s ? new TextEncoder().encode(s).byteLength : 0);

/** The bytes of `source` with the variables and author blocks `refs` counts filled in. */
export function composedBytes(
  source: string,
  uses: ContentRefs['uses'],
  vars: ReadonlyMap<string, VarView>,
  profiles: ReadonlyMap<string, AuthorProfile>,
): number {
  let total = bytes(source);
  for (const [key, n] of uses.vars) {
    const v = vars.get(key);
    if (v) total += n * (bytes(v.text) + bytes(v.about) + VAR_MARKUP);
  }
  for (const [user, n] of uses.authors) {
    const p = profiles.get(user);
    total += n * (AUTHOR_MARKUP + (p ? bytes(p.name) + bytes(p.bio) + bytes(p.picture) : 0));
  }
  return total;
}

/** The bytes the drawings of vis blocks add: each plot's drawing, as often as blocks show it. */
export function drawingBytes(uses: ReadonlyMap<string, number>, drawings: ReadonlyMap<string, string>): number {
  let total = 0;
  for (const [ref, n] of uses) total += n * bytes(drawings.get(ref));
  return total;
}

/** The answer to a composition over the limit, or null within it. */
export function composedTooLarge(total: number, what: string): string | null {
  if (total <= COMPOSED_LIMIT) return null;
  const mb = (n: number) => `${Math.ceil((n / 1024 / 1024) * 10) / 10} MiB`;
  return `${what} would be ${mb(total)} once its variables, author blocks and template are filled in, over the ${mb(COMPOSED_LIMIT)} a composition may be`;
}
