/**
 * Routes of the docs area: the document resource (common routes from the core plus
 * assets, vars, files, notifications, threads) and the read-only alias /v1/u/:user/d.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Api } from '../core/api';
import { nowIso } from '../core/clock';
import { conflict, forbidden, notFound, badRequest } from '../core/errors';
import { readEntry } from '../core/entries';
import { jsonResponse, noContent, readText, textResponse } from '../core/http';
import { listingResponse, listingResponses } from '../core/listing';
import { GROUP_NAME } from '../core/names';
import { listingItem, resourceRoutes, type ResourceRoutes } from '../core/resources';
import { aliasRoutes } from './alias';
import { assetRoutes } from './assets';
import { docKind } from './kind';
import { docNotifications, docThreads, NOTIFICATION_LEVELS, type NotificationLevel } from './schema';
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

function threadRoutes(r: ResourceRoutes): void {
  r.get('/threads', {
    summary: 'List comment thread topics',
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const rows = await rc.db.select().from(docThreads).where(eq(docThreads.resource_id, rc.resource.id)).orderBy(asc(docThreads.topic));
      return listingResponse(
        rows.map((t) => listingItem(rc, t.topic, `${rc.base}/threads/${t.topic}`, 'dir', rc.access.owner || t.created_by === rc.caller!.id ? ['GET', 'DELETE'] : ['GET'], t.created_on, t.created_on)),
      );
    },
  });
  r.put('/threads/:topic', {
    summary: 'Open a comment thread (needs read access and config/comments true)',
    need: 'r',
    responses: { 201: { description: 'Opened' }, 403: { description: 'Comments are disabled' }, 409: { description: 'Already exists' } },
    handler: async (rc) => {
      const topic = rc.params.topic!;
      if (!GROUP_NAME.test(topic)) throw badRequest(`invalid topic '${topic}': must match ${GROUP_NAME.source}`);
      const comments = (await readEntry(rc.env, rc.db, rc.resource.id, 'config/comments')) ?? 'true';
      if (comments !== 'true') throw forbidden('comments are disabled for this document (config/comments is false)');
      const row = await rc.db
        .insert(docThreads)
        .values({ resource_id: rc.resource.id, topic, created_by: rc.caller!.id, created_on: nowIso() })
        .onConflictDoNothing()
        .returning()
        .get();
      if (!row) throw conflict(`thread '${topic}' already exists`);
      return jsonResponse({ status: 201, message: `thread ${topic} opened` }, { status: 201 });
    },
  });
  r.delete('/threads/:topic', {
    summary: 'Remove a comment thread (the owner or whoever opened it)',
    need: 'r',
    responses: { 204: { description: 'Removed' } },
    handler: async (rc) => {
      const key = and(eq(docThreads.resource_id, rc.resource.id), eq(docThreads.topic, rc.params.topic!));
      const t = await rc.db.select().from(docThreads).where(key).get();
      if (!t) throw notFound(`no such thread: ${rc.params.topic}`);
      if (!rc.access.owner && t.created_by !== rc.caller!.id) throw forbidden('only the owner or whoever opened a thread may remove it');
      await rc.db.delete(docThreads).where(key);
      return noContent();
    },
  });
}

export function docRoutes(api: Api): void {
  resourceRoutes(api, docKind, (r) => {
    assetRoutes(r);
    varRoutes(r);
    fileRoutes(r);
    notificationRoutes(r);
    threadRoutes(r);
  });
  aliasRoutes(api);
}
