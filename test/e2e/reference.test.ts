/**
 * The API reference (/v1/docs, Scalar served by the Worker) in a real headless Chromium:
 * every tag is listed, an operation opens, "try it" against the same origin with a bearer
 * token answers 200, and the page fetches nothing from anywhere else (no CDN, no fonts
 * from elsewhere). The screenshots are kept for a look (no glyph may be a missing-font box).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, click, evaluate, launchChromium, newTab, waitFor, type Browser } from './chromium';
import { base, http, makeUser } from './harness';

const VIEW = { width: 1280, height: 900 };

describe.skipIf(!existsSync(CHROMIUM))(`API reference in headless Chromium (${CHROMIUM})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(VIEW);
  });
  afterAll(async () => {
    // Browser.close may never be answered: stop() kills the process group anyway.
    await Promise.race([
      browser?.cdp.send('Browser.close').catch(() => undefined),
      new Promise((r) => setTimeout(r, 5_000)),
    ]);
    browser?.cdp.close();
    await browser?.stop();
  });

  const shoot = async (session: string, name: string) => {
    const shot = await browser.cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png' }, session);
    const file = join(tmpdir(), `api-reference-${name}.png`);
    writeFileSync(file, Buffer.from(shot.data, 'base64'));
    console.log(`api reference: screenshot written to ${file}`);
  };

  it('lists every tag, opens an operation, and "try it" GET /v1/whoami with a token answers 200, all from this origin', async () => {
    const { cdp } = browser;
    const u = await makeUser();
    const doc = (await (await http('GET', '/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const tags = [
      ...new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? []))),
    ];
    expect(tags.length).toBeGreaterThan(5);

    const s = await newTab(cdp, VIEW);
    await cdp.send('Page.navigate', { url: `${base()}/v1/docs` }, s);
    // Scalar renders one section per tag (id api-1/tag/<slug>) and a sidebar entry named after it.
    await waitFor(
      cdp,
      s,
      `document.querySelectorAll('[id^="api-1/tag/"]').length >= ${tags.length}`,
      'every tag section',
    );
    const tagIds = await evaluate<string[]>(
      cdp,
      s,
      `[...document.querySelectorAll('[id^="api-1/tag/"]')].map((e) => e.id).filter((id) => id.split('/').length === 3)`,
    );
    expect(tagIds.length).toBe(tags.length);
    const sidebar = await evaluate<string[]>(
      cdp,
      s,
      `[...document.querySelectorAll('a, button')].map((e) => e.innerText.trim())`,
    );
    for (const tag of tags) expect(sidebar, `sidebar entry for tag ${tag}`).toContain(tag);
    // The document's introduction (info.description, Markdown) is the page's first section.
    const intro = await evaluate<string>(cdp, s, `document.body.innerText`);
    for (const heading of ['Authentication and tokens', 'Rate limits', 'Reading your own writes (D1 bookmarks)'])
      expect(intro, `introduction heading ${heading}`).toContain(heading);
    await shoot(s, 'page');

    // A collapsed tag opens and lists its operations. (It is the sidebar's last entry, below
    // the fold of the sidebar's own scrolling list since the accounts tag grew: click scrolls
    // that list, not the page.)
    const metaOpListed = `[...document.querySelectorAll('aside a, aside button')].some((e) => /^The OpenAPI 3.1 document of this API/.test(e.innerText.trim()) && e.getBoundingClientRect().height > 0)`;
    expect(await evaluate<boolean>(cdp, s, metaOpListed), 'the meta tag starts collapsed').toBe(false);
    await click(
      cdp,
      s,
      `[...document.querySelectorAll('aside a, aside button')].find((e) => e.innerText.trim() === 'meta')`,
      'the meta tag',
    );
    await waitFor(cdp, s, metaOpListed, 'the meta operations in the sidebar');
    await waitFor(
      cdp,
      s,
      `(() => { const e = document.getElementById('api-1/tag/meta'); return e && e.innerText.includes('/v1/openapi.json'); })()`,
      'the meta operations',
    );

    // Open an operation from the sidebar: GET /v1/whoami ("The caller's username").
    await click(
      cdp,
      s,
      `[...document.querySelectorAll('a, button')].find((e) => /^The caller's username/.test(e.innerText))`,
      'the whoami entry',
    );
    await waitFor(cdp, s, `location.hash.endsWith('/GET/v1/whoami')`, 'the operation in the url');
    const op = await waitFor<string>(
      cdp,
      s,
      `(() => { const e = document.getElementById('api-1/tag/accounts/GET/v1/whoami'); return e && /Test Request/.test(e.innerText) && e.innerText; })()`,
      'the opened operation',
    );
    expect(op).toMatch(/Auth Required/);
    expect(op).toMatch(/200/);

    // "Try it": the client of the operation, a bearer token typed in, Send.
    await click(
      cdp,
      s,
      `[...document.querySelectorAll('button')].find((e) => /Test Request[\\s\\S]*get \\/v1\\/whoami/i.test(e.innerText))`,
      'Test Request',
    );
    const tokenInput = `[...document.querySelectorAll('input[placeholder="Token"]')].find((e) => e.id.startsWith('scalar-client') && e.getBoundingClientRect().width > 0)`;
    await click(cdp, s, tokenInput, 'the bearer token input of the client');
    await cdp.send('Input.insertText', { text: u.token }, s);
    await waitFor(cdp, s, `(${tokenInput})?.value === ${JSON.stringify(u.token)}`, 'the token typed in');
    // A person takes a moment between typing and Send; Scalar stores the field a tick later.
    await new Promise((r) => setTimeout(r, 500));
    await click(
      cdp,
      s,
      `[...document.querySelectorAll('button')].find((e) => /^Send/.test(e.innerText.trim()) && e.getBoundingClientRect().width > 0)`,
      'Send',
    );
    try {
      await waitFor(
        cdp,
        s,
        `[...document.querySelectorAll('.scalar-client')].some((e) => e.innerText.includes(${JSON.stringify(u.username)}))`,
        'the response body',
      );
    } catch (err) {
      // Keep what the client shows for a look: its screenshot, its text, the requests sent.
      await shoot(s, 'try-it-failed');
      const seen = await evaluate<string>(
        cdp,
        s,
        `[...document.querySelectorAll('.scalar-client')].map((e) => e.innerText).join('\\n').slice(0, 800)`,
      );
      const urls = cdp.events
        .filter((e) => e.sessionId === s && e.method === 'Network.requestWillBeSent')
        .map((e) => (e.params.request as { url: string }).url);
      throw new Error(`${(err as Error).message}; the client shows: ${seen}; requests: ${urls.slice(-5).join(' ')}`, {
        cause: err,
      });
    }
    const panel = await evaluate<string>(
      cdp,
      s,
      `[...document.querySelectorAll('.scalar-client')].map((e) => e.innerText).join('\\n')`,
    );
    expect(panel).toMatch(/200 OK/);
    await shoot(s, 'try-it');

    const mine = cdp.events.filter((e) => e.sessionId === s);
    const sent = mine
      .filter((e) => e.method === 'Network.requestWillBeSent')
      .map((e) => e.params.request as { url: string; headers: Record<string, string> });
    const whoami = sent.find((r) => r.url === `${base()}/v1/whoami`);
    expect(whoami?.headers.authorization ?? whoami?.headers.Authorization).toBe(`Bearer ${u.token}`);
    const answered = mine
      .filter((e) => e.method === 'Network.responseReceived')
      .map((e) => e.params.response as { url: string; status: number });
    expect(answered.find((r) => r.url === `${base()}/v1/whoami`)?.status).toBe(200);

    // Nothing came from elsewhere (no CDN, no web fonts), and no CSP violation or script error.
    const elsewhere = sent.map((r) => r.url).filter((url) => !url.startsWith(`${base()}/`) && !url.startsWith('data:'));
    expect(elsewhere).toEqual([]);
    const problems = mine
      .filter(
        (e) =>
          e.method === 'Runtime.exceptionThrown' ||
          (e.method === 'Log.entryAdded' && (e.params.entry as { level: string }).level === 'error'),
      )
      .map((e) => JSON.stringify(e.params).slice(0, 300));
    expect(problems).toEqual([]);
    // Text is set in the system fonts (Scalar's default web fonts are off).
    const fonts = await evaluate<string[]>(
      cdp,
      s,
      `['h1', '.scalar-client', '[id="api-1/tag/accounts"]'].map((q) => getComputedStyle(document.querySelector(q)).fontFamily)`,
    );
    for (const f of fonts) expect(f).toMatch(/^system-ui/);
    expect(await evaluate<number>(cdp, s, `[...document.fonts].filter((f) => f.status !== 'unloaded').length`)).toBe(0);
  });
});
