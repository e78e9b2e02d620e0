/**
 * What blocks need from storage, read at the edges of rendering (markup/block-*.ts are
 * pure): the profiles of the users `author` blocks name, in one query per content.
 */
import { inArray } from 'drizzle-orm';
import type { Db } from '../core/context';
import { users, type User } from '../db/schema';
import { blockRefs, parseBlocks } from '../markup/block-parser';
import type { AuthorProfile } from '../markup/block-renderer';
import { splitFrontMatter } from '../markup/markdown';

/** At most this many author blocks resolve per content (the rest show their username). */
export const MAX_AUTHORS = 100;

/**
 * The profile columns an author block shows. The users table has no name or bio yet
 * (migration 0008 adds `users.name` and `users.bio`); then add `name: users.name, bio: users.bio` here.
 */
const PROFILE_COLUMNS = {
  username: users.username,
  profile_public: users.profile_public,
  name: users.name,
  bio: users.bio,
};
/** Accounts have no picture column: the block shows a letter badge. */
type ProfileRow = { username: string; profile_public: boolean; name: string; bio: string; picture?: string | null };

/**
 * Profiles the author blocks of `content` may show: users with a public profile, and the
 * content's owner. One D1 query for all author blocks; no query without any.
 */
export async function authorProfiles(
  db: Db,
  owner: Pick<User, 'id' | 'username'>,
  content: string,
): Promise<Map<string, AuthorProfile>> {
  const out = new Map<string, AuthorProfile>();
  if (!content.includes('{{')) return out;
  const { authors } = blockRefs(parseBlocks(splitFrontMatter(content).body));
  const names = authors.slice(0, MAX_AUTHORS);
  if (!names.length) return out;
  const rows = (await db
    .select(PROFILE_COLUMNS)
    .from(users)
    .where(inArray(users.username, names))
    .all()) as ProfileRow[];
  for (const r of rows) {
    if (!r.profile_public && r.username !== owner.username) continue;
    out.set(r.username, {
      username: r.username,
      ...(r.name ? { name: r.name } : {}),
      ...(r.bio ? { bio: r.bio } : {}),
      ...(r.picture ? { picture: r.picture } : {}),
    });
  }
  return out;
}
