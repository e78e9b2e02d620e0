/**
 * The outbound guard of job sandboxes: the Worker Loader's `globalOutbound` of a job with
 * config/network on is this entrypoint of the platform's own Worker (src/index.ts exports
 * it; the sandbox reaches it through `exports`), so every fetch() the job's code makes
 * arrives here first, in every environment.
 *
 * A target the address check (core/egress.ts, and what its host resolves to:
 * core/resolve.ts) refuses gets a 403 JSON answer carrying
 * EGRESS_REFUSED_HEADER, which the sandbox runtime turns into a run-log line. Anything else
 * is forwarded with `redirect: 'manual'`: a redirect goes back to the sandbox, whose fetch
 * follows it through this guard again, so every hop is checked (the sandbox's fetch bounds
 * the number of hops). Raw sockets (connect()) are refused: the guard has no connect handler.
 */
import { WorkerEntrypoint } from 'cloudflare:workers';
import { platformHosts } from '../core/egress';
import { targetRefusal } from '../core/resolve';

/** Marks the guard's own refusals; stripped from forwarded answers so a remote host cannot forge one. */
export const EGRESS_REFUSED_HEADER = 'X-NVM-Egress';

function refusalResponse(method: string, url: string, reason: string): Response {
  const message = `outbound request refused: ${method} ${url}: ${reason}`;
  return Response.json({ status: 403, message }, { status: 403, headers: { [EGRESS_REFUSED_HEADER]: 'refused' } });
}

export class EgressGuard extends WorkerEntrypoint<Env> {
  override async fetch(req: Request): Promise<Response> {
    const reason = await targetRefusal(this.env, req.url, platformHosts(this.env));
    if (reason) return refusalResponse(req.method, req.url, reason);
    const res = await fetch(new Request(req, { redirect: 'manual' }));
    if (!res.headers.has(EGRESS_REFUSED_HEADER)) return res;
    const clean = new Response(res.body, res);
    clean.headers.delete(EGRESS_REFUSED_HEADER);
    return clean;
  }
}
