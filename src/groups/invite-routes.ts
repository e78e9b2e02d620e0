/**
 * The caller's invites, answered by the invited user only:
 *   GET  /v1/admin/invites              the caller's pending invites, keyed by group reference
 *   GET  /v1/admin/invites/<ref>        one pending invite: its accept entry
 *   POST /v1/admin/invites/<ref>/accept yes or no
 * Invites are made at <group>/roles/<role>/<user> (role-routes.ts).
 */
import type { Api } from '../core/api';
import type { Ctx } from '../core/context';
import { notFound } from '../core/errors';
import { DELETED_AUTHOR } from '../core/thread/rules';
import { yesNoText } from '../core/examples';
import { jsonResponse, readYesNo } from '../core/http';
import { listingResponse, listingResponses, listingSchema } from '../core/listing';
import type { Group, Role } from '../db/schema';
import { memberEvent, noMemberEvent } from './member-events';
import { answerInvite, groupByRef, membershipOf, pendingInvites } from './members';
import { parseGroupRef } from './model';
import { membershipSchema } from './responses';

/** The caller's pending invites and their answers (/v1/admin/invites). */
export function inviteRoutes(api: Api): void {
  const inviteUri = (ref: string) => `/v1/admin/invites/${ref}`;

  api.get('/v1/admin/invites', {
    summary: "The caller's pending invites, keyed by group reference",
    tag: 'groups',
    auth: 'user',
    responses: {
      200: { description: 'Listing (extra fields: role, invited_by)', type: 'application/json', schema: listingSchema },
    },
    handler: async (ctx) => {
      const rows = await pendingInvites(ctx.db, ctx.caller!.id);
      return listingResponse(
        ctx.url,
        rows.map((r) => ({
          name: r.group.ref,
          uri: inviteUri(r.group.ref),
          type: 'dir' as const,
          permissions: ['r' as const, 'w' as const],
          actions: ['GET' as const],
          created_on: r.created_on,
          last_modified: r.last_modified,
          role: r.role,
          // Every pending invite was sent by someone: none left means the inviter's account was deleted.
          invited_by: r.invited_by ?? DELETED_AUTHOR,
        })),
      );
    },
  });

  /** The caller's pending invite into `ref`, or 404 (also for someone else's invite). */
  const pendingInvite = async (ctx: Ctx): Promise<{ group: Group; role: Role }> => {
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
      return listingResponse(ctx.url, [
        {
          name: 'accept',
          uri: `${inviteUri(group.ref)}/accept`,
          type: 'file',
          permissions: ['w'],
          actions: ['POST'],
          created_on: group.created_on,
          last_modified: group.last_modified,
        },
      ]);
    },
  });

  api.post('/v1/admin/invites/:ref/accept', {
    summary: 'Accept (yes) or decline (no) an invite; only the invited user',
    tag: 'groups',
    auth: 'user',
    body: { type: 'text/plain', schema: yesNoText },
    responses: {
      200: { description: 'The membership after the answer', type: 'application/json', schema: membershipSchema },
    },
    handler: async (ctx) => {
      const { group, role } = await pendingInvite(ctx);
      const yes = await readYesNo(ctx.req);
      const event = yes ? memberEvent(ctx, 'member.joined', group, ctx.caller!.username, role) : noMemberEvent;
      const results = await answerInvite(ctx.db, group.id, ctx.caller!.id, yes, event.also);
      if (!results) throw notFound(`you have no pending invite to ${group.ref}`);
      event.recorded(results);
      return jsonResponse({
        group: group.ref,
        username: ctx.caller!.username,
        role,
        state: yes ? 'active' : 'declined',
      });
    },
  });
}
