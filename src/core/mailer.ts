/**
 * Outbound mail, behind one interface. Every message handed to the transport is recorded
 * in the outbox table (what GET /v1/ops/outbox reads); with MAIL_TRANSPORT=send_email it
 * is also sent through Cloudflare Email Sending, the send_email binding's structured form
 * (SEND_EMAIL), and with send_email_mime as raw MIME (Email Routing: verified destinations
 * only). The transport is read from the configuration on every hand-off: nothing registers
 * it, whatever module loads first.
 */
import { EmailMessage } from 'cloudflare:email';
import { eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { outbox } from '../db/schema';
import { nowIso } from './clock';
import { sha256Hex } from './crypto';
import type { Db } from './context';
import { EMAIL_SENDING_LIMITS, messageBytes, structuredEmail } from './email-sending';
import { libraries } from './libraries';
import type { OutboundMail } from './outbound';

export type { Attachment, OutboundMail } from './outbound';

/** The send_email_mime transport: one raw EmailMessage per envelope recipient (the binding takes one each). */
async function sendRawMime(
  env: Env,
  binding: SendEmail,
  mail: OutboundMail & { from: string },
): Promise<string | null> {
  const raw = await libraries(env).buildMime(mail);
  let id: string | null = null;
  for (const to of mail.to) {
    // Every call is made (no `??=`: it would skip the send once an id is known).
    const answered = (await binding.send(new EmailMessage(mail.from, to, raw)))?.messageId ?? null;
    id ??= answered;
  }
  return id;
}

/**
 * The send_email transport (Email Sending): the structured form, at most 50 recipients a
 * call; a message over 5 MiB is refused here, before the binding would. Returns the id the
 * first call answered.
 */
async function sendStructured(binding: SendEmail, mail: OutboundMail & { from: string }): Promise<string | null> {
  let id: string | null = null;
  for (let i = 0; i < mail.to.length; i += EMAIL_SENDING_LIMITS.recipients) {
    const message = structuredEmail(mail, mail.to.slice(i, i + EMAIL_SENDING_LIMITS.recipients));
    const bytes = messageBytes(message);
    if (bytes > EMAIL_SENDING_LIMITS.bytes)
      throw new Error(`the message is ${(bytes / 2 ** 20).toFixed(1)} MiB, over the 5 MiB Email Sending takes`);
    const answered = (await binding.send(message))?.messageId ?? null;
    id ??= answered;
  }
  return id;
}

/**
 * The outbox row of a message, as a query to run alone or in a caller's batch: it returns
 * the new row's id, none when a message with the same messageId is already there. `onlyIf`:
 * an SQL condition the row is written under (a statement earlier in the batch took effect).
 */
export function outboxInsert(env: Env, db: Db, mail: OutboundMail, onlyIf?: SQL) {
  const row = {
    kind: mail.kind,
    sender: mail.from ?? env.MAIL_FROM,
    recipients: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    attachments: (mail.attachments ?? []).map((a) => ({
      filename: a.filename,
      content_type: a.content_type,
      size: a.content.byteLength,
    })),
    created_on: nowIso(),
    message_id: mail.messageId ?? null,
    owner_id: mail.ownerId ?? null,
    resource_id: mail.resourceId ?? null,
    provider_id: null,
  };
  if (!onlyIf) return db.insert(outbox).values(row).onConflictDoNothing().returning({ id: outbox.id });
  // INSERT ... SELECT takes every column in table order; the id is left to SQLite.
  const values = Object.entries(getTableColumns(outbox)).map(([key, col]) =>
    key === 'id' ? sql`null` : sql.param(row[key as keyof typeof row], col),
  );
  return db
    .insert(outbox)
    .select(sql`select ${sql.join(values, sql`, `)} where ${onlyIf}`)
    .onConflictDoNothing()
    .returning({ id: outbox.id });
}

/**
 * Sends a message whose outbox row is written (outboxInsert) through the configured transport. Throws when it refuses.
 * Returns the id the binding answered (null with `capture`).
 */
export async function handOff(env: Env, mail: OutboundMail): Promise<string | null> {
  const from = mail.from ?? env.MAIL_FROM;
  if (env.MAIL_TRANSPORT === 'send_email') return sendStructured(env.SEND_EMAIL, { ...mail, from });
  if (env.MAIL_TRANSPORT !== 'send_email_mime') return null;
  const headers = mail.messageId ? { ...mail.headers, 'Message-ID': mail.messageId } : mail.headers;
  return sendRawMime(env, env.SEND_EMAIL, { ...mail, from, headers });
}

/**
 * Hands one message to the transport. Throws when the transport refuses it. Returns false
 * when a message with the same messageId was already handed off (nothing is sent again).
 * The outbox row is the durable record of the hand-off, written before the binding sends;
 * the id the binding answers is added to it after (bounce reports may name either).
 */
export async function sendMail(env: Env, db: Db, mail: OutboundMail): Promise<boolean> {
  const row = await outboxInsert(env, db, mail).get();
  if (!row) return false;
  const providerId = await handOff(env, mail);
  if (providerId) await db.update(outbox).set({ provider_id: providerId }).where(eq(outbox.id, row.id));
  return true;
}

/** A stable Message-ID for one message of one send to one recipient. */
export async function messageIdFor(env: Env, sendId: string, recipient: string): Promise<string> {
  const digest = await sha256Hex(`${sendId}\n${recipient.toLowerCase()}`);
  const domain = /@([^>\s]+)>?\s*$/.exec(env.MAIL_FROM ?? '')?.[1] ?? 'localhost';
  return `<${sendId}.${digest.slice(0, 24)}@${domain}>`;
}
