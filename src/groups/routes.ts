/** Routes of the groups area (not built yet). */
import type { Api } from '../core/api';

export function groupRoutes(api: Api): void {
  void api;
}
