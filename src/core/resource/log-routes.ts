/** A resource's log (kinds with `log`): the lines its routes append, served at <resource>/log. */
import { appendLog, logResponse, readLog } from '../log';
import type { ResourceCtx, ResourceKind, ResourceRoutes } from './kind';

/** Appends a line to the resource's log when its kind keeps one. */
export function logEvent(rc: ResourceCtx, message: string): Promise<void> {
  return rc.kind.log ? appendLog(rc.db, rc.resource.id, message) : Promise.resolve();
}

export function logRoute(routes: ResourceRoutes, kind: ResourceKind): void {
  routes.get('/log', {
    summary: `What happened to the ${kind.noun}: text, or JSON entries with Accept: application/json`,
    need: 'r',
    responses: { 200: { description: 'Log', type: 'text/plain' } },
    handler: async (rc) => logResponse(rc.req, await readLog(rc.db, rc.resource.id)),
  });
}
