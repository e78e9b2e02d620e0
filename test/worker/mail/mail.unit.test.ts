// Pure rules of the mail area and the MIME the send_email transport builds.
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { composeMail, contentKey, personalise } from '../../../src/mail/compose';
import { buildMime } from '../../../src/core/mime-message';
import { yesNo } from '../../../src/core/yes-no';
import {
  checkWindow,
  parseRecipientList,
  parseSendJson,
  parseSendText,
  recipientKey,
  runStatus,
  SendRequestError,
  WINDOW_MS,
} from '../../../src/mail/rules';
import { runsTable } from '../../../src/mail/stats-routes';
import { renderMarkdown } from '../../../src/markup/markdown';
import { burstProblems } from './burst';

describe('send request bodies', () => {
  it.each([
    ['sent', 'send'],
    ['sending', 'send'],
    ['anything', 'send'],
    ['test', 'test'],
    ['testing', 'test'],
    ['test\n', 'test'],
  ])('bare text %j is a %s', (body, action) => expect(parseSendText(body)).toEqual({ action }));
  it('an empty text body is rejected', () => expect(() => parseSendText('  ')).toThrow(SendRequestError));
  it('JSON action defaults to send; action test equals the bare test', () => {
    expect(parseSendJson({})).toEqual({ action: 'send' });
    expect(parseSendJson({ action: 'send' })).toEqual({ action: 'send' });
    expect(parseSendJson({ action: 'test' })).toEqual({ action: 'test' });
  });
  it('to is normalised: lowercased, unique, sorted', () => {
    expect(parseSendJson({ to: ['B@x.io', 'a@x.io', 'b@X.io'] })).toEqual({ action: 'send', to: ['a@x.io', 'b@x.io'] });
  });
  it.each([
    ['not an object', 'sent'],
    ['an array', ['a@x.io']],
    ['null', null],
    ['unknown action', { action: 'blast' }],
    ['non-string action', { action: 3 }],
    ['non-array to', { to: 'a@x.io' }],
    ['empty to', { to: [] }],
    ['invalid address', { to: ['a@x.io', 'nope'] }],
    ['a user handle in to', { to: ['@bob'] }],
    ['a non-string in to', { to: [42] }],
    ['cc (only to is supported)', { to: ['a@x.io'], cc: ['b@x.io'] }],
    ['to with action test', { action: 'test', to: ['a@x.io'] }],
  ])('rejects %s', (_what, body) => expect(() => parseSendJson(body)).toThrow(SendRequestError));
  it('the in-flight key: stored list, the ad-hoc recipient set, or test', () => {
    expect(recipientKey({ action: 'send' })).toBe('list');
    expect(recipientKey({ action: 'test' })).toBe('test');
    expect(recipientKey({ action: 'send', to: ['a@x.io', 'b@x.io'] })).toBe('to:a@x.io,b@x.io');
  });
});

describe('recipient lists', () => {
  it('accepts addresses, @user, @user~group, +org~group, me and self, whitespace-separated', () => {
    const { items, rejected } = parseRecipientList('a@x.io  @bob\n@bob~team +acme~sales\tme self\n');
    expect(rejected).toEqual([]);
    expect(items.map((i) => i.item.kind)).toEqual(['address', 'user', 'group', 'group', 'me', 'me']);
  });
  it('names every bad item with a reason', () => {
    const { rejected } = parseRecipientList('ok@x.io bad@ @Bob +acme you');
    expect(rejected.map((r) => r.line)).toEqual(['bad@', '@Bob', '+acme', 'you']);
    for (const r of rejected) expect(r.reason).toBeTruthy();
  });
  it('an empty list is valid', () => expect(parseRecipientList('')).toEqual({ items: [], rejected: [] }));
});

describe('the rate window (10 per 30 minutes)', () => {
  const t0 = 1_000_000_000;
  it('allows 10, holds the 11th with the seconds until the oldest leaves', () => {
    const stamps = Array.from({ length: 10 }, (_, i) => t0 + i * 1000);
    expect(checkWindow(stamps.slice(0, 9), t0 + 10_000).ok).toBe(true);
    const held = checkWindow(stamps, t0 + 10_000);
    expect(held).toMatchObject({ ok: false, retryAfterSeconds: (WINDOW_MS - 10_000) / 1000 });
  });
  it('stamps older than 30 minutes drop out', () => {
    const stamps = Array.from({ length: 10 }, () => t0);
    expect(checkWindow(stamps, t0 + WINDOW_MS).ok).toBe(true);
    expect(checkWindow(stamps, t0 + WINDOW_MS).kept).toEqual([]);
  });
});

