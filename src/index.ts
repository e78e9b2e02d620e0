/**
 * The platform Worker: /v1 and /gql over fetch(), inbound org-group mail over email(),
 * scheduled job runs over scheduled(). Durable Object classes are exported from durable/.
 */
import { platformApi } from './app';
import { handleInboundEmail } from './jobs/inbound';
import { handleScheduled } from './jobs/schedule';

export { RunObject } from '../durable/run';
export { MailObject } from '../durable/mail';
// The outbound guard of job sandboxes (their globalOutbound, reached through `exports`).
export { EgressGuard } from './jobs/egress-guard';

export default {
  fetch: (req, env, ctx) => platformApi().fetch(req, env, ctx),
  email: (message, env, ctx) => handleInboundEmail(message, env, ctx),
  scheduled: (controller, env, ctx) => handleScheduled(controller, env, ctx),
} satisfies ExportedHandler<Env>;
