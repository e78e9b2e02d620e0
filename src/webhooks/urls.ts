/**
 * Which endpoint URLs are accepted (on write, and again before every attempt): https://
 * only, no credentials, never a loopback, private, link-local or the platform's own
 * address (core/egress.ts). WEBHOOKS_ALLOW_LOOPBACK = "true" (local development: npm
 * start sets it, wrangler.toml does not) also accepts http:// or https:// to 127.0.0.1.
 */
import { egressRefusal, platformHosts } from '../core/egress';

/** The reason `url` is refused as an endpoint, or null. */
export function endpointUrlRefusal(env: Env, url: string, requestHost?: string | null): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (parsed.username || parsed.password) return 'the URL may not carry credentials';
  if (env.WEBHOOKS_ALLOW_LOOPBACK === 'true' && parsed.hostname === '127.0.0.1') {
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? null : 'http or https only';
  }
  if (parsed.protocol !== 'https:') return 'https:// only';
  return egressRefusal(parsed, platformHosts(env, requestHost));
}
