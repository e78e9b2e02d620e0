/**
 * The structured message Cloudflare Email Sending takes through the send_email binding
 * (`env.SEND_EMAIL.send({from, to, subject, text, html, replyTo, headers, attachments})`),
 * built from an outbound message. Pure: the mailer sends it, tests read it.
 *
 * Email Sending writes `Message-ID` itself (a header it refuses), so the platform's stable
 * id travels as `X-Message-ID`; address headers become their API fields (`Reply-To` →
 * `replyTo`); assets the HTML names as `cid:<name>` are inline parts with that content id.
 */
import { CID_SAFE, safeType } from './mime';
import type { OutboundMail } from './outbound';

/** What one call takes: at most 50 recipients, and 5 MiB a message (body, headers and attachments). */
export const EMAIL_SENDING_LIMITS = { recipients: 50, bytes: 5 * 1024 * 1024 };

/** The header carrying the platform's stable Message-ID (Email Sending owns `Message-ID`). */
const STABLE_ID_HEADER = 'X-Message-ID';

export interface StructuredEmail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html?: string;
  replyTo?: string;
  cc?: string[];
  bcc?: string[];
  headers: Record<string, string>;
  attachments?: EmailAttachment[];
}

/** Header values lose CR and LF (Email Sending refuses them; they never start a header line). */
const line = (v: string) => v.replace(/[\r\n]+/g, ' ').trim();

/** The message for one call, to `to` (at most EMAIL_SENDING_LIMITS.recipients addresses). */
export function structuredEmail(mail: OutboundMail & { from: string }, to: string[]): StructuredEmail {
  const headers: Record<string, string> = {};
  let replyTo: string | undefined;
  for (const [name, value] of Object.entries(mail.headers ?? {})) {
    const v = line(value);
    if (!v) continue;
    if (/^reply-to$/i.test(name)) replyTo = v;
    else if (!/^(message-id|from|to|cc|bcc|subject|date)$/i.test(name)) headers[line(name)] = v;
  }
  if (mail.messageId) headers[STABLE_ID_HEADER] = line(mail.messageId);
  const attachments = (mail.attachments ?? []).map((a): EmailAttachment => {
    const type = safeType(a.content_type);
    return CID_SAFE.test(a.filename) && mail.html.includes(`cid:${a.filename}`)
      ? { disposition: 'inline', contentId: a.filename, filename: a.filename, type, content: a.content }
      : { disposition: 'attachment', filename: line(a.filename) || 'attachment', type, content: a.content };
  });
  return {
    from: line(mail.from),
    to: to.map(line),
    subject: line(mail.subject),
    text: mail.text,
    ...(mail.html ? { html: mail.html } : {}),
    ...(replyTo ? { replyTo } : {}),
    headers,
    ...(attachments.length ? { attachments } : {}),
  };
}

const enc = new TextEncoder();

/** The message's size as sent, estimated: bodies, headers, and attachments base64-encoded (4/3). */
export function messageBytes(m: StructuredEmail): number {
  let n = enc.encode(m.text).byteLength + enc.encode(m.html ?? '').byteLength + enc.encode(m.subject).byteLength;
  for (const [k, v] of Object.entries(m.headers)) n += k.length + enc.encode(v).byteLength + 4;
  for (const a of m.attachments ?? []) {
    const size = typeof a.content === 'string' ? enc.encode(a.content).byteLength : a.content.byteLength;
    n += Math.ceil(size / 3) * 4;
  }
  return n;
}
