/**
 * The route table of the whole platform: each area mounts its routes here. The order is
 * the router's (the first matching route answers) and the OpenAPI document's.
 */
import { accountRoutes } from './accounts/routes';
import { Api, type ApiOptions } from './core/api';
import { docRoutes } from './docs/routes';
import { gqlRoutes } from './gql/routes';
import { gridRoutes } from './grids/routes';
import { groupRoutes } from './groups/routes';
import { jobRoutes } from './jobs/routes';
import { mailRoutes } from './mail/routes';
import { metaRoutes } from './meta/routes';
import { plotRoutes } from './plots/routes';
import { renderRoutes } from './render/routes';
import { webhookRoutes } from './webhooks/routes';

export function buildApi(options?: ApiOptions): Api {
  const api = new Api(options);
  accountRoutes(api);
  groupRoutes(api);
  docRoutes(api);
  plotRoutes(api);
  renderRoutes(api);
  gridRoutes(api);
  jobRoutes(api);
  mailRoutes(api);
  webhookRoutes(api);
  gqlRoutes(api);
  metaRoutes(api);
  return api;
}

/**
 * The platform's Api, built on first use: not at module load, so the Worker's startup does
 * not build the zod schemas of every route (a Worker that only receives mail never does).
 */
let built: Api | undefined;
export const platformApi = (): Api => (built ??= buildApi());
