/**
 * fetch() to a user-given URL with the egress check (core/egress.ts, and what the host
 * resolves to: core/resolve.ts targetRefusal) on the URL and on every redirect hop:
 * redirects are followed by hand, at most `maxRedirects` of them, each target checked
 * before anything is sent to it; a hop to another origin is followed only
 * once checked. 301/302 turn a POST into a GET without a body and 303 anything but HEAD
 * (as browsers do); 307/308 send the same method and a fresh body again.
 */
import { targetRefusal } from './resolve';

/** A refused target or too many redirects; the message says which, in the caller's words. */
export class EgressError extends Error {}

export interface CheckedRequest {
  method: string;
  /** Called once per hop that sends a body (a body stream can be read only once). */
  body?: () => BodyInit | null;
  headers?: HeadersInit;
  signal?: AbortSignal;
}

export interface CheckedOptions {
  /** The platform's own hosts (platformHosts). */
  ownHosts: readonly string[];
  maxRedirects: number;
  /** Only https targets, the first and every hop (an https:// step never downgrades). */
  httpsOnly?: boolean;
  /** Its OUTBOUND_RESOLVER: each hop's host is also checked by what it resolves to (core/resolve.ts). */
  env: { OUTBOUND_RESOLVER?: string };
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);

export async function checkedFetch(url: string, req: CheckedRequest, opts: CheckedOptions): Promise<Response> {
  let target = url;
  let method = req.method.toUpperCase();
  let withBody = method !== 'GET' && method !== 'HEAD';
  for (let hop = 0; ; hop++) {
    const where = hop === 0 ? target : `${url}: redirect ${hop} to ${target}`;
    const reason =
      opts.httpsOnly && !target.startsWith('https://')
        ? 'an https step only follows https redirects'
        : await targetRefusal(opts.env, target, opts.ownHosts);
    if (reason) throw new EgressError(`${where} refused: ${reason}`);
    const res = await fetch(target, {
      method,
      headers: req.headers,
      body: withBody ? (req.body?.() ?? null) : null,
      redirect: 'manual',
      signal: req.signal,
    });
    const location = res.headers.get('Location');
    if (!REDIRECT.has(res.status) || location === null) return res;
    await res.body?.cancel();
    if (hop >= opts.maxRedirects) throw new EgressError(`${url}: more than ${opts.maxRedirects} redirects`);
    try {
      target = new URL(location, target).toString();
    } catch {
      throw new EgressError(`${url}: redirect ${hop + 1} to an invalid Location`);
    }
    if (res.status === 303 ? method !== 'HEAD' : (res.status === 301 || res.status === 302) && method === 'POST') {
      method = 'GET';
      withBody = false;
    }
  }
}
