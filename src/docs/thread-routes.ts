/**
 * Comment threads (src/core/threads.ts): whoever reads the document opens threads, reads
 * and comments while config/comments is true; the owner moderates.
 */
import { readEntry } from '../core/entries';
import { permList } from '../core/perms';
import type { ResourceCtx, ResourceRoutes } from '../core/resource';
import { threadRoutes } from '../core/thread';

export function docThreadRoutes(r: ResourceRoutes): void {
  threadRoutes<ResourceCtx>(r.with({ need: 'r' }), {
    noun: 'document',
    subject: (rc) => ({ resource_id: rc.resource.id }),
    base: (rc) => rc.base,
    rights: (rc) => ({ permissions: permList(rc.access), moderator: rc.access.owner }),
    writeRefusal: async (rc) =>
      ((await readEntry(rc.env, rc.db, rc.resource.id, 'config/comments')) ?? 'true') === 'true' ? null : 'comments are disabled for this document (config/comments is false)',
  });
}
