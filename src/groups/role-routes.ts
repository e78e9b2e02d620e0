/**
 * Roles and invites: the membership state machine over HTTP.
 *   PUT    <group>/roles/<role>/<user>    invite (pending, e-mail of kind invite), promote or
 *                                         demote, claim (org founder/admin), join (open group)
 *   DELETE <group>/roles/<role>/<user>    remove, revoke an invite, or leave
 *   GET    /v1/admin/invites              the caller's pending invites, keyed by group reference
 *   POST   /v1/admin/invites/<ref>/accept yes or no, by the invited user only
 */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Api } from '../core/api';
import { deliver } from '../core/mailer';
import { HttpError, notFound } from '../core/errors';
import { jsonResponse, noContent, readYesNo, textResponse } from '../core/http';
import { listingResponse, listingResponses, listingSchema, type ListingItem } from '../core/listing';
import { members, ROLES, users, type Group, type Role, type User } from '../db/schema';
import { groupEntries } from './schema';
import { type GroupCtx, type GroupRoutes } from './context';
import { addMembership, answerInvite, groupByRef, membershipOf, moveMembership, pendingInvites, removeMembership, roleHolders } from './members';
import { checkUsername, decideRoleDelete, decideRolePut, parseGroupRef, parseRole, type Membership } from './model';

const membershipSchema = z.object({ group: z.string(), username: z.string(), role: z.enum(ROLES), state: z.enum(['pending', 'active', 'declined']) });

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The invitation e-mail (kind `invite`) to the invited user's address; false when they have none. */
export async function sendInvite(env: Env, gc: GroupCtx, target: User, role: Role): Promise<boolean> {
  if (!target.email) return false;
  const ref = gc.group.ref;
  const accept = `${env.PUBLIC_ORIGIN}/v1/admin/invites/${ref}/accept`;
  const who = gc.caller!.username;
  const text =
    `${who} invites you to join ${ref} as ${role}.\n\n` +
    `To accept, POST the text "yes" to ${accept} (or "no" to decline).\n` +
    `Your pending invites are listed at ${env.PUBLIC_ORIGIN}/v1/admin/invites.\n`;
  const html =
    `<p>${escapeHtml(who)} invites you to join <b>${escapeHtml(ref)}</b> as ${escapeHtml(role)}.</p>` +
    `<p>To accept, POST the text <code>yes</code> to <code>${escapeHtml(accept)}</code> (or <code>no</code> to decline).</p>`;
  await deliver(env, gc.db, { kind: 'invite', to: [target.email], subject: `Invitation to join ${ref} as ${role}`, text, html });
  return true;
}

async function targetUser(gc: GroupCtx): Promise<User> {
  const name = checkUsername(gc.params.user!);
  if (gc.caller?.username === name) return gc.caller;
  const user = await gc.db.select().from(users).where(eq(users.username, name)).get();
  if (!user) throw notFound(`no such user: ${name}`);
  return user;
}

const callerMembership = (gc: GroupCtx): Membership | null => (gc.view.role ? { role: gc.view.role, state: 'active' } : null);

