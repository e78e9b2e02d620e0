/** Routes of the grids area (not built yet). */
import type { Api } from '../core/api';

export function gridRoutes(api: Api): void {
  void api;
}
