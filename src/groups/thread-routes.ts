/**
 * Comment threads of the three group trees (src/core/thread/): accepted members of any
 * role read and write, founders and admins moderate; founders and admins of an org read
 * the threads of its groups (oversight is read-only). Everyone else: 404.
 */
import { notFound } from '../core/errors';
import { threadRoutes } from '../core/thread';
import type { GroupCtx, GroupRoutes } from './context';

export function groupThreadRoutes(g: GroupRoutes): void {
  threadRoutes<GroupCtx>(g.with({ need: 'see' }), {
    noun: 'group',
    subject: (gc) => ({ group_id: gc.group.id }),
    base: (gc) => gc.base,
    rights: (gc) => {
      if (!gc.view.insider)
        throw notFound('no comment threads here: the threads of a group are for its accepted members');
      return {
        permissions: gc.view.manage ? ['r', 'w', 'd'] : gc.view.role ? ['r', 'w'] : ['r'],
        moderator: gc.view.manage,
      };
    },
    writeRefusal: (gc) =>
      gc.view.role
        ? null
        : "oversight is read-only: founders and admins of the organisation read its groups' threads; claim a role in the group to take part",
  });
}