describe('options and outcomes', () => {
  it.each(['no', 'n', 'nope', 'false', 'f', 'off', '0', 'NO', ' off '])('config/enabled %j is falsy', (v) =>
    expect(yesNo(v, true)).toBe(false),
  );
  it.each(['true', 'yes', '', 'on', '1', 'maybe'])('config/enabled %j is not falsy', (v) =>
    expect(yesNo(v, true)).toBe(true),
  );
  it('a run is delivered, partial or failed', () => {
    const t = { recipients: 2, delivered: 2, suppressed: 0, skipped: 0, failed: 0 };
    expect(runStatus(t)).toBe('delivered');
    expect(runStatus({ ...t, delivered: 1, failed: 1 })).toBe('partial');
    expect(runStatus({ ...t, delivered: 1, skipped: 1 })).toBe('partial');
    expect(runStatus({ ...t, delivered: 0, failed: 2 })).toBe('failed');
    expect(runStatus({ ...t, recipients: 0, delivered: 0 })).toBe('failed');
  });
  it('stats/runs text is a table with a header and one row per send, bounces and complaints last', () => {
    const row = {
      send_id: 's1',
      timestamp: '2026-01-01T00:00:00.000Z',
      duration: 0.5,
      status: 'delivered' as const,
      action: 'send' as const,
      adhoc: false,
      created_by: 'a',
      recipients: 2,
      delivered: 2,
      suppressed: 0,
      skipped: 0,
      failed: 0,
      bounced: 1,
      complained: 0,
    };
    const lines = runsTable([row, { ...row, status: 'failed', adhoc: true }])
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^timestamp\s+duration\s+status.*failed\s+bounced\s+complained$/);
    expect(lines[1]).toMatch(/\s1\s+0$/);
    expect(lines[1]).toMatch(/^2026-01-01T00:00:00.000Z\s+0.50\s+delivered\s+send\s/);
    expect(lines[2]).toMatch(/failed\s+send\(to\)/);
  });
});

describe('composition and the content key', () => {
  const values = (o: Record<string, string>) => new Map(Object.entries(o));
  it('subject from config/subject, else name, else the resource name; width from config/size', () => {
    expect(composeMail(values({ 'config/subject': 'Hi' }), 'm').subject).toBe('Hi');
    expect(composeMail(values({ name: 'News' }), 'm').subject).toBe('News');
    expect(composeMail(values({}), 'weekly').subject).toBe('weekly');
    expect(composeMail(values({ 'config/size': 'xs' }), 'm').width).toBe(400);
    expect(composeMail(values({}), 'm').width).toBe(900);
  });
  it('markdown renders to HTML; asset references become cid: parts', () => {
    const c = composeMail(values({ content: '# Title\n\n![logo](assets/logo.png)' }), 'm');
    expect(c.body).toContain('<h1');
    expect(c.body).toContain('src="cid:logo.png"');
    expect(c.assets).toEqual(['logo.png']);
  });
  it('every personalised message carries its unsubscribe link in HTML and text', () => {
    const p = personalise(composeMail(values({ content: 'x' }), 'm'), 'https://h/v1/mail/unsubscribe/t.s');
    expect(p.html).toContain('href="https://h/v1/mail/unsubscribe/t.s"');
    expect(p.text).toContain('Unsubscribe: https://h/v1/mail/unsubscribe/t.s');
  });
  it('the content key changes with content, subject, theme and embedded assets; not with unrelated entries', async () => {
    const base = { content: 'x', 'config/subject': 's' };
    const k = (o: Record<string, string>, tags: string[] = []) => contentKey(composeMail(values(o), 'm'), tags);
    const k0 = await k(base);
    expect(await k({ ...base, description: 'other' })).toBe(k0);
    expect(await k({ ...base, content: 'y' })).not.toBe(k0);
    expect(await k({ ...base, 'config/subject': 't' })).not.toBe(k0);
    expect(await k({ ...base, 'config/theme': 'dark' })).not.toBe(k0);
    expect(await k(base, ['logo.png:abc'])).not.toBe(await k(base, ['logo.png:def']));
  });
});

