/**
 * POST /v1/ops/mail/events: bounce and complaint reports for sent messages, authenticated
 * by their Standard Webhooks signature with MAIL_EVENTS_SECRET (no operator token: the
 * sender of the reports holds only that secret). The logic is events.ts.
 */
import * as z from 'zod';
import type { Api } from '../core/api';
import type { Ctx } from '../core/context';
import { badRequest } from '../core/errors';
import { jsonResponse, KiB, readBytes } from '../core/http';
import { mailEventBody, parseEvent, recordEvent, verifySignature } from './events';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Largest report accepted (413 above). */
const LIMIT = 64 * KiB;

async function receiveMailEvent(ctx: Ctx): Promise<Response> {
  // The signature covers the bytes as sent: the body is read raw (any content type), decoded once.
  let body: string;
  try {
    body = utf8.decode(await readBytes(ctx.req, LIMIT, `a report is at most ${LIMIT / KiB} KiB`));
  } catch (err) {
    if (err instanceof TypeError) throw badRequest('the body is not UTF-8');
    throw err;
  }
  const id = await verifySignature(ctx.env, ctx.req.headers, body);
  // The mail's owner hears of it (webhooks: mail.bounced), recorded with the report.
  return jsonResponse(await recordEvent(ctx.env, ctx.db, ctx.exec, id, parseEvent(body)));
}

export function mailEventRoutes(api: Api): void {
  api.post('/v1/ops/mail/events', {
    summary:
      'Bounce and complaint reports (signed with MAIL_EVENTS_SECRET, Standard Webhooks): a hard bounce or a complaint suppresses the address for every sender',
    tag: 'ops',
    auth: 'none',
    body: { type: 'application/json', description: 'One event', schema: mailEventBody },
    responses: {
      200: {
        description: 'recorded, duplicate (the event id was seen) or ignored (soft bounce, unknown message)',
        type: 'application/json',
        schema: () =>
          z
            .object({ status: z.enum(['recorded', 'duplicate', 'ignored']), reason: z.string().optional() })
            .meta({ example: { status: 'recorded' } }),
      },
      400: { description: 'Not JSON or not an event' },
      401: { description: 'Missing, stale or wrong signature' },
      404: { description: 'MAIL_EVENTS_SECRET is unset' },
      413: { description: 'Over 64 KiB' },
    },
    handler: receiveMailEvent,
  });
}
