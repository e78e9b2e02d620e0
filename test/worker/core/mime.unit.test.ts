/**
 * File names and header values that reach a MIME header (src/core/mime.ts): a name is
 * written as RFC 2231 `filename*=UTF-8''...` plus an ASCII fallback, and nothing a name or
 * a header value holds (CR, LF, quotes) can start a header line of its own.
 */
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { filenameParams } from '../../../src/core/mime';
import { buildMime } from '../../../src/core/mime-message';

const mail = (filename: string, extra: Partial<Parameters<typeof buildMime>[0]> = {}) =>
  buildMime({
    kind: 'reply',
    from: 'platform@mail.example',
    to: ['ann@example.com'],
    subject: 'Re: x',
    text: 'see attached',
    html: '<p>see attached</p>',
    attachments: [{ filename, content_type: 'text/plain', content: new TextEncoder().encode('hello') }],
    ...extra,
  });

/** Header lines of the whole message (top level and every part), unfolded names only. */
const headerNames = (raw: string) =>
  raw
    .split(/\r?\n/)
    .map((l) => /^([A-Za-z-]+):/.exec(l)?.[1]?.toLowerCase())
    .filter(Boolean);

describe('MIME attachment file names cannot inject headers', () => {
  it.each([
    'a"\r\nBcc: victim@example.com\r\nX-Evil: 1\r\n.txt',
    'a\nBcc: victim@example.com.txt',
    'a\rBcc: victim@example.com.txt',
    'report.txt"; filename="evil.exe',
    'a\\"\r\n\r\n--boundary\r\nContent-Type: text/html\r\n\r\n<script>.txt',
  ])('%j never starts a header line, and no Bcc appears', async (name) => {
    const raw = await mail(name);
    const names = headerNames(raw);
    expect(names).not.toContain('bcc');
    expect(names).not.toContain('x-evil');
    for (const line of raw.split(/\r?\n/)) expect(line).not.toMatch(/^(Bcc|X-Evil):/i);
    const parsed = await PostalMime.parse(raw);
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.attachments).toHaveLength(1);
    // filename* may carry a quote (percent-encoded); never a line break.
    expect(parsed.attachments[0]!.filename).not.toMatch(/[\r\n]/);
  });

  it('a non-ASCII name round-trips through filename* and keeps an ASCII fallback', async () => {
    const raw = await mail('Grüße “Q1” résumé.pdf');
    expect(raw).toContain(`filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%E2%80%9CQ1%E2%80%9D%20r%C3%A9sum%C3%A9.pdf`);
    expect(raw).toMatch(/filename="Gr__e _Q1_ r_sum_\.pdf"/);
    const parsed = await PostalMime.parse(raw);
    expect(parsed.attachments[0]!.filename).toBe('Grüße “Q1” résumé.pdf');
  });

  it('filenameParams: control characters go; quotes and backslashes leave the fallback and are percent-encoded in filename*', () => {
    expect(filenameParams('a"b\\c\r\nd\te\u0000f\u007f.txt')).toEqual({
      ascii: 'abcdef.txt',
      encoded: `UTF-8''a%22b%5Ccdef.txt`,
    });
    expect(filenameParams("it's (1)*.txt")).toEqual({
      ascii: "it's (1)*.txt",
      encoded: `UTF-8''it%27s%20%281%29%2A.txt`,
    });
    expect(filenameParams('\r\n"')).toEqual({ ascii: 'attachment', encoded: `UTF-8''attachment` });
    // A long name is shortened so the header line stays within the 998-character limit.
    const long = filenameParams('é'.repeat(500) + '.txt');
    expect(long.encoded.length).toBeLessThanOrEqual(600);
    expect(long.ascii.length).toBeLessThanOrEqual(100);
  });

  it('a content type with CR/LF or parameters cannot inject either', async () => {
    const raw = await mail('a.txt', {
      attachments: [
        { filename: 'a.txt', content_type: 'text/plain\r\nBcc: victim@example.com', content: new Uint8Array([1]) },
      ],
    });
    expect(headerNames(raw)).not.toContain('bcc');
    expect(raw).toContain('Content-Type: application/octet-stream; name="a.txt"');
  });

  it('custom header values lose CR and LF', async () => {
    const raw = await mail('a.txt', { headers: { 'List-Unsubscribe': '<https://h/u>\r\nBcc: victim@example.com' } });
    expect(headerNames(raw)).not.toContain('bcc');
    expect(raw).toContain('List-Unsubscribe: <https://h/u>Bcc: victim@example.com');
  });

  it('an inline (cid:) part is used only for a name that is safe in Content-ID', async () => {
    const png = (name: string) =>
      mail(name, {
        // The HTML names the part as it is (a body line break would only break the HTML itself).
        html: `<img src="cid:${name.replace(/[\r\n]/g, ' ')}">`,
        attachments: [{ filename: name, content_type: 'image/png', content: new Uint8Array([137, 80, 78, 71]) }],
      });
    for (const name of ['lo go>.png', 'logo>\r\nBcc: v@example.com.png']) {
      const parsed = await PostalMime.parse(await png(name));
      expect(parsed.bcc).toBeUndefined();
      expect(parsed.attachments[0]!.contentId).toBeUndefined();
      expect(parsed.attachments[0]!.disposition).toBe('attachment');
    }
    const ok = await PostalMime.parse(await png('logo.png'));
    expect(ok.attachments[0]!.contentId).toBe('<logo.png>');
    expect(ok.attachments[0]!.disposition).toBe('inline');
  });
});
