/**
 * References on write: what a text entry names (another document's variables, an attached
 * document, the owner's own profile in an author block, a template, a recipient group) is
 * resolved when the entry is used, with the rights of the resource's owner and of whoever
 * wrote it (composition.ts). This check is the writer's early answer, not the guard: a value
 * written by someone other than the owner (a grantee with write access) that adds a reference
 * the writer could not read is refused, 400 `<entry>: <reference> is not readable by
 * <writer>`, and nothing is stored. The owner's own writes are not checked. References the
 * stored value already holds stay allowed, and keep the rights they were written with
 * (`vouched`), so a grantee edits around the owner's references without breaking them and
 * gains nothing by keeping them. A missing target is refused like an unreadable one: a
 * reference must not start to read once its target is created later, and the answer never
 * tells whether it exists.
 *
 * An entry opts in with `EntrySpec.references` (a pure extractor of its format, and the
 * composition path it feeds); the check costs one D1 round trip whatever the number of
 * references, and none when the value names nothing.
 */
import { entryQuery, entryValue, lenders, type Authorship, type StoredAuthorship } from '../entries';
import { badRequest } from '../errors';
import { composedReads } from './composition';
import type { EntrySpec, ResourceCtx } from './kind';

/**
 * The authorship of a value of `spec` the caller writes: 400 when someone other than the
 * owner adds a reference they may not read; kept references carry the rights they had.
 */
export async function checkReferences(rc: ResourceCtx, spec: EntrySpec, value: string): Promise<Authorship> {
  const writer = rc.caller;
  const mine: Authorship = { by: writer?.id ?? null };
  if (!spec.references || rc.access.owner || !writer) return mine;
  const { path, of } = spec.references;
  const refs = [...new Map((await of(value, rc)).map((r) => [r.as, r])).values()];
  if (!refs.length) return mine;
  const {
    verdicts,
    also: [storedRows],
  } = await composedReads(
    rc.db,
    refs.map((ref) => ({ path, principals: [writer.id], ref })),
    [entryQuery(rc.db, rc.resource.id, spec.path)],
  );
  const stored = storedRows![0] as ({ value: string | null; blob_key: string | null } & StoredAuthorship) | undefined;
  const before = await entryValue(rc.env, stored);
  const kept = new Set(before === null ? [] : (await of(before, rc)).map((r) => r.as));
  const added = refs.filter((r, i) => !verdicts[i]!.ok && !kept.has(r.as));
  if (added.length) {
    const more = added.length > 1 ? ` (and ${added.length - 1} more)` : '';
    throw badRequest(`${spec.path}: ${added[0]!.as} is not readable by ${writer.username}${more}`, {
      unreadable: added.map((r) => r.as),
    });
  }
  const lent = lenders(stored, rc.owner.id);
  const vouched = Object.fromEntries(
    refs.flatMap((r) => {
      const ids = kept.has(r.as) ? lent(r.as) : [];
      return ids.length && !(ids.length === 1 && ids[0] === writer.id) ? [[r.as, ids]] : [];
    }),
  );
  return { by: writer.id, vouched };
}
