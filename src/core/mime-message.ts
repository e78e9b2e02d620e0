/**
 * The raw message the send_email_mime transport hands over, built with mimetext. Pure: it
 * runs in the libraries isolate (core/libraries.ts: mimetext and its type table, 260 KiB,
 * are not part of the Worker), tests call it directly and parse it back. Nothing a caller
 * hands in (a file name, a header value, a content type) can start a header line.
 */
import { createMimeMessage, Mailbox } from 'mimetext';
import { toBase64 } from './crypto';
import { CID_SAFE, filenameParams, safeType } from './mime';
import type { OutboundMail } from './outbound';

/** The raw RFC 5322 message: text and HTML alternatives, headers, attachments. */
export function buildMime(mail: OutboundMail & { from: string }): string {
  const msg = createMimeMessage();
  const line = (v: string) => v.replace(/[\r\n]/g, '');
  msg.setSender(line(mail.from));
  msg.setTo(mail.to.map(line));
  msg.setSubject(mail.subject);
  for (const [name, value] of Object.entries(mail.headers ?? {})) {
    // Address headers are Mailboxes in mimetext; the rest are plain strings. CR/LF never pass.
    msg.setHeader(line(name), /^(reply-to|cc|bcc)$/i.test(name) ? new Mailbox(line(value)) : line(value));
  }
  msg.addMessage({ contentType: 'text/plain', data: mail.text });
  if (mail.html) msg.addMessage({ contentType: 'text/html', data: mail.html });
  for (const a of mail.attachments ?? []) {
    const { ascii, encoded } = filenameParams(a.filename);
    const inline = CID_SAFE.test(a.filename) && mail.html.includes(`cid:${a.filename}`);
    const part = msg.addAttachment({
      filename: ascii,
      contentType: safeType(a.content_type),
      data: toBase64(a.content),
      ...(inline ? { inline: true, headers: { 'Content-ID': `<${a.filename}>` } } : {}),
    });
    // mimetext writes only filename="..."; the RFC 2231 form carries the name as it is.
    part.setHeader(
      'Content-Disposition',
      `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=${encoded}`,
    );
  }
  return msg.asRaw();
}
