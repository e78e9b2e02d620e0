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

export const PERSON_COLUMNS = { id: users.id, username: users.username, name: users.name, bio: users.bio, account: users.account, public: users.profile_public };
