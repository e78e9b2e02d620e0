/** `<job>/stats/`: the folder of a job's statistics, holding `runs` (the full run history). */
import { fixedFolderRoute, type ResourceRoutes } from '../core/resource';
import { text } from '../core/examples';
import { wantsJson } from '../core/http';
import { requireRunReader } from './run-access';
import { HISTORY_HEADER, historyLine, historyStream } from './run-reads';

/** What the history reads like, as historyStream writes it. */
const HISTORY_EXAMPLE =
  HISTORY_HEADER +
  historyLine({
    name: '20251002-093000-8f1c2a7b',
    started_on: '2025-10-02T09:30:00.118Z',
    trigger: 'schedule',
    duration: 4.784,
    status: 'success',
  }) +
  historyLine({
    name: '20251001-093000-3c9d0e6a',
    started_on: '2025-10-01T09:30:00.402Z',
    trigger: 'api',
    duration: 61.2,
    status: 'failed',
  });

export function statsRoutes(r: ResourceRoutes): void {
  fixedFolderRoute(r, 'stats', ['runs']);
  r.get('/stats/runs', {
    summary: 'Full run history (uncapped, streamed): text table, or JSON with Accept: application/json',
    need: 'r',
    responses: { 200: { description: 'History', type: 'text/plain', schema: text(HISTORY_EXAMPLE) } },
    handler: async (rc) => {
      requireRunReader(rc);
      const json = wantsJson(rc.req);
      return new Response(historyStream(rc.db, rc.resource.id, json), {
        headers: { 'Content-Type': json ? 'application/json' : 'text/plain; charset=utf-8', 'X-NVM-Type': 'file' },
      });
    },
  });
}
