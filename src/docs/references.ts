/**
 * What document and e-mail content (the same markdown dialect) names that is resolved when
 * it is used (core/resource/composition.ts), as core references: the document of each
 * variable reference and of each `attachment` block, the plot of each `vis` block, and the
 * owner's own profile when an `author` block names the owner (shown even when private;
 * other users' profiles show only when public, which anyone may read). Links read nothing.
 * Pure: the markup parsers find them exactly where the renderer shows them.
 */
import { plotReference, type Reference } from '../core/resource';
import type { User } from '../db/schema';
import { contentRefs } from '../markup/markdown';

export function contentReferences(text: string, owner: Pick<User, 'username'>): Reference[] {
  const { vars, attachments, authors, plots } = contentRefs(text);
  const doc = (owner: string, name: string, as: string): Reference => ({
    kind: 'resource',
    resource: 'doc',
    owner,
    name,
    as,
  });
  return [
    ...vars.map((v) => doc(v.user, v.doc, `{/u/${v.user}/d/${v.doc}/v/${v.name}}`)),
    ...attachments.map((a) => doc(a.user, a.doc, `attachment /u/${a.user}/d/${a.doc}`)),
    ...plots.map((p) => plotReference(p, 'vis ')),
    ...(authors.includes(owner.username)
      ? [{ kind: 'profile' as const, user: owner.username, as: `author ${owner.username}` }]
      : []),
  ];
}
