/**
 * Per-caller request rate limits through the Workers Rate Limiting binding (RATE_LIMIT,
 * `[[ratelimits]]` in wrangler.toml: its `simple.limit` requests per `simple.period`
 * seconds is the deployment's limit). One binding call per request, before routing.
 *
 * - A bearer token is counted under the SHA-256 of the token (never the token itself),
 *   whether or not the token is valid: an unknown token is limited like a known one.
 * - Anonymous callers are counted by their address (CF-Connecting-IP, set by Cloudflare;
 *   an IPv6 address counts as its /64, which one client usually holds whole).
 * - The operator token (OPS_TOKEN) is exempt and not counted.
 * - Without the binding, or with RATE_LIMITING = "off", nothing is limited.
 */
import { timingSafeEqual } from './crypto';
import { bearerToken, hashToken } from './auth';
import { HttpError } from './errors';

/** Must match `simple.period` of the RATE_LIMIT binding (Cloudflare accepts 10 or 60). */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

/** The key a request is counted under, or null when it is exempt. */
export async function rateLimitKey(req: Request, env: Env): Promise<string | null> {
  const token = bearerToken(req);
  if (token) {
    if (env.OPS_TOKEN && timingSafeEqual(token, env.OPS_TOKEN)) return null;
    return `t:${await hashToken(token)}`;
  }
  return `ip:${addressKey(req.headers.get('CF-Connecting-IP'))}`;
}

/** An IPv4 address as is; an IPv6 address as its first 64 bits; anything else as "unknown". */
export function addressKey(ip: string | null): string {
  if (!ip) return 'unknown';
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Seconds until the current period's window ends (the binding counts in fixed windows). */
export function retryAfterSeconds(now = Date.now(), period = RATE_LIMIT_PERIOD_SECONDS): number {
  return Math.max(1, Math.ceil(period - ((now / 1000) % period)));
}

/** Throws 429 (Retry-After, `{status, message, retry_after_seconds}`) when the caller is over its limit. */
export async function enforceRateLimit(req: Request, env: Env): Promise<void> {
  const limiter = env.RATE_LIMIT as RateLimit | undefined;
  if (!limiter || env.RATE_LIMITING === 'off') return;
  const key = await rateLimitKey(req, env);
  if (key === null) return;
  const { success } = await limiter.limit({ key });
  if (success) return;
  const retry = retryAfterSeconds();
  throw new HttpError(429, `rate limit exceeded: try again in ${retry} s`, { retry_after_seconds: retry }, { 'Retry-After': String(retry) });
}
