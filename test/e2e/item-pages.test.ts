/**
 * Every item's url opens its page in a real headless Chromium (Debian's /usr/bin/chromium,
 * driven through the Chrome DevTools protocol): the grid's dashboard, the e-mail's web view
 * (its picture inlined under the page's policy) and the job's read-only page, each under
 * the document page's policy: no script runs, nothing comes from elsewhere, no policy
 * violation or error is logged, and the page shows what it is about.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, evaluate, launchChromium, openPage, type Browser, type Cdp } from './chromium';
import { base, http, makeUser, unique, type E2EUser } from './harness';

const VIEW = { width: 1000, height: 700 };
// A 2x2 red PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8AARAwMDAwMAAAN/wH/ntFf5QAAAABJRU5ErkJggg==',
  'base64',
);

describe.skipIf(!existsSync(CHROMIUM))(`item pages at their urls in headless Chromium (${CHROMIUM})`, () => {
  let chrome: Browser;
  let cdp: Cdp;
  let u: E2EUser;
  const names = { grid: unique('g'), mail: unique('m'), job: unique('j') };
  beforeAll(async () => {
    chrome = await launchChromium(VIEW);
    cdp = chrome.cdp;
    u = await makeUser();
    const ok = async (res: Promise<Response>) => expect((await res).status).toBeLessThan(300);
    await ok(http('PUT', `/v1/vis/grids/${names.grid}`, { token: u.token }));
    await ok(http('POST', `/v1/vis/grids/${names.grid}/mapping`, { token: u.token, text: 'A => /u/ann/p/sales\n' }));
    await ok(http('POST', `/v1/vis/grids/${names.grid}/layout`, { token: u.token, text: '+-----+\n| {A} |\n+-----+' }));
    await ok(http('PUT', `/v1/vis/mails/${names.mail}`, { token: u.token }));
    await ok(
      http('POST', `/v1/vis/mails/${names.mail}/assets/pic.png`, { token: u.token, body: PNG, type: 'image/png' }),
    );
    await ok(
      http('POST', `/v1/vis/mails/${names.mail}/content`, {
        token: u.token,
        text: '# Monthly letter\n\nHello **readers**.\n\n![a red square](assets/pic.png)\n',
      }),
    );
    await ok(http('PUT', `/v1/code/jobs/${names.job}`, { token: u.token }));
    await ok(http('POST', `/v1/code/jobs/${names.job}/summary`, { token: u.token, text: 'Imports the sales figures' }));
    await ok(http('POST', `/v1/code/jobs/${names.job}/config/schedule`, { token: u.token, text: '15 4 * * 1' }));
  }, 120_000);
  afterAll(async () => {
    cdp?.close();
    await chrome?.stop();
  });

  /** Opens the item's url (its path on this server) as the owner; answers the tab and what went wrong in it. */
  async function open(coll: string, name: string) {
    const url = await (await http('GET', `/v1/${coll}/${name}/url`, { token: u.token })).text();
    const path = new URL(url).pathname;
    expect(path).toBe(`/u/${u.username}/${{ 'vis/grids': 'g', 'vis/mails': 'm', 'code/jobs': 'j' }[coll]}/${name}`);
    const session = await openPage(cdp, VIEW, base() + path, { Authorization: `Bearer ${u.token}` });
    const mine = cdp.events.filter((e) => e.sessionId === session);
    const status = mine
      .filter((e) => e.method === 'Network.responseReceived')
      .map((e) => e.params.response as { url: string; status: number })[0]?.status;
    const elsewhere = mine
      .filter((e) => e.method === 'Network.requestWillBeSent')
      .map((e) => (e.params.request as { url: string }).url)
      .filter((r) => !r.startsWith(`${base()}/`) && !r.startsWith('data:'));
    const problems = mine
      .filter(
        (e) =>
          e.method === 'Runtime.exceptionThrown' ||
          (e.method === 'Log.entryAdded' && ['error', 'warning'].includes((e.params.entry as { level: string }).level)),
      )
      .map((e) => JSON.stringify(e.params).slice(0, 300));
    return {
      session,
      status,
      elsewhere,
      problems,
      text: await evaluate<string>(cdp, session, 'document.body.innerText'),
    };
  }

  it("the grid's url shows its dashboard, styled under the policy", async () => {
    const p = await open('vis/grids', names.grid);
    expect([p.status, p.elsewhere, p.problems]).toEqual([200, [], []]);
    expect(await evaluate<number>(cdp, p.session, 'document.scripts.length')).toBe(0);
    expect(await evaluate<number>(cdp, p.session, `document.querySelectorAll('.cell').length`)).toBe(1);
    // the grid's title, the box's label and, its plot not readable, the placeholder (never the path it names)
    expect(p.text).toBe(`${names.grid}\nA\nno plot to show`);
    // its one style applied: the cell has a border
    expect(
      await evaluate<string>(cdp, p.session, `getComputedStyle(document.querySelector('.cell')).borderTopStyle`),
    ).not.toBe('none');
  });

  it("the e-mail's url shows the message as its recipients see it, with its picture inlined", async () => {
    const p = await open('vis/mails', names.mail);
    expect([p.status, p.elsewhere, p.problems]).toEqual([200, [], []]);
    expect(p.text).toContain('Monthly letter');
    expect(p.text).toContain('Hello readers.');
    expect(p.text).not.toMatch(/unsubscribe/i);
    expect(await evaluate<number>(cdp, p.session, 'document.scripts.length')).toBe(0);
    const img = await evaluate<{ w: number; src: string }>(
      cdp,
      p.session,
      `(() => { const i = document.querySelector('img'); return { w: i.naturalWidth, src: i.src.slice(0, 22) }; })()`,
    );
    expect(img).toEqual({ w: 2, src: 'data:image/png;base64,' });
    // the theme's paper colour came through the policy (the style is hashed, not blocked)
    expect(
      await evaluate<string>(cdp, p.session, `getComputedStyle(document.querySelector('.mail')).maxWidth`),
    ).toMatch(/px$/);
  });

  it("the job's url shows its name, summary, schedule and runs", async () => {
    const p = await open('code/jobs', names.job);
    expect([p.status, p.elsewhere, p.problems]).toEqual([200, [], []]);
    expect(p.text).toContain(names.job);
    expect(p.text).toContain('Imports the sales figures');
    expect(p.text).toContain('15 4 * * 1');
    expect(p.text).toContain('No runs yet.');
    expect(await evaluate<string>(cdp, p.session, `getComputedStyle(document.querySelector('main')).maxWidth`)).toBe(
      '760px',
    );
  });

  it('a stranger opening the same urls gets 404', async () => {
    const stranger = await makeUser();
    for (const [letter, name] of [
      ['g', names.grid],
      ['m', names.mail],
      ['j', names.job],
    ])
      expect((await http('GET', `/u/${u.username}/${letter}/${name}`, { token: stranger.token })).status).toBe(404);
  });
});
