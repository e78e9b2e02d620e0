/**
 * The D1 session of one API request (D1 read replication through the Sessions API).
 *
 * A request that sends `x-d1-bookmark` (the header of an earlier answer) starts its
 * session from that bookmark, so it reads at least what that answer saw or wrote, whichever
 * replica serves it. Without one, GET and HEAD start `first-unconstrained` (the nearest
 * replica may answer), every other method `first-primary`: a write follows reads that must
 * be current (permission checks, the validation order of sends, existence checks).
 *
 * Every answer carries `Server-Timing: d1;desc="N round trips"`, and an answer whose
 * request ran D1 queries also carries the session's latest bookmark in `x-d1-bookmark`.
 * A malformed bookmark is a client error: 400, nothing read or stored.
 */
import { DbSession } from './context';
import { badRequest } from './errors';

const BOOKMARK_HEADER = 'x-d1-bookmark';

/** D1 bookmarks: four hex groups, `00000000-00000005-00000000-<32 hex digits>`. */
const BOOKMARK_RE = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/i;

/**
 * The session a request's D1 work runs in (400 for a malformed bookmark). `primary`: a read
 * whose answer the edge may keep starts at the primary (a lagging replica's answer would
 * outlive the purge of a change it has not seen yet).
 */
export function requestSession(req: Request, env: Env, primary = false): DbSession {
  const sent = req.headers.get(BOOKMARK_HEADER);
  if (sent !== null) {
    const bookmark = sent.trim();
    if (!BOOKMARK_RE.test(bookmark)) {
      throw badRequest(
        `malformed ${BOOKMARK_HEADER} header: send back the value of an earlier answer's ${BOOKMARK_HEADER}, or no header`,
      );
    }
    return new DbSession(env, bookmark);
  }
  const reads = (req.method === 'GET' || req.method === 'HEAD') && !primary;
  return new DbSession(env, reads ? 'first-unconstrained' : 'first-primary');
}

/** Adds the session's round trips (Server-Timing) and bookmark to an answer. */
export function withSessionHeaders(res: Response, session: DbSession | null): Response {
  const trips = session?.roundTrips ?? 0;
  const bookmark = trips > 0 ? session!.bookmark() : null;
  let out = res;
  try {
    out.headers.append('Server-Timing', `d1;desc="${trips} round trips"`);
  } catch {
    // Immutable headers (a response passed through from a fetch): answer a copy.
    out = new Response(res.body, res);
    out.headers.append('Server-Timing', `d1;desc="${trips} round trips"`);
  }
  if (bookmark) out.headers.set(BOOKMARK_HEADER, bookmark);
  return out;
}
