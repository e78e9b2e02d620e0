/**
 * The raw message the send_email transport hands over, built with mimetext. Pure: the
 * mailer (core/mailer.ts) sends it, tests parse it back.
 */
import { createMimeMessage, Mailbox } from 'mimetext';
import type { OutboundMail } from './outbound';

const b64 = (bytes: Uint8Array): string => {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
};

/** The raw RFC 5322 message: text and HTML alternatives, headers, attachments. */
export function buildMime(mail: OutboundMail & { from: string }): string {
  const msg = createMimeMessage();
  msg.setSender(mail.from);
  msg.setTo(mail.to);
  msg.setSubject(mail.subject);
  for (const [name, value] of Object.entries(mail.headers ?? {})) {
    // Address headers are Mailboxes in mimetext; the rest are plain strings.
    msg.setHeader(name, /^(reply-to|cc|bcc)$/i.test(name) ? new Mailbox(value) : value);
  }
  msg.addMessage({ contentType: 'text/plain', data: mail.text });
  if (mail.html) msg.addMessage({ contentType: 'text/html', data: mail.html });
  for (const a of mail.attachments ?? []) {
    const inline = mail.html.includes(`cid:${a.filename}`);
    msg.addAttachment({
      filename: a.filename,
      contentType: a.content_type,
      data: b64(a.content),
      ...(inline ? { inline: true, headers: { 'Content-ID': `<${a.filename}>` } } : {}),
    });
  }
  return msg.asRaw();
}
