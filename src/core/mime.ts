/**
 * The raw message the send_email transport hands over, built with mimetext. Pure: the
 * mailer (core/mailer.ts) sends it, tests parse it back. Nothing a caller hands in (a file
 * name, a header value, a content type) can start a header line: CR/LF never pass, and
 * attachment names are written as RFC 2231 `filename*=` with an ASCII fallback.
 */
import { toBase64 } from './crypto';
import type { OutboundMail } from './outbound';

/** Control characters (C0, DEL, C1) and the line separators: never part of a header value. */
// oxlint-disable-next-line no-control-regex -- the controls are what a header value must not hold
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** Longest fallback and encoded forms, so `Content-Disposition` stays under the 998-character line limit. */
const MAX_ASCII = 100;
const MAX_ENCODED = 600;

/** RFC 5987 attr-chars: encodeURIComponent also leaves ' ( ) * raw, which ext-value does not allow. */
const pct = (s: string) =>
  encodeURIComponent(s).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * An attachment's file name as header parameters: `ascii` for `filename="..."` (printable
 * ASCII, quotes and backslashes removed, other characters `_`) and `encoded` for RFC 2231
 * `filename*=` (UTF-8, percent-encoded). Control characters are dropped from both first, so
 * nothing in a name can end the header line.
 */
export function filenameParams(name: string, fallback = 'attachment'): { ascii: string; encoded: string } {
  // Keep whole code points while the encoded form fits (one pass: a long name costs linear time).
  let kept = '';
  let size = "UTF-8''".length;
  for (const ch of name.replace(CONTROLS, '').trim()) {
    size += pct(ch).length;
    if (size > MAX_ENCODED) break;
    kept += ch;
  }
  const clean = kept.trim();
  const ascii = clean
    .replace(/["\\]/g, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .slice(0, MAX_ASCII)
    .trim();
  // Nothing but quotes, backslashes or spaces: the whole name is the fallback.
  return ascii ? { ascii, encoded: `UTF-8''${pct(clean)}` } : { ascii: fallback, encoded: `UTF-8''${pct(fallback)}` };
}

/** The media type of an attachment: `type/subtype` (and a plain charset), else application/octet-stream. */
export function safeType(type: string): string {
  const m = /^\s*([\w.+-]+\/[\w.+-]+)\s*(?:;\s*charset="?([\w.:-]+)"?)?/i.exec(type);
  if (!m || /[\r\n]/.test(type.slice(0, m[0].length + 1))) return 'application/octet-stream';
  return m[2] ? `${m[1]}; charset=${m[2]}` : m[1]!;
}

/** A name that can stand in `Content-ID: <name>` and `cid:name` as it is. */
export const CID_SAFE = /^[\w.+-]{1,100}$/;

/**
 * The raw RFC 5322 message: text and HTML alternatives, headers, attachments. mimetext is
 * loaded at the first message (with its type table, 260 KiB): only the send_email_mime
 * transport builds one, and the Worker's startup should not compile it.
 */
export async function buildMime(mail: OutboundMail & { from: string }): Promise<string> {
  const { createMimeMessage, Mailbox } = await import('mimetext');
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
