/** `<job>/stats/`: the folder of a job's statistics, holding `runs` (the full run history). */
import { fixedFolderRoute, type ResourceRoutes } from '../core/resource';
import { wantsJson } from '../core/http';
import { requireRunReader } from './run-access';
import { historyStream } from './run-reads';

export function statsRoutes(r: ResourceRoutes): void {
  fixedFolderRoute(r, 'stats', ['runs']);
  r.get('/stats/runs', {
    summary: 'Full run history (uncapped, streamed): text table, or JSON with Accept: application/json',
    need: 'r',
    responses: { 200: { description: 'History', type: 'text/plain' } },
    handler: async (rc) => {
      requireRunReader(rc);
      const json = wantsJson(rc.req);
      return new Response(historyStream(rc.db, rc.resource.id, json), {
        headers: { 'Content-Type': json ? 'application/json' : 'text/plain; charset=utf-8', 'X-NVM-Type': 'file' },
      });
    },
  });
}
