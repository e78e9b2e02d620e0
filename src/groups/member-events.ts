/**
 * The membership events (core/events.ts): member.invited, member.joined and member.left,
 * about a user group, an organisation or an organisation group. The group's owning account
 * (for an organisation group, the organisation) receives them. Each is recorded in the
 * batch of the membership change it reports, only when that change took effect.
 */
import type { SQL } from 'drizzle-orm';
import type { Ctx } from '../core/context';
import { eventWrite, type EventWrite } from '../core/events';
import type { Group } from '../db/schema';

/** The event joined to a membership change: its `also` (members.ts), then `recorded` with the results of `also`. */
export interface MemberEvent {
  also(written: SQL): EventWrite['statements'];
  recorded(results: unknown[]): void;
}

export function memberEvent(
  ctx: Ctx,
  type: 'member.invited' | 'member.joined' | 'member.left',
  group: Group,
  username: string,
  role: string,
): MemberEvent {
  let write: EventWrite | null = null;
  return {
    also: (written) => {
      write = eventWrite(ctx.env, ctx.db, ctx.exec, {
        type,
        groupId: group.id,
        data: { group: group.ref, kind: group.kind, username, role, by: ctx.caller?.username ?? null },
        when: written,
      });
      return write.statements;
    },
    recorded: (results) => write?.recorded(results),
  };
}

/** No event: an `also` adding nothing. */
export const noMemberEvent: MemberEvent = { also: () => [], recorded: () => undefined };
