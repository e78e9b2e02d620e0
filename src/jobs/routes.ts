/**
 * Routes of the jobs area: the job resource (common routes from resourceRoutes) and, below
 * each job, the entry families in the order docs/areas/jobs.md describes them.
 *
 * Every path below /v1/code/jobs is also served below /v1/users/:owner/code/jobs (the owner's
 * path, as a share grantee sees it), except PUT (create). docs/ROUTES.md lists each route
 * with the file that declares it.
 */
import type { Api } from '../core/api';
import { resourceRoutes } from '../core/resource';
import { codeRoutes } from './code-routes';
import { envRoutes } from './env-routes';
import { jobKind } from './kind';
import { jobPageRoute } from './page-routes';
import { runRouter, runRoutes } from './run/run-routes';
import { statsRoutes } from './stats-routes';
import { triggerRoutes } from './trigger-routes';

export function jobRoutes(api: Api): void {
  // GET /v1/code/jobs
  // PUT|GET|PATCH|DELETE /v1/code/jobs/:job
  // GET|POST|DELETE /v1/code/jobs/:job/name
  // GET|POST|DELETE /v1/code/jobs/:job/description
  // GET|POST|DELETE /v1/code/jobs/:job/summary
  // GET /v1/code/jobs/:job/shortname
  // GET /v1/code/jobs/:job/url
  // GET|POST|DELETE /v1/code/jobs/:job/config/type
  // GET|POST|DELETE /v1/code/jobs/:job/config/chains
  // GET|POST|DELETE /v1/code/jobs/:job/config/schedule
  // GET|POST|DELETE /v1/code/jobs/:job/config/enabled
  // GET|POST|DELETE /v1/code/jobs/:job/config/network
  // GET /v1/code/jobs/:job/config
  // GET /v1/code/jobs/:job/shared
  // PUT|DELETE /v1/code/jobs/:job/shared/:entry
  // GET /v1/code/jobs/:job/tags
  // PUT|DELETE /v1/code/jobs/:job/tags/:tag
  resourceRoutes(api, jobKind, (r) => {
    // POST /v1/code/jobs/:job/data
    triggerRoutes(r);
    // GET /v1/code/jobs/:job/runs
    // GET /v1/code/jobs/:job/runs/:run
    // GET|POST /v1/code/jobs/:job/runs/:run/status
    // GET /v1/code/jobs/:job/runs/:run/stats
    // GET /v1/code/jobs/:job/runs/:run/log
    // GET /v1/code/jobs/:job/runs/:run/output
    // GET /v1/code/jobs/:job/log
    runRoutes(r, runRouter(api));
    // GET /v1/code/jobs/:job/stats
    // GET /v1/code/jobs/:job/stats/runs
    statsRoutes(r);
    // GET /v1/code/jobs/:job/code
    // POST /v1/code/jobs/:job/code/approve
    // GET|POST|DELETE /v1/code/jobs/:job/code/:file
    codeRoutes(r);
    // GET /v1/code/jobs/:job/config/env
    // GET|POST|DELETE /v1/code/jobs/:job/config/env/:name
    envRoutes(r);
  });
  // GET /u/:user/j/:job
  jobPageRoute(api);
}
