/**
 * The platform Worker: /v1 and /gql over fetch(), inbound org-group mail over email(),
 * scheduled job runs and the retention sweep over scheduled(). Durable Object classes are exported from durable/.
 */
import { platformApi } from './app';
import { sweepRetention } from './accounts/retention';
import { now } from './core/clock';
import { handleInboundEmail } from './jobs/inbound';
import { handleScheduled } from './jobs/schedule';

export { RunObject } from '../durable/run';
export { MailObject } from '../durable/mail';
// The outbound guard of job sandboxes (their globalOutbound, reached through `exports`).
export { EgressGuard } from './jobs/egress-guard';

export default {
  fetch: (req, env, ctx) => platformApi().fetch(req, env, ctx),
  email: (message, env, ctx) => handleInboundEmail(message, env, ctx),
  scheduled: async (controller, env, ctx) => {
    // Due jobs start first; the retention sweep (its own row and time budget) follows in the same tick.
    await handleScheduled(controller, env, ctx);
    await sweepRetention(env, now()).catch((err) => console.error('retention sweep failed', err));
  },
} satisfies ExportedHandler<Env>;
