/** A resource's log (kinds with `log`): the lines its routes append, served at <resource>/log. */
import * as z from 'zod';
import { text } from '../examples';
import { appendLog, LOG_PAGE_MAX, logTextExample, logPageQuery, logResponse, readLog } from '../log';
import type { ResourceCtx, ResourceKind, ResourceRoutes } from './kind';

/** Appends a line to the resource's log when its kind keeps one. */
export function logEvent(rc: ResourceCtx, message: string): Promise<void> {
  return rc.kind.log ? appendLog(rc.db, rc.resource.id, message) : Promise.resolve();
}

export function logRoute(routes: ResourceRoutes, kind: ResourceKind): void {
  routes.get('/log', {
    summary: `What happened to the ${kind.noun}: text, or JSON entries with Accept: application/json; the newest ${LOG_PAGE_MAX} lines (?limit fewer), older ones with ?before=<X-Log-Before of the page>`,
    need: 'r',
    query: () =>
      z.object({ limit: z.string().optional(), before: z.string().optional(), cursor: z.string().optional() }),
    responses: {
      200: {
        description: 'Log, oldest line first; X-Log-Before when older lines exist',
        type: 'text/plain',
        schema: () => text(logTextExample()),
      },
      400: { description: 'A limit or before that is not one' },
    },
    handler: async (rc) => {
      const page = await readLog(rc.db, rc.resource.id, logPageQuery(rc.url));
      return logResponse(rc.req, page.entries, page.before);
    },
  });
}
