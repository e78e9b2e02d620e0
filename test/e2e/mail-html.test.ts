/**
 * The e-mail HTML in a real browser: the mail's web view (the same document a recipient
 * gets, without their footer) of a mail with every block kind, opened in headless Chromium
 * in every theme at 600 px and at 375 px (a phone): it fits without horizontal scroll, its
 * styles apply under the page's policy (no violation logged), and the computed styles of
 * headings, tables and callouts are the theme's. Screenshots land in .test-results/.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLOUT_STYLE } from '../../src/markup/block-styles';
import { MAIL_HEADING_PX } from '../../src/markup/mail-styles';
import { THEMES } from '../../src/markup/themes';
import { EVERY_BLOCK } from '../worker/mail/every-block-content';
import { CHROMIUM, evaluate, launchChromium, openPage, pageProblems, type Browser, type Cdp } from './chromium';
import { base, http, makeUser, unique, type E2EUser } from './harness';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8AARAwMDAwMAAAN/wH/ntFf5QAAAABJRU5ErkJggg==',
  'base64',
);
const WIDTHS = [600, 375];
const SHOTS = new URL('../../.test-results/mail-html/', import.meta.url);

/** `#rrggbb` as getComputedStyle writes it. */
const rgb = (hex: string) => {
  const n = parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
};

describe.skipIf(!existsSync(CHROMIUM))('the e-mail HTML in headless Chromium at 600 px and 375 px', () => {
  let chrome: Browser;
  let cdp: Cdp;
  let u: E2EUser;
  const mail = unique('m');
  beforeAll(async () => {
    chrome = await launchChromium({ width: 600, height: 900 });
    cdp = chrome.cdp;
    u = await makeUser();
    const ok = async (res: Promise<Response>) => expect((await res).status).toBeLessThan(300);
    await ok(http('PUT', `/v1/vis/mails/${mail}`, { token: u.token }));
    await ok(http('POST', `/v1/vis/mails/${mail}/assets/pic.png`, { token: u.token, body: PNG, type: 'image/png' }));
    const content = EVERY_BLOCK.replaceAll('/u/ann/', `/u/${u.username}/`).replace('  ann\n', `  ${u.username}\n`);
    await ok(http('POST', `/v1/vis/mails/${mail}/content`, { token: u.token, text: content }));
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    cdp?.close();
    await chrome?.stop();
  });

  for (const theme of Object.keys(THEMES))
    it(`theme ${theme}: fits 600 and 375 px, styled with the theme's values under the page's policy`, async () => {
      const t = THEMES[theme]!;
      expect(
        (await http('POST', `/v1/vis/mails/${mail}/config/theme`, { token: u.token, text: theme })).status,
      ).toBeLessThan(300);
      for (const width of WIDTHS) {
        const view = { width, height: 900 };
        const seen = cdp.events.length;
        const session = await openPage(cdp, view, `${base()}/u/${u.username}/m/${mail}`, {
          Authorization: `Bearer ${u.token}`,
        });
        const problems = pageProblems(cdp, session, seen, ['error', 'warning']);
        expect(problems, `${theme} at ${width}`).toEqual([]);
        const got = await evaluate<Record<string, string | number>>(
          cdp,
          session,
          `(() => {
            const cs = (sel) => getComputedStyle(document.querySelector(sel));
            const callout = document.querySelector('.sb-callout-info td');
            return {
              scroll: document.documentElement.scrollWidth - innerWidth,
              h1Color: cs('h1').color, h1Size: cs('h1').fontSize, h1Border: cs('h1').borderBottomColor,
              h2Color: cs('h2').color,
              thBg: cs('th').backgroundColor, thBorder: cs('th').borderBottomColor, tdBorder: cs('table:not([role]) td').borderTopColor,
              calloutBg: getComputedStyle(callout).backgroundColor, calloutBorder: getComputedStyle(callout).borderLeftColor,
              bodyBg: cs('.mail-body').backgroundColor, bodyColor: cs('.mail-body').color,
              button: cs('td.mail-button').backgroundColor,
              mailWidth: document.querySelector('.mail').getBoundingClientRect().width,
              img: document.querySelector('img[alt="a red square"]').width,
            };
          })()`,
        );
        expect(got, `${theme} at ${width}`).toEqual({
          scroll: 0,
          h1Color: rgb(t.accent),
          h1Size: `${MAIL_HEADING_PX.h1}px`,
          h1Border: rgb(t.accent),
          h2Color: rgb(t.accent),
          thBg: rgb(t.surface),
          thBorder: rgb(t.accent),
          tdBorder: rgb(t.border),
          calloutBg: rgb(CALLOUT_STYLE.info.fill),
          calloutBorder: rgb(CALLOUT_STYLE.info.accent),
          bodyBg: rgb(t.bg),
          bodyColor: rgb(t.fg),
          button: rgb(t.accent),
          // the message column takes the window up to the mail's width (m: 900 px)
          mailWidth: width,
          img: 2,
        });
        const shot = await cdp.send<{ data: string }>(
          'Page.captureScreenshot',
          { format: 'png', captureBeyondViewport: true },
          session,
        );
        writeFileSync(new URL(`${theme}-${width}.png`, SHOTS), Buffer.from(shot.data, 'base64'));
      }
    });
});
