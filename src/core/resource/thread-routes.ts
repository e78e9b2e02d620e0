/**
 * Comment threads of a resource kind: every reader opens topics and comments, the owner
 * moderates. A kind with a comments switch (documents: config/comments) passes
 * `writeRefusal`, which says why the caller may not write now.
 */
import { permList } from '../perms';
import type { ResourceCtx, ResourceRoutes } from './kind';
import { threadRoutes, type ThreadHost } from '../thread';

export function resourceThreadRoutes(
  r: ResourceRoutes,
  noun: string,
  writeRefusal: ThreadHost<ResourceCtx>['writeRefusal'] = () => null,
): void {
  threadRoutes<ResourceCtx>(r.with({ need: 'r' }), {
    noun,
    subject: (rc) => ({ resource_id: rc.resource.id }),
    base: (rc) => rc.base,
    rights: (rc) => ({ permissions: permList(rc.access), moderator: rc.access.owner }),
    writeRefusal,
  });
}
