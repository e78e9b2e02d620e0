/**
 * Outbound mail, behind one interface. Every message handed to the transport is recorded
 * in the outbox table (what GET /v1/ops/outbox reads); with MAIL_TRANSPORT=send_email it
 * is also sent through Cloudflare's send_email binding (SEND_EMAIL). The transport is read
 * from the configuration on every hand-off: nothing registers it, whatever module loads first.
 */
import { EmailMessage } from 'cloudflare:email';
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { outbox } from '../db/schema';
import { nowIso } from './clock';
import { sha256Hex } from './crypto';
import type { Db } from './context';
import { buildMime } from './mime';
import type { OutboundMail } from './outbound';

export type { Attachment, MailKind, OutboundMail } from './outbound';

/** The send_email transport: one EmailMessage per envelope recipient (the binding takes one each). */
async function sendThroughBinding(binding: SendEmail, mail: OutboundMail & { from: string }): Promise<void> {
  const raw = buildMime(mail);
  for (const to of mail.to) await binding.send(new EmailMessage(mail.from, to, raw));
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
 */
export async function handOff(env: Env, mail: OutboundMail): Promise<void> {
  if (env.MAIL_TRANSPORT !== 'send_email') return;
  const headers = mail.messageId ? { ...mail.headers, 'Message-ID': mail.messageId } : mail.headers;
  await sendThroughBinding(env.SEND_EMAIL, { ...mail, from: mail.from ?? env.MAIL_FROM, headers });
}

/**
 * Hands one message to the transport. Throws when the transport refuses it. Returns false
 * when a message with the same messageId was already handed off (nothing is sent again).
 * The outbox row is the durable record of the hand-off, written before the binding sends.
 */
export async function deliver(env: Env, db: Db, mail: OutboundMail): Promise<boolean> {
  if (!(await outboxInsert(env, db, mail).get())) return false;
  await handOff(env, mail);
  return true;
}

/** A stable Message-ID for one message of one send to one recipient. */
export async function messageIdFor(env: Env, sendId: string, recipient: string): Promise<string> {
  const digest = await sha256Hex(`${sendId}\n${recipient.toLowerCase()}`);
  const domain = /@([^>\s]+)>?\s*$/.exec(env.MAIL_FROM ?? '')?.[1] ?? 'localhost';
  return `<${sendId}.${digest.slice(0, 24)}@${domain}>`;
}
