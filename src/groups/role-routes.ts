/**
 * Roles: the membership state machine over HTTP, below every group.
 *   GET    <group>/role                   the caller's role
 *   GET    <group>/roles[/<role>]         the role folders, the holders of a role
 *   PUT    <group>/roles/<role>/<user>    invite (pending, e-mail of kind invite), promote or
 *                                         demote, claim (org founder/admin), join (open group)
 *   DELETE <group>/roles/<role>/<user>    remove, revoke an invite, or leave
 * Invites are answered at /v1/admin/invites (invite-routes.ts).
 */
import { and, eq, sql } from 'drizzle-orm';
import { HttpError, notFound } from '../core/errors';
import { handOff, outboxInsert } from '../core/mailer';
import { text } from '../core/examples';
import { jsonResponse, noContent, textResponse } from '../core/http';
import { listingResponse, listingResponses, type ListingItem } from '../core/listing';
import { members, ROLES, users, type Role, type User } from '../db/schema';
import { groupEntries } from './schema';
import { type GroupCtx, type GroupPreload, type GroupRoutes } from './context';
import { inviteMail } from './invite-mail';
import { groupEntry } from './group-listing';
import { memberEvent, noMemberEvent } from './member-events';
import { moveMembership, removeMembership, roleHolders, writeMembership } from './members';
import { checkUsername, decideRoleDelete, decideRolePut, parseRole, type Membership } from './model';
import { membershipSchema } from './responses';

/** The user the path names and their membership of the group: read with the group (preload). */
const targetPreload: GroupPreload = (ctx, groupId) => {
  const name = ctx.params.user!;
  return [
    ctx.db.select().from(users).where(eq(users.username, name)),
    ctx.db
      .select({ role: members.role, state: members.state })
      .from(members)
      .where(
        and(
          eq(members.group_id, groupId),
          eq(members.user_id, sql`(select ${users.id} from ${users} where ${users.username} = ${name})`),
        ),
      ),
  ];
};

/** The preloaded target user (404 when there is none) and their membership. */
function preloadedTarget(gc: GroupCtx): { target: User; current: Membership | null } {
  const name = checkUsername(gc.params.user!);
  const [userRows, membershipRows] = gc.preloaded as [User[], Membership[]];
  const target = userRows[0];
  if (!target) throw notFound(`no such user: ${name}`);
  return { target, current: membershipRows[0] ?? null };
}

const callerMembership = (gc: GroupCtx): Membership | null =>
  gc.view.role ? { role: gc.view.role, state: 'active' } : null;

/**
 * Invites `target` into `role` (pending) and sends the invitation e-mail; when the e-mail
 * cannot be sent, the membership goes back to what it was (502). Whether an e-mail went out
 * (not when the user has no address).
 */
async function invite(gc: GroupCtx, target: User, current: Membership | null, role: Role): Promise<boolean> {
  const pending: Membership = { role, state: 'pending' };
  const mail = inviteMail(gc.env, gc, target, role);
  const event = memberEvent(gc, 'member.invited', gc.group, target.username, role);
  // The invitation's outbox row and the member.invited event join the membership's batch, written only when the
  // invite is.
  const results = await writeMembership(
    gc.db,
    gc.group.id,
    target.id,
    current,
    { ...pending, invited_by: gc.caller!.id },
    (written) => [...(mail ? [outboxInsert(gc.env, gc.db, mail, written)] : []), ...event.also(written)],
  );
  event.recorded(results);
  if (!mail) return false;
  try {
    await handOff(gc.env, mail);
    return true;
  } catch (err) {
    console.error('invite delivery failed', err);
    if (current) await moveMembership(gc.db, gc.group.id, target.id, pending, current);
    else await removeMembership(gc.db, gc.group.id, target.id, pending);
    throw new HttpError(502, 'the invitation e-mail could not be sent; nothing was changed');
  }
}

