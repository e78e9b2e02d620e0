/**
 * Comment threads of a resource kind without a comments switch (grids, e-mails): every
 * reader opens topics and comments, the owner moderates. Documents mount theirs in the
 * docs area (config/comments turns them off there).
 */
import { permList } from '../perms';
import type { ResourceCtx, ResourceRoutes } from './kind';
import { threadRoutes } from '../thread';

export function resourceThreadRoutes(r: ResourceRoutes, noun: string): void {
  threadRoutes<ResourceCtx>(r.with({ need: 'r' }), {
    noun,
    subject: (rc) => ({ resource_id: rc.resource.id }),
    base: (rc) => rc.base,
    rights: (rc) => ({ permissions: permList(rc.access), moderator: rc.access.owner }),
    writeRefusal: () => null,
  });
}
