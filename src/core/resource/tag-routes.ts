/** The caller's own tags on a resource (`tags/<tag>`): list, add, remove; any reader may tag. */
import { and, asc, eq } from 'drizzle-orm';
import { tags } from '../../db/schema';
import { nowIso } from '../clock';
import { badRequest, conflict, notFound } from '../errors';
import { jsonResponse, noContent } from '../http';
import { listingResponse, listingResponses } from '../listing';
import { listingItem } from './listing-items';
import type { ResourceRoutes } from './kind';

const SYSTEM_TAGS = ['fav', 'like', 'ignore', 'wip', 'archived'];
const TAG_RE = /^[+=][a-z0-9][a-z0-9_-]{0,63}$/;

export function checkTag(tag: string): string {
  if (SYSTEM_TAGS.includes(tag) || TAG_RE.test(tag)) return tag;
  throw badRequest(`invalid tag '${tag}': use ${SYSTEM_TAGS.join(', ')}, +name (user tag) or =name (category tag)`);
}

export function tagRoutes(routes: ResourceRoutes): void {
  routes.get('/tags', {
    summary: "List the caller's tags on this resource",
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const rows = await rc.db
        .select()
        .from(tags)
        .where(and(eq(tags.resource_id, rc.resource.id), eq(tags.user_id, rc.caller!.id)))
        .orderBy(asc(tags.tag));
      return listingResponse(
        rc.url,
        rows.map((t) =>
          listingItem(rc, t.tag, `${rc.base}/tags/${t.tag}`, 'file', ['GET', 'DELETE'], t.created_on, t.created_on),
        ),
      );
    },
  });
  routes.put('/tags/:tag', {
    summary: 'Add a tag: fav, like, ignore, wip, archived, +name or =name',
    need: 'r',
    responses: { 201: { description: 'Tagged' }, 409: { description: 'Already tagged' } },
    handler: async (rc) => {
      const tag = checkTag(rc.params.tag!);
      try {
        await rc.db
          .insert(tags)
          .values({ resource_id: rc.resource.id, user_id: rc.caller!.id, tag, created_on: nowIso() });
      } catch {
        throw conflict(`already tagged ${tag}`);
      }
      return jsonResponse({ status: 201, message: `tagged ${tag}` }, { status: 201 });
    },
  });
  routes.delete('/tags/:tag', {
    summary: 'Remove a tag',
    need: 'r',
    responses: { 204: { description: 'Removed' } },
    handler: async (rc) => {
      const gone = await rc.db
        .delete(tags)
        .where(and(eq(tags.resource_id, rc.resource.id), eq(tags.user_id, rc.caller!.id), eq(tags.tag, rc.params.tag!)))
        .returning()
        .get();
      if (!gone) throw notFound(`no tag ${rc.params.tag}`);
      return noContent();
    },
  });
}
