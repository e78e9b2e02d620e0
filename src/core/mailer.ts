/**
 * Outbound mail, behind one interface. Every message handed to the transport is recorded
 * in the outbox table (what GET /v1/ops/outbox reads); with MAIL_TRANSPORT=send_email it
 * is also sent through Cloudflare's send_email binding.
 */
import { outbox } from '../db/schema';
import { nowIso } from './clock';
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
}

/** Sends through the binding; set by the mail area (MIME building lives there). */
export type BindingSender = (env: Env, mail: OutboundMail & { from: string }) => Promise<void>;
let bindingSender: BindingSender | null = null;

export function setBindingSender(sender: BindingSender): void {
  bindingSender = sender;
}

/** Hands one message to the transport. Throws when the transport refuses it. */
export async function deliver(env: Env, db: Db, mail: OutboundMail): Promise<void> {
  const from = mail.from ?? env.MAIL_FROM;
  await db.insert(outbox).values({
    kind: mail.kind,
    sender: from,
    recipients: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    attachments: (mail.attachments ?? []).map((a) => ({ filename: a.filename, content_type: a.content_type, size: a.content.byteLength })),
    created_on: nowIso(),
  });
  if (env.MAIL_TRANSPORT === 'send_email') {
    if (!bindingSender) throw new Error('send_email transport selected but no sender is registered');
    await bindingSender(env, { ...mail, from });
  }
}
