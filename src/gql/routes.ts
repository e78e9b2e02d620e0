/** Routes of the gql area: the GraphQL read API (its handlers: query-routes.ts). */
import type { Api } from '../core/api';
import { queryRoutes } from './query-routes';

export function gqlRoutes(api: Api): void {
  // POST|GET /gql
  queryRoutes(api);
}
