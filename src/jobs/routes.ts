/** Routes of the jobs area (not built yet). */
import type { Api } from '../core/api';

export function jobRoutes(api: Api): void {
  void api;
}
