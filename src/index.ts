/**
 * The platform Worker: /v1 and /gql over fetch(), inbound org-group mail over email(),
 * scheduled job runs, the retention sweep, account deletions and the webhooks sweep over scheduled(). Durable Object classes are exported from durable/.
 */
import { resumeDeletions } from './accounts/deletion';
import { sweepRetention } from './accounts/retention';
import { platformApi } from './app';
import { now } from './core/clock';
import { dbFor } from './core/context';
import { handleInboundEmail } from './jobs/inbound';
import { handleScheduled } from './jobs/schedule';
import { onEvents } from './core/events';
import { recordEvent } from './webhooks/record';
import { sweepWebhooks } from './webhooks/sweep';

export { RunObject } from '../durable/run';
export { MailObject } from '../durable/mail';
export { WebhookObject } from '../durable/webhook';
// The outbound guard of job sandboxes (their globalOutbound, reached through `exports`).
export { EgressGuard } from './jobs/egress-guard';
// The BROWSER binding as the browser isolate reaches it (through `exports`).
export { BrowserGate } from './render/browser-gate';

// Events emitted by the areas (core/events.ts) are recorded and delivered by the webhooks area.
onEvents(recordEvent);

export default {
  fetch: (req, env, ctx) => platformApi().fetch(req, env, ctx),
  email: (message, env, ctx) => handleInboundEmail(message, env, ctx),
  scheduled: async (controller, env, ctx) => {
    // Due jobs start first; then the retention sweep (its own row and time budget), then the
    // accounts marked deleted whose removal a kill cut off (or a request left for later).
    await handleScheduled(controller, env, ctx);
    await sweepRetention(env, now()).catch((err) => console.error('retention sweep failed', err));
    await resumeDeletions(env, dbFor(env)).catch((err) => console.error('account deletion failed', err));
    await sweepWebhooks(env).catch((err) => console.error('webhooks sweep failed', err));
  },
} satisfies ExportedHandler<Env>;