export function roleRoutes(g: GroupRoutes): void {
  g.get('/role', {
    summary: "The caller's role in the group; empty until one is held",
    need: 'see',
    responses: { 200: { description: 'founders, admins, superusers, members or empty', type: 'text/plain' } },
    handler: (gc) => textResponse(gc.view.role ?? ''),
  });

  g.get('/roles', {
    summary: 'The role folders',
    need: 'see',
    responses: listingResponses,
    handler: (gc) =>
      listingResponse(
        ROLES.map((r) => ({
          name: r,
          uri: `${gc.base}/roles/${r}`,
          type: 'dir',
          permissions: gc.view.manage ? ['r', 'w'] : ['r'],
          actions: ['GET'],
          created_on: gc.group.created_on,
          last_modified: gc.group.last_modified,
        })),
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
      return listingResponse(items);
    },
  });

  g.put('/roles/:role/:user', {
    summary: 'Invite a user into a role, promote or demote a member, claim a role (org founders/admins) or join an open group',
    need: 'see',
    // The target user, their membership and the is_open option read with the group.
    preload: (ctx, groupId) => {
      const name = ctx.params.user!;
      return [
        ctx.db.select().from(users).where(eq(users.username, name)),
        ctx.db
          .select({ role: members.role, state: members.state })
          .from(members)
          .where(and(eq(members.group_id, groupId), eq(members.user_id, sql`(select ${users.id} from ${users} where ${users.username} = ${name})`))),
        ctx.db.select({ value: groupEntries.value }).from(groupEntries).where(and(eq(groupEntries.group_id, groupId), eq(groupEntries.path, 'options/is_open'))),
      ];
    },
    responses: {
      200: { description: 'Role changed', type: 'application/json', schema: membershipSchema },
      201: { description: 'Invited (pending) or joined (active)', type: 'application/json', schema: membershipSchema },
    },
    handler: async (gc) => {
      const role = parseRole(gc.params.role!);
      const name = checkUsername(gc.params.user!);
      const [userRows, membershipRows, openRows] = gc.preloaded as [User[], Membership[], { value: string | null }[]];
      const target = userRows[0];
      if (!target) throw notFound(`no such user: ${name}`);
      const self = target.id === gc.caller!.id;
      const current = membershipRows[0] ?? null;
      const move = decideRolePut({
        caller: callerMembership(gc),
        callerOrgManager: gc.view.oversight,
        self,
        target: current,
        wanted: role,
        isOpen: self && current?.state !== 'active' ? openRows[0]?.value === 'yes' : false,
      });
      if (move.kind === 'refuse') throw new HttpError(move.status, move.message);
      const invitedBy = gc.caller!.id;
      let state: Membership['state'] = 'active';
      let status = 200;
      let invitation_sent = false;
      if (move.kind === 'invite' || move.kind === 'reinvite') {
        state = 'pending';
        if (current) await moveMembership(gc.db, gc.group.id, target.id, current, { role, state, invited_by: invitedBy });
        else await addMembership(gc.db, gc.group.id, target.id, { role, state, invited_by: invitedBy });
        status = current ? 200 : 201;
        try {
          invitation_sent = await sendInvite(gc.env, gc, target, role);
        } catch (err) {
          console.error('invite delivery failed', err);
          if (current) await moveMembership(gc.db, gc.group.id, target.id, { role, state }, current);
          else await removeMembership(gc.db, gc.group.id, target.id, { role, state });
          throw new HttpError(502, 'the invitation e-mail could not be sent; nothing was changed');
        }
      } else if (current) {
        await moveMembership(gc.db, gc.group.id, target.id, current, { role, state });
      } else {
        await addMembership(gc.db, gc.group.id, target.id, { role, state, invited_by: null });
        status = 201;
      }
      return jsonResponse({ group: gc.group.ref, username: target.username, role, state, ...(state === 'pending' ? { invitation_sent } : {}) }, { status });
    },
  });

  g.delete('/roles/:role/:user', {
    summary: 'Remove a user from a role (or revoke their invite); anyone may leave their own role',
    need: 'see',
    responses: { 204: { description: 'Removed' } },
    handler: async (gc) => {
      const role = parseRole(gc.params.role!);
      const target = await targetUser(gc);
      const current = await membershipOf(gc.db, gc.group.id, target.id);
      const ok = decideRoleDelete({ caller: callerMembership(gc), self: target.id === gc.caller!.id, target: current, wanted: role });
      if (!ok.ok) throw new HttpError(ok.status, ok.status === 404 ? `${target.username} does not hold the role ${role} in ${gc.group.ref}` : ok.message);
      await removeMembership(gc.db, gc.group.id, target.id, current!);
      return noContent();
    },
  });
}

/** The caller's pending invites and their answers (/v1/admin/invites). */
export function inviteRoutes(api: Api): void {
  const inviteUri = (ref: string) => `/v1/admin/invites/${ref}`;

  api.get('/v1/admin/invites', {
    summary: "The caller's pending invites, keyed by group reference",
    tag: 'groups',
    auth: 'user',
    responses: { 200: { description: 'Listing (extra fields: role, invited_by)', type: 'application/json', schema: listingSchema } },
    handler: async (ctx) => {
      const rows = await pendingInvites(ctx.db, ctx.caller!.id);
      return listingResponse(
        rows.map((r) => ({
          name: r.group.ref,
          uri: inviteUri(r.group.ref),
          type: 'dir' as const,
          permissions: ['r' as const, 'w' as const],
          actions: ['GET' as const],
          created_on: r.created_on,
          last_modified: r.last_modified,
          role: r.role,
          invited_by: r.invited_by,
        })),
      );
    },
  });

  /** The caller's pending invite into `ref`, or 404 (also for someone else's invite). */
  const pendingInvite = async (ctx: { db: GroupCtx['db']; caller: User | null; params: Record<string, string> }): Promise<{ group: Group; role: Role }> => {
    const ref = parseGroupRef(ctx.params.ref!).ref;
    const group = await groupByRef(ctx.db, ref);
    const m = group ? await membershipOf(ctx.db, group.id, ctx.caller!.id) : null;
    if (!group || m?.state !== 'pending') throw notFound(`you have no pending invite to ${ref}`);
    return { group, role: m.role };
  };

  api.get('/v1/admin/invites/:ref', {
    summary: 'One pending invite: its accept entry',
    tag: 'groups',
    auth: 'user',
    responses: listingResponses,
    handler: async (ctx) => {
      const { group } = await pendingInvite(ctx);
      return listingResponse([
        { name: 'accept', uri: `${inviteUri(group.ref)}/accept`, type: 'file', permissions: ['w'], actions: ['POST'], created_on: group.created_on, last_modified: group.last_modified },
      ]);
    },
  });

  api.post('/v1/admin/invites/:ref/accept', {
    summary: 'Accept (yes) or decline (no) an invite; only the invited user',
    tag: 'groups',
    auth: 'user',
    body: { type: 'text/plain', schema: z.enum(['yes', 'no']) },
    responses: { 200: { description: 'The membership after the answer', type: 'application/json', schema: membershipSchema } },
    handler: async (ctx) => {
      const { group, role } = await pendingInvite(ctx);
      const yes = await readYesNo(ctx.req);
      if (!(await answerInvite(ctx.db, group.id, ctx.caller!.id, yes))) throw notFound(`you have no pending invite to ${group.ref}`);
      return jsonResponse({ group: group.ref, username: ctx.caller!.username, role, state: yes ? 'active' : 'declined' });
    },
  });

}
