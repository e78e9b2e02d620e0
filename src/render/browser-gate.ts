/**
 * The BROWSER binding as the browser isolate reaches it (render/browser.ts): a binding
 * cannot be handed to another isolate as it is, a loopback entrypoint of the Worker can
 * (reached through `exports`, as the job sandbox's EgressGuard is). Every request, the
 * WebSocket upgrade of a browser session too, goes on to the Worker's own binding.
 */
import { WorkerEntrypoint } from 'cloudflare:workers';

export class BrowserGate extends WorkerEntrypoint<Env> {
  override fetch(req: Request): Promise<Response> {
    return this.env.BROWSER.fetch(req);
  }
}
