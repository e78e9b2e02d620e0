// The HTML part through the Worker: the web view at the mail's url serves the document a
// recipient gets (without their footer and the "view in browser" link), its style attributes
// allowed one by one by hash; a message over the size limit is sent as a notice linking the
// web view, and the send's log says so.
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { styleValues } from '../../../src/mail/web-page';
import { call } from '../helpers';
import { EVERY_BLOCK, MAIL_PNG } from './every-block';
import { logWhen, newMail, outboxTo, post, sender, untilReady } from './fixtures';

vi.setConfig({ testTimeout: 120_000 });

/** The message cell's content: what the send and the web view share. */
const bodyOf = (html: string) => {
  const start = html.indexOf('<td class="mail-body"');
  return html.slice(start, html.indexOf('\n</td></tr>', start));
};

describe('mail HTML', () => {
  it('the web view is the HTML part a recipient gets, without footer and "view in browser"; its styles allowed by hash', async () => {
    const u = await sender();
    const { path, name } = await newMail(u, { content: EVERY_BLOCK, subject: 'Every block', 'config/theme': 'ocean' });
    expect(
      (await call('POST', `${path}/assets/pic.png`, { token: u.token, body: MAIL_PNG, type: 'image/png' })).status,
    ).toBeLessThan(300);
    expect((await post(u, path, { text: 'test' })).status).toBe(202);
    await untilReady(u, path);
    const [sent] = (await outboxTo(u.email)).filter((m) => m.subject === 'Every block');
    const res = await call('GET', `/u/${u.username}/m/${name}`, { token: u.token });
    expect(res.status).toBe(200);
    const page = await res.text();
    const url = `${env.PUBLIC_ORIGIN}/u/${u.username}/m/${name}`;
    expect(sent!.html).toContain(`<a href="${url}" style="`);
    expect(page).not.toContain('View in browser');
    expect(page).not.toMatch(/unsubscribe/i);
    expect(page).toMatch(/^<!DOCTYPE html PUBLIC/);
    expect(page).toContain('<meta name="color-scheme" content="light dark" />');
    // The same body, but for the picture inlined as a data: url (its size attributes the same).
    expect(page).toMatch(/src="data:image\/png;base64,[^"]+" alt="a red square" width="2" height="2"/);
    expect(bodyOf(page).replace(/src="data:image\/png;base64,[^"]+"/, 'src="cid:pic.png"')).toBe(bodyOf(sent!.html));
    expect(bodyOf(page).length).toBeGreaterThan(2000);
    // Its policy: no inline style but the ones the page has, each by its hash; no style element.
    const csp = res.headers.get('Content-Security-Policy')!;
    expect(csp).not.toMatch(/unsafe-inline|script-src/);
    const hashes = /style-src 'unsafe-hashes'((?: 'sha256-[A-Za-z0-9+/=]+')+);/.exec(csp)?.[1]?.trim().split(' ');
    expect(hashes).toHaveLength(styleValues(page).length);
    expect(page).not.toContain('<style');
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="`);
  });

  it('a message whose HTML is over 100 KB is sent as a notice linking the web view, with a warning in the log; the text part whole', async () => {
    const u = await sender();
    const rows = '| a | b |\n|---|---|\n' + '| cell | cell |\n'.repeat(3000);
    const { path, name } = await newMail(u, { content: `# Big\n\n${rows}`, subject: 'Big one' });
    expect((await post(u, path, { text: 'test' })).status).toBe(202);
    await untilReady(u, path);
    const [sent] = (await outboxTo(u.email)).filter((m) => m.subject === 'Big one');
    expect(new TextEncoder().encode(sent!.html).length).toBeLessThan(10 * 1024);
    expect(sent!.html).toContain('too large for your mail program');
    expect(sent!.html).toContain(`href="${env.PUBLIC_ORIGIN}/u/${u.username}/m/${name}"`);
    expect(sent!.html).toContain('Unsubscribe</a>');
    expect(sent!.text.split('cell').length).toBeGreaterThan(6000);
    const log = await logWhen(u, path, (l) => l.some((m) => m.includes('over the 100 KB')));
    expect(log.find((m) => m.includes('over the 100 KB'))).toMatch(/^send \S+: the HTML is \d+ KB, over the 100 KB/);
    // The web view shows it whole.
    const page = await (await call('GET', `/u/${u.username}/m/${name}`, { token: u.token })).text();
    expect(page.split('>cell</td>').length).toBeGreaterThan(6000);
  });
});
