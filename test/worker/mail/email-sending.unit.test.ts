// The structured message the send_email transport hands Cloudflare Email Sending (pure).
import { describe, expect, it } from 'vitest';
import { EMAIL_SENDING_LIMITS, messageBytes, structuredEmail } from '../../../src/core/email-sending';
import type { OutboundMail } from '../../../src/core/outbound';

const mail = (o: Partial<OutboundMail> = {}): OutboundMail & { from: string } => ({
  kind: 'mail',
  from: 'platform@mail.example.com',
  to: ['a@example.com'],
  subject: 'News',
  text: 'hi',
  html: '<p>hi <img src="cid:logo.png"></p>',
  ...o,
});

describe('the Email Sending message', () => {
  it('address headers become API fields, the stable id travels as X-Message-ID, platform-owned headers are dropped', () => {
    const m = structuredEmail(
      mail({
        messageId: '<s1.abc@mail.example.com>',
        headers: {
          'Reply-To': 'desk@example.com',
          'Message-ID': '<other@x>',
          Date: 'now',
          'List-Unsubscribe': '<https://example.com/u/1>',
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          'X-Empty': '  ',
        },
      }),
      ['a@example.com'],
    );
    expect(m.replyTo).toBe('desk@example.com');
    expect(m.headers).toEqual({
      'List-Unsubscribe': '<https://example.com/u/1>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'X-Message-ID': '<s1.abc@mail.example.com>',
    });
  });

  it('CR and LF never reach a header value, the subject or an address', () => {
    const m = structuredEmail(mail({ subject: 'a\r\nBcc: x@evil', headers: { 'X-Note': 'one\r\nBcc: y@evil' } }), [
      'a@example.com\r\nBcc: z@evil',
    ]);
    expect(JSON.stringify([m.subject, m.headers, m.to])).not.toMatch(/\\r|\\n/);
  });

  it('an asset the HTML names as cid: is inline with that content id; anything else is an attachment', () => {
    const png = new Uint8Array([1, 2, 3]);
    const m = structuredEmail(
      mail({
        attachments: [
          { filename: 'logo.png', content_type: 'image/png', content: png },
          { filename: 'report.pdf', content_type: 'application/pdf', content: png },
          { filename: 'bad name.png', content_type: 'text/html\r\nX: y', content: png },
        ],
      }),
      ['a@example.com'],
    );
    expect(m.attachments).toEqual([
      { disposition: 'inline', contentId: 'logo.png', filename: 'logo.png', type: 'image/png', content: png },
      { disposition: 'attachment', filename: 'report.pdf', type: 'application/pdf', content: png },
      { disposition: 'attachment', filename: 'bad name.png', type: 'application/octet-stream', content: png },
    ]);
  });

  it('the size counts attachments base64-encoded, against the 5 MiB limit', () => {
    const content = new Uint8Array(3 * 1024 * 1024);
    const m = structuredEmail(
      mail({ attachments: [{ filename: 'big.bin', content_type: 'application/octet-stream', content }] }),
      ['a@example.com'],
    );
    expect(messageBytes(m)).toBeGreaterThan(4 * 1024 * 1024);
    expect(messageBytes(m)).toBeLessThan(EMAIL_SENDING_LIMITS.bytes);
  });
});
