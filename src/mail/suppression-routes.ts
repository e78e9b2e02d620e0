/**
 * Suppressions recorded over HTTP: a recipient's unsubscribe link (public, signed token)
 * and a bounce the operator reports (every sender).
 */
import { eq } from 'drizzle-orm';
import type { Ctx } from '../core/context';
import { badRequest, notFound } from '../core/errors';
import { noContent, textResponse } from '../core/http';
import { appendLog } from '../core/log';
import { resources } from '../db/schema';
import { isAddress, normaliseAddress } from './rules';
import { suppress, verifyUnsubscribeToken } from './unsubscribe';

export async function unsubscribe(ctx: Ctx): Promise<Response> {
  const p = await verifyUnsubscribeToken(ctx.env, ctx.db, ctx.params.token!);
  if (!p) throw notFound('this unsubscribe link is not valid');
  await suppress(ctx.db, p.owner, p.email, 'unsubscribed');
  const mail = await ctx.db.select({ id: resources.id }).from(resources).where(eq(resources.id, p.mail)).get();
  // The mail's log names the recipient as its lists wrote it (a link without that: "a recipient").
  if (mail) await appendLog(ctx.db, mail.id, `${p.as ?? 'a recipient'} unsubscribed`);
  return textResponse(`${p.email} is unsubscribed: you will get no more e-mails from this sender.\n`);
}

export async function recordBounce(ctx: Ctx): Promise<Response> {
  if (!isAddress(ctx.params.address!)) throw badRequest(`not an e-mail address: ${ctx.params.address}`);
  await suppress(ctx.db, 0, normaliseAddress(ctx.params.address!), 'bounced');
  return noContent();
}
