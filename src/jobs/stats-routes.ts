/**
 * `<job>/stats/`: the folder of a job's statistics, holding `runs`: the full run history, streamed whole, or page by
 * page as every listing pages (`?limit`, `?cursor`, the Link header).
 */
import { fixedFolderRoute, type ResourceRoutes } from '../core/resource';
import { text } from '../core/examples';
import { wantsJson } from '../core/http';
import { listingQuery, partsPageResponse } from '../core/listing';
import { partsPageRequest } from '../core/paging';
import { requireRunReader } from './run/access';
import { HISTORY_PARTS, historyPage, historyStream, historyText } from './run/history';
import { once } from '../core/once';

/** What the history reads like, as historyStream writes it. */
const historyExample = once(() =>
  historyText(
    [
      {
        name: '20251002-093000-8f1c2a7b',
        started_on: '2025-10-02T09:30:00.118Z',
        trigger: 'schedule',
        duration: 4.784,
        status: 'success',
      },
      {
        name: '20251001-093000-3c9d0e6a',
        started_on: '2025-10-01T09:30:00.402Z',
        trigger: 'api',
        duration: 61.2,
        status: 'failed',
      },
    ],
    [],
  ),
);

export function statsRoutes(r: ResourceRoutes): void {
  fixedFolderRoute(r, 'stats', ['runs']);
  r.get('/stats/runs', {
    summary:
      'Full run history, one row per run, newest first (uncapped, streamed): text table, or JSON with Accept: application/json; ?limit and ?cursor page it (the Link header)',
    need: 'r',
    query: listingQuery,
    responses: { 200: { description: 'History', type: 'text/plain', schema: () => text(historyExample()) } },
    handler: async (rc) => {
      requireRunReader(rc);
      const json = wantsJson(rc.req);
      const page = partsPageRequest(rc.url, HISTORY_PARTS);
      if (page.paged)
        return partsPageResponse(rc.req, rc.url, await historyPage(rc.db, rc.resource.id, page), historyText);
      return new Response(historyStream(rc.db, rc.resource.id, json), {
        headers: { 'Content-Type': json ? 'application/json' : 'text/plain; charset=utf-8', 'X-NVM-Type': 'file' },
      });
    },
  });
}
