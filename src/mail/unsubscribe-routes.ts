/** The unsubscribe link of every e-mail (public, a signed token): records the recipient's suppression. */
import { eq } from 'drizzle-orm';
import type { Api } from '../core/api';
import type { Ctx } from '../core/context';
import { notFound } from '../core/errors';
import { text } from '../core/examples';
import { textResponse } from '../core/http';
import { appendLog } from '../core/log';
import { resources } from '../db/schema';
import { suppress, verifyUnsubscribeToken } from './unsubscribe';

async function unsubscribe(ctx: Ctx): Promise<Response> {
  const p = await verifyUnsubscribeToken(ctx.env, ctx.db, ctx.params.token!);
  if (!p) throw notFound('this unsubscribe link is not valid');
  await suppress(ctx.db, p.owner, p.email, 'unsubscribed');
  const mail = await ctx.db.select({ id: resources.id }).from(resources).where(eq(resources.id, p.mail)).get();
  // The mail's log names the recipient as its lists wrote it (a link without that: "a recipient").
  if (mail) await appendLog(ctx.db, mail.id, `${p.as ?? 'a recipient'} unsubscribed`);
  return textResponse(`${p.email} is unsubscribed: you will get no more e-mails from this sender.\n`);
}

export function unsubscribeRoutes(api: Api): void {
  const unsubscribeSpec = {
    tag: 'vis/mails',
    auth: 'none' as const,
    responses: {
      200: {
        description: 'Unsubscribed',
        type: 'text/plain',
        schema: () => text('bob@example.com is unsubscribed: you will get no more e-mails from this sender.\n'),
      },
      404: { description: 'Forged or malformed link' },
    },
    handler: unsubscribe,
  };
  api.get('/v1/mail/unsubscribe/:token', {
    ...unsubscribeSpec,
    summary: 'Unsubscribe link of every e-mail: records the suppression',
  });
  api.post('/v1/mail/unsubscribe/:token', {
    ...unsubscribeSpec,
    summary: 'One-click unsubscribe (RFC 8058 List-Unsubscribe-Post)',
  });
}
