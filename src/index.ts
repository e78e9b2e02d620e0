/**
 * The platform Worker: /v1 and /gql over fetch(), inbound org-group mail over email(),
 * scheduled job runs over scheduled(). Durable Object classes are exported from durable/.
 */
import { platformApi } from './app';
import { handleInboundEmail } from './jobs/inbound';
import { handleScheduled } from './jobs/schedule';
import { resumeDeletions } from './accounts/deletion';
import { dbFor } from './core/context';

export { RunObject } from '../durable/run';
export { MailObject } from '../durable/mail';
// The outbound guard of job sandboxes (their globalOutbound, reached through `exports`).
export { EgressGuard } from './jobs/egress-guard';

export default {
  fetch: (req, env, ctx) => platformApi().fetch(req, env, ctx),
  email: (message, env, ctx) => handleInboundEmail(message, env, ctx),
  scheduled: async (controller, env, ctx) => {
    await handleScheduled(controller, env, ctx);
    // Accounts marked deleted whose removal a kill cut off (or a request left for later) continue here.
    await resumeDeletions(env, dbFor(env));
  },
} satisfies ExportedHandler<Env>;
