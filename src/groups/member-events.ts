/**
 * The membership events (core/events.ts): member.invited, member.joined and member.left,
 * about a user group, an organisation or an organisation group. The group's owning account
 * (for an organisation group, the organisation) receives them.
 */
import type { Ctx } from '../core/context';
import { emit } from '../core/events';
import type { Group } from '../db/schema';

export function memberEvent(
  ctx: Ctx,
  type: 'member.invited' | 'member.joined' | 'member.left',
  group: Group,
  username: string,
  role: string,
): Promise<void> {
  return emit(ctx.env, ctx.exec, {
    type,
    groupId: group.id,
    data: { group: group.ref, kind: group.kind, username, role, by: ctx.caller?.username ?? null },
  });
}
