/**
 * The caching rule of every answer (`Cache-Control`), applied once where every answer
 * leaves (serve.ts). A GET answer without one is cached by heuristics in front of a Worker
 * (Workers Cache: a 200 for two hours, a 404 for three minutes), so none leaves without it:
 * - an error: `no-store` (a 404 must not outlive the creation of what it names, nor a 403 a share);
 * - an answer to a request that carried a token: always `private` (a shared cache keys on the
 *   path, not on the caller): the route's own rule with `public` made `private` (or `private`
 *   added), else `private, no-store`;
 * - any other answer: the route's own rule (build-time answers: `public` with a version in the
 *   url or a short max-age), else `no-store`.
 * docs/SCALING.md, "Caching", has the table.
 */

const NO_STORE = 'no-store';
const PRIVATE_NO_STORE = 'private, no-store';
/** Answers that only change with a deployment (the API description, the reference page). */
export const BUILD_TIME = 'public, max-age=300';

/** Whether the request carried a credential (a bearer token, or any Authorization). */
const carriesToken = (req: Request): boolean => req.headers.has('Authorization');

/** The Cache-Control an answer leaves with, from the request, the status and the route's own rule (or null). */
export function cacheRule(req: Request, status: number, own: string | null): string {
  if (status >= 400) return NO_STORE;
  if (carriesToken(req)) {
    if (!own) return PRIVATE_NO_STORE;
    const mine = own.replace(/\bpublic\b/gi, 'private');
    return /\b(private|no-store)\b/i.test(mine) ? mine : `private, ${mine}`;
  }
  return own ?? NO_STORE;
}
