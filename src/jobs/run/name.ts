/** A run's name (`<YYYYMMDD>-<HHMMSS>-<request id>`, its id in urls) and its request id. */
import { randomBytes } from '../../core/crypto';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `<YYYYMMDD>-<HHMMSS>-<request id>` (UTC). */
export function runName(at: number, requestId: string): string {
  const d = new Date(at);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}-${requestId}`;
}

export const RUN_NAME = /^\d{8}-\d{6}-[a-z0-9]{6,40}$/;

/** A request id: the cf-ray when there is one, else random. Lowercase alphanumerics. */
export function requestId(req?: Request): string {
  const ray = req?.headers
    .get('cf-ray')
    ?.split('-')[0]
    ?.toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  const rand = [...randomBytes(6)].map((b) => b.toString(16).padStart(2, '0')).join('');
  // A ray is unique per request, but a run name must be unique across subrequests too.
  return ray && ray.length >= 6 ? `${ray.slice(0, 16)}${rand.slice(0, 4)}` : rand;
}
