/** Routes of the meta area: the API describes itself (handlers: reference-routes.ts). */
import type { Api } from '../core/api';
import { referenceRoutes } from './reference-routes';

export function metaRoutes(api: Api): void {
  // GET /v1/openapi.json
  // GET /v1/docs
  // GET /v1/docs/scalar.js
  referenceRoutes(api);
}
