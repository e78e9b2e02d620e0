/** Routes of the render area (not built yet). */
import type { Api } from '../core/api';

export function renderRoutes(api: Api): void {
  void api;
}