export function roleRoutes(g: GroupRoutes): void {
  g.get('/role', {
    summary: "The caller's role in the group; empty until one is held",
    need: 'see',
    responses: {
      200: {
        description: 'founders, admins, superusers, members or empty',
        type: 'text/plain',
        schema: () => text('admins'),
      },
    },
    handler: (gc) => textResponse(gc.view.role ?? ''),
  });

  g.get('/roles', {
    summary: 'The role folders',
    need: 'see',
    responses: listingResponses,
    handler: (gc) =>
      listingResponse(
        gc.url,
        ROLES.map((r) => ({ name: r, uri: `${gc.base}/roles/${r}`, ...groupEntry(gc.group, gc.view) })),
      ),
  });

  g.get('/roles/:role', {
    summary: 'Holders of a role; pending invitees carry the I- prefix',
    need: 'roster',
    auth: 'optional',
    responses: listingResponses,
    handler: async (gc) => {
      const role = parseRole(gc.params.role!);
      const rows = await roleHolders(gc.db, gc.group.id, role);
      const items: ListingItem[] = rows.map((r) => ({
        name: r.state === 'pending' ? `I-${r.username}` : r.username,
        uri: `${gc.base}/roles/${role}/${r.username}`,
        type: 'file',
        permissions: gc.view.manage ? ['r', 'w', 'd'] : ['r'],
        actions: gc.view.manage ? ['PUT', 'DELETE'] : [],
        created_on: r.created_on,
        last_modified: r.last_modified,
      }));
      return listingResponse(gc.url, items);
    },
  });

  g.put('/roles/:role/:user', {
    summary:
      'Invite a user into a role, promote or demote a member, claim a role (org founders/admins) or join an open group',
    need: 'see',
    // The target user, their membership and the is_open option read with the group.
    preload: (ctx, groupId) => [
      ...targetPreload(ctx, groupId),
      ctx.db
        .select({ value: groupEntries.value })
        .from(groupEntries)
        .where(and(eq(groupEntries.group_id, groupId), eq(groupEntries.path, 'options/is_open'))),
    ],
    responses: {
      200: { description: 'Role changed', type: 'application/json', schema: membershipSchema },
      201: { description: 'Invited (pending) or joined (active)', type: 'application/json', schema: membershipSchema },
    },
    handler: async (gc) => {
      const role = parseRole(gc.params.role!);
      const { target, current } = preloadedTarget(gc);
      const openRows = gc.preloaded![2] as { value: string | null }[];
      const self = target.id === gc.caller!.id;
      const move = decideRolePut({
        caller: callerMembership(gc),
        callerOrgManager: gc.view.oversight,
        self,
        target: current,
        wanted: role,
        isOpen: self && current?.state !== 'active' ? openRows[0]?.value === 'yes' : false,
      });
      if (move.kind === 'refuse') throw new HttpError(move.status, move.message);
      const answer = (state: Membership['state'], extra = {}) =>
        jsonResponse(
          { group: gc.group.ref, username: target.username, role, state, ...extra },
          { status: current ? 200 : 201 },
        );
      if (move.kind === 'invite' || move.kind === 'reinvite') {
        const sent = await invite(gc, target, current, role);
        return answer('pending', { invitation_sent: sent });
      }
      // A promotion or demotion of an active member is no join.
      const event =
        current?.state === 'active' ? noMemberEvent : memberEvent(gc, 'member.joined', gc.group, target.username, role);
      event.recorded(
        await writeMembership(gc.db, gc.group.id, target.id, current, { role, state: 'active' }, event.also),
      );
      return answer('active');
    },
  });

  g.delete('/roles/:role/:user', {
    summary: 'Remove a user from a role (or revoke their invite); anyone may leave their own role',
    need: 'see',
    preload: targetPreload,
    responses: { 204: { description: 'Removed' } },
    handler: async (gc) => {
      const role = parseRole(gc.params.role!);
      const { target, current } = preloadedTarget(gc);
      const ok = decideRoleDelete({
        caller: callerMembership(gc),
        self: target.id === gc.caller!.id,
        target: current,
        wanted: role,
      });
      if (!ok.ok)
        throw new HttpError(
          ok.status,
          ok.status === 404 ? `${target.username} does not hold the role ${role} in ${gc.group.ref}` : ok.message,
        );
      const event =
        current!.state === 'active'
          ? memberEvent(gc, 'member.left', gc.group, target.username, current!.role)
          : noMemberEvent;
      event.recorded(await removeMembership(gc.db, gc.group.id, target.id, current!, event.also));
      return noContent();
    },
  });
}
