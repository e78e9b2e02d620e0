/** The caller's notification level for a document (ignore, info or important; info when not set). */
import { and, eq } from 'drizzle-orm';
import * as z from 'zod';
import { nowIso } from '../core/clock';
import { badRequest } from '../core/errors';
import { noContent, readText, textResponse } from '../core/http';
import type { ResourceRoutes } from '../core/resource';
import { docNotifications, NOTIFICATION_LEVELS, type NotificationLevel } from './schema';
import { once } from '../core/once';

/** A notification level as text: ignore, info or important. */
const notificationLevel = once(() => z.enum(NOTIFICATION_LEVELS).meta({ example: 'important' }));

export function notificationRoutes(r: ResourceRoutes): void {
  const where = (resourceId: number, userId: number) =>
    and(eq(docNotifications.resource_id, resourceId), eq(docNotifications.user_id, userId));
  r.get('/notifications', {
    summary: "The caller's notification level for this document (info when not set)",
    need: 'r',
    responses: { 200: { description: 'ignore, info or important', type: 'text/plain', schema: notificationLevel } },
    handler: async (rc) => {
      const row = await rc.db
        .select({ level: docNotifications.level })
        .from(docNotifications)
        .where(where(rc.resource.id, rc.caller!.id))
        .get();
      return textResponse(row?.level ?? 'info');
    },
  });
  r.post('/notifications', {
    summary: "Set the caller's notification level: ignore, info or important",
    need: 'r',
    body: { type: 'text/plain', schema: notificationLevel },
    responses: { 204: { description: 'Set' }, 400: { description: 'Not a level' } },
    handler: async (rc) => {
      const level = await readText(rc.req, 64);
      if (!(NOTIFICATION_LEVELS as readonly string[]).includes(level)) {
        throw badRequest(`invalid notification level '${level}': use ${NOTIFICATION_LEVELS.join(', ')}`);
      }
      const now = nowIso();
      await rc.db
        .insert(docNotifications)
        .values({
          resource_id: rc.resource.id,
          user_id: rc.caller!.id,
          level: level as NotificationLevel,
          last_modified: now,
        })
        .onConflictDoUpdate({
          target: [docNotifications.resource_id, docNotifications.user_id],
          set: { level: level as NotificationLevel, last_modified: now },
        });
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
