/** Routes of the mail area (not built yet). */
import type { Api } from '../core/api';

export function mailRoutes(api: Api): void {
  void api;
}
