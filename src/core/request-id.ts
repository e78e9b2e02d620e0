/**
 * The id of the request being served: Cloudflare's `cf-ray` where present (what Cloudflare's
 * own logs and support know the request by), else one made here. Every answer carries it in
 * `X-Request-Id`, every error body as `request_id`, and the log line of a failed request
 * names it. Kept per request in an AsyncLocalStorage, so code far from the request (the
 * error renderer) reads it without it being passed down.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/** A request id: the `cf-ray` header (a short hex id and the data centre) or a random one. */
export function requestIdOf(req: Request): string {
  const ray = req.headers.get('cf-ray');
  return ray && /^[A-Za-z0-9-]{1,64}$/.test(ray) ? ray : crypto.randomUUID();
}

/** Runs `serve` as request `id`. */
export const withRequestId = <T>(id: string, serve: () => T): T => current.run(id, serve);

/** The id of the request being served, undefined outside one (a cron tick, a queue). */
export const currentRequestId = (): string | undefined => current.getStore();
