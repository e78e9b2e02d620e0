/**
 * Comment threads (src/core/thread): whoever reads the document opens threads, reads
 * and comments while config/comments is true; the owner moderates.
 */
import { readEntry } from '../core/entries';
import type { ResourceRoutes } from '../core/resource';
import { resourceThreadRoutes } from '../core/resource/thread-routes';

export function docThreadRoutes(r: ResourceRoutes): void {
  resourceThreadRoutes(r, 'document', async (rc) =>
    ((await readEntry(rc.env, rc.db, rc.resource.id, 'config/comments')) ?? 'true') === 'true'
      ? null
      : 'comments are disabled for this document (config/comments is false)',
  );
}
