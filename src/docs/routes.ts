/**
 * Routes of the docs area: the document resource (common routes from the core plus
 * assets, vars, files, notifications, threads) and the read-only alias /v1/u/:user/d.
 */
import { and, eq } from 'drizzle-orm';
import type { Api } from '../core/api';
import { nowIso } from '../core/clock';
import { notFound, badRequest } from '../core/errors';
import { readEntry } from '../core/entries';
import { noContent, readText, textResponse } from '../core/http';
import { listingResponse, listingResponses } from '../core/listing';
import { permList } from '../core/perms';
import { listingItem, resourceRoutes, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { threadRoutes } from '../core/threads';
import { aliasRoutes } from './alias';
import { assetRoutes } from './assets';
import { docKind } from './kind';
import { docNotifications, NOTIFICATION_LEVELS, type NotificationLevel } from './schema';
import { varRoutes } from './var-routes';

/** What files/ lists: the two rendered outputs, and three renders documents do not have. */
export const DOC_FILES = ['doc.ansi', 'doc.pdf', 'doc.png', 'doc.pptx', 'doc.txt'];
const NOT_RENDERED = ['doc.png', 'doc.txt', 'doc.ansi'];

function fileRoutes(r: ResourceRoutes): void {
  r.get('/files', {
    summary: 'List the pre-rendered outputs of a document',
    need: 'r',
    responses: listingResponses,
    handler: async (rc) =>
      listingResponse(DOC_FILES.map((f) => listingItem(rc, f, `${rc.base}/files/${f}`, 'file', ['GET'], rc.resource.created_on, rc.resource.last_modified))),
  });
  for (const f of NOT_RENDERED) {
    r.get(`/files/${f}`, {
      summary: `${f}: not rendered for documents (404)`,
      need: 'r',
      responses: { 404: { description: 'Documents are rendered as doc.pdf and doc.pptx only' } },
      handler: async () => {
        throw notFound(`${f} is not rendered for documents: use files/doc.pdf or files/doc.pptx`);
      },
    });
  }
}

function notificationRoutes(r: ResourceRoutes): void {
  const where = (resourceId: number, userId: number) => and(eq(docNotifications.resource_id, resourceId), eq(docNotifications.user_id, userId));
  r.get('/notifications', {
    summary: "The caller's notification level for this document (info when not set)",
    need: 'r',
    responses: { 200: { description: 'ignore, info or important', type: 'text/plain' } },
    handler: async (rc) => {
      const row = await rc.db.select({ level: docNotifications.level }).from(docNotifications).where(where(rc.resource.id, rc.caller!.id)).get();
      return textResponse(row?.level ?? 'info');
    },
  });
  r.post('/notifications', {
    summary: "Set the caller's notification level: ignore, info or important",
    need: 'r',
    body: { type: 'text/plain' },
    responses: { 204: { description: 'Set' }, 400: { description: 'Not a level' } },
    handler: async (rc) => {
      const level = await readText(rc.req, 64);
      if (!(NOTIFICATION_LEVELS as readonly string[]).includes(level)) {
        throw badRequest(`invalid notification level '${level}': use ${NOTIFICATION_LEVELS.join(', ')}`);
      }
      const now = nowIso();
      await rc.db
        .insert(docNotifications)
        .values({ resource_id: rc.resource.id, user_id: rc.caller!.id, level: level as NotificationLevel, last_modified: now })
        .onConflictDoUpdate({ target: [docNotifications.resource_id, docNotifications.user_id], set: { level: level as NotificationLevel, last_modified: now } });
      return noContent();
    },
  });
  r.delete('/notifications', {
    summary: "Reset the caller's notification level (reads info again)",
    need: 'r',
    responses: { 204: { description: 'Reset' } },
    handler: async (rc) => {
      await rc.db.delete(docNotifications).where(where(rc.resource.id, rc.caller!.id));
      return noContent();
    },
  });
}

/**
 * Comment threads (src/core/threads.ts): whoever reads the document opens threads, reads
 * and comments while config/comments is true; the owner moderates.
 */
function docThreadRoutes(r: ResourceRoutes): void {
  threadRoutes<ResourceCtx>(r.with({ need: 'r' }), {
    noun: 'document',
    subject: (rc) => ({ resource_id: rc.resource.id }),
    base: (rc) => rc.base,
    rights: (rc) => ({ permissions: permList(rc.access), moderator: rc.access.owner }),
    writeRefusal: async (rc) =>
      ((await readEntry(rc.env, rc.db, rc.resource.id, 'config/comments')) ?? 'true') === 'true' ? null : 'comments are disabled for this document (config/comments is false)',
  });
}

export function docRoutes(api: Api): void {
  resourceRoutes(api, docKind, (r) => {
    assetRoutes(r);
    varRoutes(r);
    fileRoutes(r);
    notificationRoutes(r);
    docThreadRoutes(r);
  });
  aliasRoutes(api);
}
