/**
 * May an endpoint's owner read an event's subject, now? (No leak through events.) A
 * resource: its owner, or a reader through a live share (core/perms.ts); a resource gone
 * by then is readable only for its own `*.deleted` event, to the account that owned it. A
 * group: the account that owns it (a user group's user, an organisation's account, for
 * an organisation group the organisation) or an active member.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../core/context';
import type { RecordedEvent } from '../core/events';
import { accessTo } from '../core/perms';
import { groups, members, resources, users } from '../db/schema';

export async function mayRead(db: Db, ownerId: number, event: RecordedEvent): Promise<boolean> {
  if (event.resourceId != null) {
    const resource = await db.select().from(resources).where(eq(resources.id, event.resourceId)).get();
    if (!resource) return event.type.endsWith('.deleted') && event.ownerId === ownerId;
    if (resource.owner_id === ownerId) return true;
    const user = await db.select().from(users).where(eq(users.id, ownerId)).get();
    return !!user && (await accessTo(db, user, resource)).r;
  }
  if (event.groupId != null) {
    const group = await db.select().from(groups).where(eq(groups.id, event.groupId)).get();
    if (!group) return event.ownerId === ownerId;
    if (group.owner_id === ownerId) return true;
    if (group.parent_id !== null) {
      const org = await db.select({ owner: groups.owner_id }).from(groups).where(eq(groups.id, group.parent_id)).get();
      if (org?.owner === ownerId) return true;
    }
    const member = await db
      .select({ state: members.state })
      .from(members)
      .where(and(eq(members.group_id, group.id), eq(members.user_id, ownerId), eq(members.state, 'active')))
      .get();
    return !!member;
  }
  return event.ownerId === ownerId;
}
