/** What a user field shows of an account (never the e-mail address). */
import { users, type User } from '../db/schema';

export interface PersonRow {
  id: number;
  username: string;
  name: string;
  bio: string;
  account: User['account'];
  public: boolean;
}

export const PERSON_COLUMNS = {
  id: users.id,
  username: users.username,
  name: users.name,
  bio: users.bio,
  account: users.account,
  public: users.profile_public,
};

/**
 * Whether the caller may see an account's profile (name, bio): a public profile, or the
 * caller's own. The rule of the users listing and of author blocks; a shared group grants
 * nothing more (a roster or a mention shows the username only).
 */
export function profileShown(person: Pick<PersonRow, 'id' | 'public'>, caller: Pick<User, 'id'> | null): boolean {
  return person.public || person.id === caller?.id;
}
