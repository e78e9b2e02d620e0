/**
 * A bounce the operator reports (PUT /v1/ops/mail/bounces/:address): no platform e-mail goes to that address any more,
 * from any sender.
 */
import type { Ctx } from '../core/context';
import { badRequest } from '../core/errors';
import { noContent } from '../core/http';
import { isAddress, normaliseAddress } from './rules';
import { suppress } from './unsubscribe';

export async function recordBounce(ctx: Ctx): Promise<Response> {
  if (!isAddress(ctx.params.address!)) throw badRequest(`not an e-mail address: ${ctx.params.address}`);
  await suppress(ctx.db, 0, normaliseAddress(ctx.params.address!), 'bounced');
  return noContent();
}
