/**
 * Outbound mail, behind one interface. Every message handed to the transport is recorded
 * in the outbox table (what GET /v1/ops/outbox reads); with MAIL_TRANSPORT=send_email it
 * is also sent through Cloudflare's send_email binding (SEND_EMAIL). The transport is read
 * from the configuration on every hand-off: nothing registers it, whatever module loads first.
 */
import { EmailMessage } from 'cloudflare:email';
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
 * Hands one message to the transport. Throws when the transport refuses it. Returns false
 * when a message with the same messageId was already handed off (nothing is sent again).
 * The outbox row is the durable record of the hand-off, written before the binding sends.
 */
export async function deliver(env: Env, db: Db, mail: OutboundMail): Promise<boolean> {
  const from = mail.from ?? env.MAIL_FROM;
  const row = await db
    .insert(outbox)
    .values({
      kind: mail.kind,
      sender: from,
      recipients: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      attachments: (mail.attachments ?? []).map((a) => ({ filename: a.filename, content_type: a.content_type, size: a.content.byteLength })),
      created_on: nowIso(),
      message_id: mail.messageId ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: outbox.id })
    .get();
  if (!row) return false;
  if (env.MAIL_TRANSPORT === 'send_email') {
    const headers = mail.messageId ? { ...mail.headers, 'Message-ID': mail.messageId } : mail.headers;
    await sendThroughBinding(env.SEND_EMAIL, { ...mail, from, headers });
  }
  return true;
}

/** A stable Message-ID for one message of one send to one recipient. */
export async function messageIdFor(env: Env, sendId: string, recipient: string): Promise<string> {
  const digest = await sha256Hex(`${sendId}\n${recipient.toLowerCase()}`);
  const domain = /@([^>\s]+)>?\s*$/.exec(env.MAIL_FROM ?? '')?.[1] ?? 'localhost';
  return `<${sendId}.${digest.slice(0, 24)}@${domain}>`;
}
