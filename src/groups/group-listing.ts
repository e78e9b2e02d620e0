/** Groups, and the entries below a group, as listing items. */
import type { ListingItem } from '../core/listing';
import type { Group } from '../db/schema';
import type { GroupView } from './visibility';

/**
 * What every entry of a group lists alike: a folder that founders and admins write and
 * others read, dated like the group. Spread it after the entry's name and uri (the key
 * order of the answer stays name, uri, type, ...) and override what differs.
 */
export const groupEntry = (group: Group, view: Pick<GroupView, 'manage'>): Omit<ListingItem, 'name' | 'uri'> => ({
  type: 'dir',
  permissions: view.manage ? ['r', 'w'] : ['r'],
  actions: ['GET'],
  created_on: group.created_on,
  last_modified: group.last_modified,
});

/** A group as a listing entry; extra fields ref, kind and role (the caller's, or empty). */
export function groupItem(
  g: Group,
  view: Pick<GroupView, 'manage' | 'role'>,
  name: string,
  uri: string,
): ListingItem & { ref: string; kind: string; role: string } {
  return { name, uri, ...groupEntry(g, view), ref: g.ref, kind: g.kind, role: view.role ?? '' };
}
