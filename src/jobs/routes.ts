/**
 * Routes of the jobs area: the job resource (common routes from resourceRoutes) and, below
 * each job, the entry families in the spec's order.
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { codeRoutes } from './code-routes';
import { envRoutes } from './env-routes';
import { jobKind } from './kind';
import { jobPageRoute } from './page-routes';
import { runRouter, runRoutes } from './run-routes';
import { statsRoutes } from './stats-routes';
import { triggerRoutes } from './trigger-routes';

export { jobKind };

export function jobRoutes(api: Api): void {
  resourceRoutes(api, jobKind, (r) => {
    triggerRoutes(r); // POST data
    runRoutes(r, runRouter(api)); // runs/, runs/<run>/{status,stats,log,output}, log
    statsRoutes(r); // stats/, stats/runs
    codeRoutes(r); // code/, code/<file>
    envRoutes(r); // config/env/, config/env/<name>
  });
  jobPageRoute(api); // /u/<user>/j/<job>, the job's url
}
