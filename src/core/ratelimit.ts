/**
 * Request rate limits through the Workers Rate Limiting binding: two counts per request,
 * before routing (the operator token, OPS_TOKEN, is exempt from both and not counted).
 *
 * - Per address (RATE_LIMIT_ADDRESS): every request of an address (CF-Connecting-IP, set by
 *   Cloudflare; an IPv6 address counts as its /64, which one client usually holds whole),
 *   whoever it authenticates as: a ceiling that many accounts, or many made-up tokens, from
 *   one address cannot multiply. Counted first, so the token lookups an address can cause
 *   are bounded by it.
 * - Per caller (RATE_LIMIT): a known token counts under its account (`u:<id>`), so every
 *   token of one account shares one count and signing in again does not multiply it; an
 *   unknown token and an anonymous caller count under the address (`ip:<address>`).
 *
 * The caller is the request's own authentication (`who`: the per-isolate token cache, one
 * D1 lookup on a miss, shared with the route), never a second lookup. Each binding's
 * `simple.limit` per `simple.period` seconds (wrangler.toml) is the deployment's limit;
 * without a binding, or with RATE_LIMITING = "off", nothing is limited.
 */
import type { User } from '../db/schema';
import { bearerToken, type Authenticated } from './auth';
import { timingSafeEqual } from './crypto';
import { HttpError } from './errors';

/** Must match `simple.period` of both bindings (Cloudflare accepts 10 or 60). */
const RATE_LIMIT_PERIOD_SECONDS = 60;

/** An IPv4 address as is; an IPv6 address as its first 64 bits; anything else as "unknown". */
export function addressKey(ip: string | null): string {
  if (!ip) return 'unknown';
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The address key of a request: `ip:<address>` (IPv6 per /64). */
export const addressOf = (req: Request) => `ip:${addressKey(req.headers.get('CF-Connecting-IP'))}`;

/** Pure: the per-caller key: the account of a known token, else the address. */
export function callerKey(user: Pick<User, 'id'> | null, address: string): string {
  return user ? `u:${user.id}` : address;
}

/** Whether the request carries the operator token (exempt from every limit). */
export function isOperator(req: Request, env: Env): boolean {
  const token = bearerToken(req);
  return !!(token && env.OPS_TOKEN && timingSafeEqual(token, env.OPS_TOKEN));
}

/** Seconds until the current period's window ends (the binding counts in fixed windows). */
export function retryAfterSeconds(now = Date.now(), period = RATE_LIMIT_PERIOD_SECONDS): number {
  return Math.max(1, Math.ceil(period - ((now / 1000) % period)));
}

function tooMany(what: string): HttpError {
  const retry = retryAfterSeconds();
  return new HttpError(
    429,
    `rate limit exceeded (${what}): try again in ${retry} s`,
    { retry_after_seconds: retry },
    { 'Retry-After': String(retry) },
  );
}

/**
 * Throws 429 (Retry-After, `{status, message, retry_after_seconds}`) when the request's
 * address or its caller is over its limit. `who` authenticates the request (memoised by
 * the caller of this function, so the route reuses the answer).
 */
export async function enforceRateLimit(
  req: Request,
  env: Env,
  who: () => Promise<Authenticated | null>,
): Promise<void> {
  if (env.RATE_LIMITING === 'off') return;
  const perCaller = env.RATE_LIMIT as RateLimit | undefined;
  const perAddress = env.RATE_LIMIT_ADDRESS as RateLimit | undefined;
  if (!perCaller && !perAddress) return;
  if (isOperator(req, env)) return;
  const address = addressOf(req);
  if (perAddress && !(await perAddress.limit({ key: address })).success) throw tooMany('this address');
  if (!perCaller) return;
  const user = bearerToken(req) ? ((await who())?.user ?? null) : null;
  if (!(await perCaller.limit({ key: callerKey(user, address) })).success)
    throw tooMany(user ? 'this account' : 'this address');
}
