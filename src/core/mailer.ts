/**
 * Outbound mail, behind one interface. Every message handed to the transport is recorded
 * in the outbox table (what GET /v1/ops/outbox reads); with MAIL_TRANSPORT=send_email it
 * is also sent through Cloudflare's send_email binding.
 */
import { outbox } from '../db/schema';
import { nowIso } from './clock';
import { sha256Hex } from './crypto';
import type { Db } from './context';

export type MailKind = 'mail' | 'test' | 'invite' | 'reply';

export interface Attachment {
  filename: string;
  content_type: string;
  content: Uint8Array;
}

export interface OutboundMail {
  kind: MailKind;
  from?: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments?: Attachment[];
  headers?: Record<string, string>;
  /**
   * Stable Message-ID (`<...@...>`) of this message: the outbox holds it at most once, so
   * handing the same message off again (a send resumed after a hard kill) is a no-op, and
   * the send_email transport gets it as the Message-ID header to drop repeats too.
   */
  messageId?: string;
}

/** Sends through the binding; set by the mail area (MIME building lives there). */
export type BindingSender = (env: Env, mail: OutboundMail & { from: string }) => Promise<void>;
let bindingSender: BindingSender | null = null;

export function setBindingSender(sender: BindingSender): void {
  bindingSender = sender;
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
    if (!bindingSender) throw new Error('send_email transport selected but no sender is registered');
    const headers = mail.messageId ? { ...mail.headers, 'Message-ID': mail.messageId } : mail.headers;
    await bindingSender(env, { ...mail, from, headers });
  }
  return true;
}

/** A stable Message-ID for one message of one send to one recipient. */
export async function messageIdFor(env: Env, sendId: string, recipient: string): Promise<string> {
  const digest = await sha256Hex(`${sendId}\n${recipient.toLowerCase()}`);
  const domain = /@([^>\s]+)>?\s*$/.exec(env.MAIL_FROM ?? '')?.[1] ?? 'localhost';
  return `<${sendId}.${digest.slice(0, 24)}@${domain}>`;
}
