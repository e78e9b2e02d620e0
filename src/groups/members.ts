/** Group membership queries other areas use (contract; the groups area implements it). */
import type { Db } from '../core/context';
import type { Group, Role, User } from '../db/schema';

/** Accepted (active) members of a group with their roles. */
export async function activeMembers(db: Db, groupId: number): Promise<{ user: User; role: Role }[]> {
  void db;
  void groupId;
  return [];
}

/** A group by its reference (`@user~group`, `+org~group`, `+org`), or null. */
export async function groupByRef(db: Db, ref: string): Promise<Group | null> {
  void db;
  void ref;
  return null;
}
