/**
 * Sharing entries: `public`, `@user~group`, `+org~group`, `+org`, each optionally with a
 * permission suffix (`~rw`). Parsing is pure; resolving a reference reads the groups table.
 * Sharing into a group needs an active role in it, and a share grants only while the owner
 * keeps one (src/core/perms.ts `liveShare`).
 */
import { and, eq } from 'drizzle-orm';
import { groups, members } from '../db/schema';
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
    throw badRequest(
      `invalid sharing entry '${entry}': expected public, @user~group, +org~group or +org, optionally followed by ~perms (e.g. ~rw)`,
    );
  }
  const perms = m[4] ?? 'r';
  if (new Set(perms).size !== perms.length) throw badRequest(`invalid permissions '${perms}' in sharing entry`);
  const groupType = m[1] ? 'user_group' : m[2] ? 'org_group' : 'org';
  // Every share grants read; the suffix adds to it.
  const normalised = ['r', 'w', 'x'].filter((p) => p === 'r' || perms.includes(p)).join('');
  return { entry, groupRef: m[1] ?? m[2] ?? m[3]!, groupType, perms: normalised };
}

/**
 * The answer when a share names a group the caller holds no active role in. An unknown group
 * answers the same (same status, same words), so a stranger learns nothing of which groups exist.
 */
export const noSuchGroup = (ref: string) =>
  notFound(`no such group: ${ref} (sharing into a group needs an active role in it)`);

/**
 * The group behind a reference when `userId` holds an active role in it (for `+org`: in the
 * organisation itself); no row for public, an unknown group, or one the user is not an
 * active member of. A query for db.batch.
 */
export function joinedGroupQuery(db: Db, ref: ShareRef, userId: number) {
  return db
    .select({ id: groups.id })
    .from(groups)
    .innerJoin(members, and(eq(members.group_id, groups.id), eq(members.user_id, userId), eq(members.state, 'active')))
    .where(eq(groups.ref, ref.groupRef ?? ''));
}