describe('the MIME message handed to send_email', () => {
  it('has sender, recipient, subject, headers, text and HTML alternatives and attachments', async () => {
    const raw = await buildMime({
      kind: 'mail',
      from: 'platform@mail.example',
      to: ['ann@example.com'],
      subject: 'Grüße',
      text: 'plain body',
      html: '<p>html body <img src="cid:logo.png"></p>',
      headers: { 'List-Unsubscribe': '<https://h/u/t>', 'Reply-To': 'owner@example.com' },
      attachments: [
        { filename: 'logo.png', content_type: 'image/png', content: new Uint8Array([137, 80, 78, 71]) },
        { filename: 'report.pdf', content_type: 'application/pdf', content: new Uint8Array([37, 80, 68, 70]) },
      ],
    });
    const m = await PostalMime.parse(raw);
    expect(m.from?.address).toBe('platform@mail.example');
    expect(m.to?.map((t) => t.address)).toEqual(['ann@example.com']);
    expect(m.subject).toBe('Grüße');
    expect(m.text?.trim()).toBe('plain body');
    expect(m.html).toContain('html body');
    expect(m.headers.find((h) => h.key === 'list-unsubscribe')?.value).toBe('<https://h/u/t>');
    expect(m.replyTo?.[0]?.address).toBe('owner@example.com');
    const logo = m.attachments.find((a) => a.filename === 'logo.png')!;
    expect(logo.mimeType).toBe('image/png');
    expect(logo.contentId).toBe('<logo.png>');
    expect(new Uint8Array(logo.content as ArrayBuffer)).toEqual(new Uint8Array([137, 80, 78, 71]));
    expect(m.attachments.find((a) => a.filename === 'report.pdf')?.disposition).toBe('attachment');
  });
});

describe('the burst invariant (never two sends in flight)', () => {
  const run = (timestamp: string, duration: number, delivered = 3) => ({ timestamp, duration, delivered });
  it('one 202 and 425 for the rest, with one run, holds', () => {
    expect(burstProblems([202, 425, 425], [run('2026-01-01T00:00:00.000Z', 0.2)], 3)).toEqual([]);
  });
  it('a second 202 after the first run ended holds', () => {
    expect(
      burstProblems([202, 425, 202], [run('2026-01-01T00:00:00.000Z', 0.2), run('2026-01-01T00:00:00.300Z', 0.2)], 3),
    ).toEqual([]);
  });
  it('a send accepted while another was in flight is a problem', () => {
    const p = burstProblems(
      [202, 202, 425],
      [run('2026-01-01T00:00:00.000Z', 0.5), run('2026-01-01T00:00:00.100Z', 0.2)],
      3,
    );
    expect(p).toEqual([
      'send accepted at 2026-01-01T00:00:00.100Z while the one of 2026-01-01T00:00:00.000Z was in flight',
    ]);
  });
  it('more runs than 202s, other answers, no 425 at all, short deliveries are problems', () => {
    expect(
      burstProblems([202, 429], [run('2026-01-01T00:00:00.000Z', 0.1), run('2026-01-01T00:00:01.000Z', 0.1, 2)], 3),
    ).toEqual([
      'answers other than 202 and 425: 429',
      '1 x 202 but 2 stats/runs rows',
      'run of 2026-01-01T00:00:01.000Z delivered 2 of 3',
    ]);
    expect(
      burstProblems([202, 202], [run('2026-01-01T00:00:00.000Z', 0.1), run('2026-01-01T00:00:01.000Z', 0.1)], 3),
    ).toEqual(['no request was held by the in-flight lock (425)']);
  });
});

describe("the text part keeps every link's url", () => {
  const mailText = (md: string) => renderMarkdown(md, { blocks: { target: 'mail' } }).text;
  it('a link reads `text <url>`, a button is a line of its own with its url, an autolink once', () => {
    expect(
      mailText(
        'See [the docs](https://example.com/docs?a=1&b=2) now, <https://example.com/raw>.\n\n[Big button](https://example.com/go "button")\n\nBye',
      ),
    ).toBe(
      'See the docs <https://example.com/docs?a=1&b=2> now, https://example.com/raw.\n\nBig button <https://example.com/go>\n\nBye',
    );
  });
  it('a mailto link keeps its address; a site-relative link and a document page keep only their text', () => {
    expect(mailText('[Write](mailto:a@example.com) or [home](/u/ann/d/x)')).toBe(
      'Write <mailto:a@example.com> or home',
    );
    expect(renderMarkdown('See [the docs](https://example.com/docs).').text).toBe('See the docs.');
  });
  it("a table's last cell no longer swallows the line break after its row", () => {
    expect(mailText('| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter')).toMatch(/1\t2\n+After$/);
  });
});
