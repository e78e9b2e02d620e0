/** Sharing entries of a resource (`shared/<entry>`): list, share (owner), revoke (owner). */
import { and, asc, eq } from 'drizzle-orm';
import { shares } from '../../db/schema';
import { nowIso } from '../clock';
import { conflict, forbidden, notFound } from '../errors';
import { jsonResponse, noContent } from '../http';
import { listingResponse, listingResponses, type Verb } from '../listing';
import { logInsert } from '../log';
import { joinedGroupQuery, noSuchGroup, parseShareEntry } from '../sharing';
import { listingItem } from './listing-items';
import type { ResourceKind, ResourceRoutes } from './kind';
import { logEvent } from './log-routes';

export function shareRoutes(routes: ResourceRoutes, kind: ResourceKind): void {
  routes.get('/shared', {
    summary: 'List sharing entries',
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const rows = await rc.db
        .select()
        .from(shares)
        .where(eq(shares.resource_id, rc.resource.id))
        .orderBy(asc(shares.entry));
      const actions: Verb[] = rc.access.owner ? ['GET', 'DELETE'] : ['GET'];
      return listingResponse(
        rc.url,
        rows.map((s) =>
          listingItem(rc, s.entry, `${rc.base}/shared/${s.entry}`, 'file', actions, s.created_on, s.created_on),
        ),
      );
    },
  });
  routes.put('/shared/:entry', {
    summary:
      'Share: public, @user~group, +org~group or +org (a group the owner holds an active role in), with an optional ~perms suffix',
    need: 'owner',
    // The owner is the caller: read their row fresh, the auth cache may hold an old profile_public.
    preload: { caller: true },
    responses: {
      201: { description: 'Shared' },
      403: { description: 'Public share while the owner profile is private' },
      404: { description: 'No such group, or one the owner holds no active role in (the same answer)' },
      409: { description: 'Already shared' },
    },
    handler: async (rc) => {
      const ref = parseShareEntry(rc.params.entry!);
      if (!ref.groupRef && !(rc.preloaded?.caller ?? rc.owner).profile_public) {
        throw forbidden(
          'sharing with public requires a public profile: set it with POST /v1/admin/profile/public yes (profile_public is false)',
        );
      }
      // The group (with the owner's active role in it) and an existing share read together;
      // the share and its log line written together.
      const [groupRows, existing] = await rc.db.batch([
        joinedGroupQuery(rc.db, ref, rc.resource.owner_id),
        rc.db
          .select({ e: shares.entry })
          .from(shares)
          .where(and(eq(shares.resource_id, rc.resource.id), eq(shares.entry, ref.entry))),
      ]);
      if (ref.groupRef && !groupRows[0]) throw noSuchGroup(ref.groupRef);
      if (existing[0]) throw conflict(`already shared: ${ref.entry}`);
      const insert = rc.db.insert(shares).values({
        resource_id: rc.resource.id,
        entry: ref.entry,
        group_id: groupRows[0]?.id ?? null,
        perms: ref.perms,
        created_on: nowIso(),
      });
      if (kind.log) await rc.db.batch([insert, logInsert(rc.db, rc.resource.id, `shared with ${ref.entry}`)]);
      else await insert;
      return jsonResponse({ status: 201, message: `shared with ${ref.entry}` }, { status: 201 });
    },
  });
  routes.delete('/shared/:entry', {
    summary: 'Revoke a sharing entry',
    need: 'owner',
    responses: { 204: { description: 'Revoked' } },
    handler: async (rc) => {
      const entry = rc.params.entry!;
      const gone = await rc.db
        .delete(shares)
        .where(and(eq(shares.resource_id, rc.resource.id), eq(shares.entry, entry)))
        .returning()
        .get();
      if (!gone) throw notFound(`not shared with ${entry}`);
      await logEvent(rc, `sharing with ${entry} revoked`);
      return noContent();
    },
  });
}
