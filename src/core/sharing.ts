/**
 * Sharing entries: `public`, `@user~group`, `+org~group`, `+org`, each optionally with a
 * permission suffix (`~rw`). Parsing is pure; resolving a reference reads the groups table.
 */
import { eq } from 'drizzle-orm';
import { groups } from '../db/schema';
import type { Db } from './context';
import { badRequest, notFound } from './errors';

export interface ShareRef {
  /** The entry exactly as written (listing name). */
  entry: string;
  /** The group reference without permissions (`@u~g`, `+o~g`, `+o`), null for public. */
  groupRef: string | null;
  groupType: 'user_group' | 'org_group' | 'org' | null;
  perms: string;
}

const SEG = '[a-z0-9][a-z0-9_-]*';
const USER = '[a-z0-9_]+';
const SHARE_RE = new RegExp(`^(?:(@${USER}~${SEG})|(\\+${SEG}~${SEG})|(\\+${SEG}))(?:~([rwx]+))?$`);

/** Parses a sharing entry; anything malformed is a 400 that says what is expected. */
export function parseShareEntry(entry: string): ShareRef {
  if (entry === 'public') return { entry, groupRef: null, groupType: null, perms: 'r' };
  const m = SHARE_RE.exec(entry);
  if (!m) {
    throw badRequest(`invalid sharing entry '${entry}': expected public, @user~group, +org~group or +org, optionally followed by ~perms (e.g. ~rw)`);
  }
  const perms = m[4] ?? 'r';
  if (new Set(perms).size !== perms.length) throw badRequest(`invalid permissions '${perms}' in sharing entry`);
  const groupType = m[1] ? 'user_group' : m[2] ? 'org_group' : 'org';
  // Every share grants read; the suffix adds to it.
  const normalised = ['r', 'w', 'x'].filter((p) => p === 'r' || perms.includes(p)).join('');
  return { entry, groupRef: m[1] ?? m[2] ?? m[3]!, groupType, perms: normalised };
}

/** The group id behind a reference, or 404 when no such group exists. */
export async function resolveGroupRef(db: Db, ref: ShareRef): Promise<number | null> {
  if (!ref.groupRef) return null;
  const row = await groupRefQuery(db, ref).get();
  if (!row) throw notFound(`no such group: ${ref.groupRef}`);
  return row.id;
}

/** The query behind resolveGroupRef (no row for public or an unknown group), for db.batch. */
export function groupRefQuery(db: Db, ref: ShareRef) {
  return db
    .select({ id: groups.id })
    .from(groups)
    .where(eq(groups.ref, ref.groupRef ?? ''));
}
