/**
 * What author blocks show, read at the edges of rendering (markup/block-*.ts are pure): the
 * profiles of the users they name, in one query per composition (render/resolve.ts decides
 * which may show: public ones, and a private one only to content everyone on the way wrote
 * as that user).
 */
import { inArray } from 'drizzle-orm';
import type { Db } from '../core/context';
import { users } from '../db/schema';
import type { AuthorProfile } from '../markup/block-renderer';

/** The profile columns an author block shows (accounts have no picture column: the block shows a letter badge). */
const PROFILE_COLUMNS = {
  username: users.username,
  profile_public: users.profile_public,
  name: users.name,
  bio: users.bio,
};
export type ProfileRow = {
  username: string;
  profile_public: boolean;
  name: string;
  bio: string;
  picture?: string | null;
};

/** The profiles of `names`, for a batch. */
export function profilesQuery(db: Db, names: string[]) {
  return db.select(PROFILE_COLUMNS).from(users).where(inArray(users.username, names));
}

/** What an author block shows of a profile row (fields the profile lacks are left out). */
export function profileOf(r: ProfileRow): AuthorProfile {
  return {
    username: r.username,
    ...(r.name ? { name: r.name } : {}),
    ...(r.bio ? { bio: r.bio } : {}),
    ...(r.picture ? { picture: r.picture } : {}),
  };
}
