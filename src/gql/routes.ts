/** Routes of the gql area (not built yet). */
import type { Api } from '../core/api';

export function gqlRoutes(api: Api): void {
  void api;
}
