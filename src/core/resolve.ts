/**
 * Resolving a host name before an outbound request, where the runtime allows it. Workers
 * have no DNS lookup of their own, so names are asked of a DNS-over-HTTPS resolver's JSON
 * API (the var OUTBOUND_RESOLVER, e.g. https://cloudflare-dns.com/dns-query; unset or
 * "off": names are not resolved). Every A and AAAA answer must pass the address check (core/egress.ts).
 * A resolver that cannot be reached refuses (fail closed). Answers are kept per isolate for
 * their TTL (5 s to 5 min). This narrows, not closes, the gap to the request's own lookup
 * (a name may answer differently a moment later): Cloudflare's network refuses private
 * targets of a deployed Worker in any case.
 */
import { BoundedCache } from './bounded-cache';
import { egressRefusal, isAddressHost, resolvedRefusal } from './egress';

const TIMEOUT_MS = 5_000;
const MIN_TTL_S = 5;
const MAX_TTL_S = 300;
const MAX_CACHED = 500;

interface DohAnswer {
  type: number;
  TTL?: number;
  data: string;
}

const RECORD = { A: 1, AAAA: 28 } as const;
const cache = new BoundedCache<string, { until: number; refusal: string | null }>({ maxEntries: MAX_CACHED });

/** Why `url`'s host may not be reached by what it resolves to; null when it may (or nothing is resolved). */
export async function hostRefusal(env: { OUTBOUND_RESOLVER?: string }, url: URL): Promise<string | null> {
  const resolver = env.OUTBOUND_RESOLVER;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (!resolver || resolver === 'off' || isAddressHost(host)) return null;
  const hit = cache.get(host);
  if (hit && hit.until > Date.now()) return hit.refusal;
  let answers: DohAnswer[];
  try {
    answers = (await Promise.all([ask(resolver, host, 'A'), ask(resolver, host, 'AAAA')])).flat();
  } catch (err) {
    return `${host} could not be resolved (${(err as Error).message})`;
  }
  const addresses = answers.filter((a) => a.type === RECORD.A || a.type === RECORD.AAAA).map((a) => a.data);
  const refusal = resolvedRefusal(host, addresses);
  const ttl = Math.min(MAX_TTL_S, Math.max(MIN_TTL_S, ...answers.map((a) => a.TTL ?? MIN_TTL_S)));
  cache.set(host, { until: Date.now() + ttl * 1000, refusal });
  return refusal;
}

/** The address check of a target (core/egress.ts), then, when it passes, what its host resolves to. */
export async function targetRefusal(
  env: { OUTBOUND_RESOLVER?: string },
  target: string,
  ownHosts: readonly string[],
): Promise<string | null> {
  return egressRefusal(target, ownHosts) ?? (await hostRefusal(env, new URL(target)));
}

/** One DoH JSON query; a name that does not exist (NXDOMAIN) answers no records. */
async function ask(resolver: string, host: string, type: keyof typeof RECORD): Promise<DohAnswer[]> {
  const q = new URL(resolver);
  q.searchParams.set('name', host);
  q.searchParams.set('type', type);
  const res = await fetch(q, {
    headers: { accept: 'application/dns-json' },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`resolver answered ${res.status}`);
  const body = (await res.json()) as { Status?: number; Answer?: DohAnswer[] };
  if (body.Status !== 0 && body.Status !== 3) throw new Error(`resolver status ${body.Status}`);
  return Array.isArray(body.Answer) ? body.Answer : [];
}
