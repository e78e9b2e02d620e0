/**
 * Bounces and complaints reported for sent messages (POST /v1/ops/mail/events): the report
 * is signed the Standard Webhooks way with the shared secret MAIL_EVENTS_SECRET (HMAC-SHA256
 * over `<webhook-id>.<webhook-timestamp>.<body>`), names the message by the platform's
 * stable Message-ID or the id the transport answered, and a hard bounce or a complaint
 * suppresses the address for every sender, counts on the send (stats/runs `bounced`,
 * `complained`) and is logged on the mail without the address. Each event id is recorded
 * once, so a redelivered report changes nothing.
 */
import { eq, or } from 'drizzle-orm';
import * as z from 'zod';
import { now, nowIso } from '../core/clock';
import type { Db } from '../core/context';
import { fromBase64, hmacKey, timingSafeEqual, webhookHmac } from '../core/crypto';
import { badRequest, HttpError, notFound } from '../core/errors';
import { batchWithEvent, type Background } from '../core/events';
import { logInsert } from '../core/log';
import { outbox, resources } from '../db/schema';
import { normaliseAddress } from './rules';
import { mailEvents } from './schema';
import { suppressionInsert } from './unsubscribe';
import { once } from '../core/once';

/** How far a report's timestamp may be from the platform clock (Standard Webhooks' usual 5 minutes). */
const TOLERANCE_SECONDS = 5 * 60;

export const mailEventBody = once(() =>
  z
    .object({
      type: z.enum(['bounce', 'complaint']),
      /** `hard` (permanent: suppressed) or `soft` (temporary: accepted and ignored); bounces only. */
      bounce_type: z.enum(['hard', 'soft']).optional(),
      recipient: z.string().min(3).max(254),
      /** The platform's stable Message-ID (`<...@...>`, also in `X-Message-ID`) or the id the transport answered. */
      message_id: z.string().min(1).max(998),
    })
    .meta({
      id: 'MailEvent',
      description: 'A bounce or complaint report about a message the platform sent',
      example: {
        type: 'bounce',
        bounce_type: 'hard',
        recipient: 'bob@example.com',
        message_id: '<0f3c9a52e1b84d7c@platform.example>',
      },
    }),
);
export type MailEvent = z.infer<ReturnType<typeof mailEventBody>>;

export type EventOutcome = { status: 'recorded' | 'duplicate' | 'ignored'; reason?: string };

const enc = new TextEncoder();

function secretKey(secret: string): Uint8Array<ArrayBuffer> {
  try {
    const bytes = fromBase64(secret.replace(/^whsec_/, ''));
    if (bytes.byteLength >= 16) return bytes;
  } catch {
    // not base64
  }
  // A key that is not base64 is used as written (UTF-8), as long as it is long enough.
  if (secret.length >= 16) return new Uint8Array(enc.encode(secret));
  throw new HttpError(401, 'MAIL_EVENTS_SECRET is too short to verify reports');
}

/**
 * Checks the Standard Webhooks headers of a report against its raw body: 401 when a header
 * is missing, the timestamp is outside the tolerance or no `v1,` signature matches.
 */
export async function verifySignature(env: Env, headers: Headers, body: string): Promise<string> {
  const secret = env.MAIL_EVENTS_SECRET;
  if (!secret) throw notFound('mail events are not configured (MAIL_EVENTS_SECRET is unset)');
  const id = headers.get('webhook-id');
  const timestamp = headers.get('webhook-timestamp');
  const signatures = headers.get('webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new HttpError(401, 'webhook-id, webhook-timestamp and webhook-signature headers are required');
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
    throw new HttpError(401, `webhook-timestamp is not within ${TOLERANCE_SECONDS} seconds of now`);
  if (id.length > 256) throw new HttpError(401, 'webhook-id is longer than 256 characters');
  const expected = await webhookHmac(await hmacKey(secretKey(secret)), id, timestamp, body);
  const ok = signatures.split(' ').some((s) => s.startsWith('v1,') && timingSafeEqual(s.slice(3), expected));
  if (!ok) throw new HttpError(401, 'webhook-signature does not match the body');
  return id;
}

/** The report's body, validated (400 when it is not JSON or not the documented shape). */
export function parseEvent(body: string): MailEvent {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw badRequest('the body is not JSON');
  }
  const parsed = mailEventBody().safeParse(json);
  if (!parsed.success)
    throw badRequest(
      `bad event: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`,
    );
  if (parsed.data.type === 'bounce' && !parsed.data.bounce_type) throw badRequest('bad event: bounce_type is required');
  return parsed.data;
}

/** The send a stable Message-ID names (`<sendId.digest@domain>`, core/mailer.ts messageIdFor). */
const sendOf = (messageId: string) => /^<([^.@<>\s]+)\.[0-9a-f]+@/.exec(messageId)?.[1] ?? null;

/**
 * Records one verified report: suppression, the send's count and a log line, with the
 * mail's owner's `mail.bounced` event (which send, and whether a bounce or a complaint;
 * never the address) in the same batch, delivered in `bg`; unknown messages are ignored.
 */
export async function recordEvent(
  env: Env,
  db: Db,
  bg: Background,
  eventId: string,
  e: MailEvent,
): Promise<EventOutcome> {
  if (e.type === 'bounce' && e.bounce_type === 'soft') return { status: 'ignored', reason: 'a soft bounce' };
  const row = await db
    .select({
      message_id: outbox.message_id,
      recipients: outbox.recipients,
      resource_id: resources.id,
      name: resources.name,
    })
    .from(outbox)
    .innerJoin(resources, eq(resources.id, outbox.resource_id))
    .where(or(eq(outbox.message_id, e.message_id), eq(outbox.provider_id, e.message_id)))
    .get();
  const sendId = row?.message_id ? sendOf(row.message_id) : null;
  if (!row || !sendId) return { status: 'ignored', reason: 'no e-mail send sent that message' };
  const address = normaliseAddress(e.recipient);
  if (!row.recipients.some((r) => normaliseAddress(r) === address))
    return { status: 'ignored', reason: 'the recipient is not one of that message' };
  const type = e.type === 'bounce' ? 'bounced' : 'complained';
  const [inserted] = await db
    .insert(mailEvents)
    .values({ id: eventId, resource_id: row.resource_id, send_id: sendId, type, created_on: nowIso() })
    .onConflictDoNothing()
    .returning({ id: mailEvents.id });
  if (!inserted) return { status: 'duplicate' };
  const what = type === 'bounced' ? 'hard-bounced' : 'complained (marked it as spam)';
  await batchWithEvent(
    env,
    db,
    bg,
    [
      suppressionInsert(db, 0, address, type),
      logInsert(
        db,
        row.resource_id,
        `send ${sendId}: a recipient ${what}; no platform e-mail goes to that address any more`,
        'warning',
      ),
    ],
    { type: 'mail.bounced', resourceId: row.resource_id, data: { mail: row.name, run: sendId, kind: type } },
  );
  return { status: 'recorded' };
}
