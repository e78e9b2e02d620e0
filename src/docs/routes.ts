/** Routes of the docs area (not built yet). */
import type { Api } from '../core/api';

export function docRoutes(api: Api): void {
  void api;
}
