/**
 * Plots end to end against the server `npm start` runs: the requests the platform's python
 * library and CLI send (captured from them, fixtures/novem-client-plots.json) replayed in
 * order with the same answers; then the drawings seen as a person sees them: a dashboard and
 * a plot's page in headless Chromium (coloured marks inside the plot's box, none in a box
 * whose plot is missing), the PNG file decoded, a document's PDF with a vis block read by
 * poppler (its text and its colours), and a mail's web view showing the embedded PNG.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumForSuite, evaluate, openPage, pageProblems } from './chromium';
import { base, http, makeUser, unique, type E2EUser } from './harness';
import { decodePng, type Image } from './png';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'plots-e2e-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Captured {
  method: string;
  path: string;
  status: number;
  content_type?: string;
  body?: string;
  json?: unknown;
}
const CLIENT = JSON.parse(readFileSync(new URL('./fixtures/novem-client-plots.json', import.meta.url), 'utf8')) as {
  requests: Captured[];
};

const SALES = ',north,south\nQ1,12,7\nQ2,15,9\nQ3,11,14\nQ4,18,16\n';

/** A pixel of a chart's marks: clearly coloured (text, axes and backgrounds are grey or white). */
const coloured = ([r, g, b]: [number, number, number]) => Math.max(r, g, b) - Math.min(r, g, b) > 60;

/** Coloured pixels inside [x, y, w, h] of the image. */
function colouredIn(img: Image, box: { x: number; y: number; w: number; h: number }): number {
  let n = 0;
  for (let y = Math.max(0, Math.floor(box.y)); y < Math.min(img.height, box.y + box.h); y++)
    for (let x = Math.max(0, Math.floor(box.x)); x < Math.min(img.width, box.x + box.w); x++)
      if (coloured(img.rgb(x, y))) n++;
  return n;
}

async function makePlot(u: E2EUser, name: string, title: string, type = 'bar'): Promise<string> {
  const p = `/v1/vis/plots/${name}`;
  expect((await http('PUT', p, { token: u.token })).status).toBe(201);
  expect((await http('POST', `${p}/data`, { token: u.token, text: SALES })).status).toBe(204);
  expect((await http('POST', `${p}/config/type`, { token: u.token, text: type })).status).toBe(204);
  expect((await http('POST', `${p}/config/title`, { token: u.token, text: title })).status).toBe(204);
  return `/u/${u.username}/p/${name}`;
}

describe("the python library's and CLI's requests, replayed", () => {
  it('the README example and the CLI plot commands get the answers they got when captured', async () => {
    const u = await makeUser();
    // the captured account had a public profile (sharing public needs one)
    expect((await http('POST', '/v1/admin/profile/public', { token: u.token, text: 'yes' })).status).toBe(204);
    const answers: Record<string, string> = {};
    for (const [i, r] of CLIENT.requests.entries()) {
      const res = await http(r.method, r.path, {
        token: u.token,
        ...(r.body !== undefined ? { text: r.body, type: r.content_type ?? 'text/plain' } : {}),
        ...(r.json !== undefined ? { json: r.json } : {}),
      });
      const text = await res.text();
      expect(res.status, `#${i} ${r.method} ${r.path}: ${text.slice(0, 200)}`).toBe(r.status);
      answers[`${r.method} ${r.path}`] = text;
    }
    // what the client printed from those answers
    // locally the public origin follows the port the server was started on (PORT)
    expect(answers['GET /v1/vis/plots/price_hist/url']).toBe(`${base()}/u/${u.username}/p/price_hist`);
    const ansi = answers['GET /v1/vis/plots/price_hist/files/plot.ansi']!;
    // oxlint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
    expect(ansi).toMatch(/\x1b\[38;5;\d+m/);
    // oxlint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
    expect(ansi.split('\n').every((l) => [...l.replace(/\x1b\[[0-9;]*m/g, '')].length <= 80)).toBe(true);
    expect(answers['GET /v1/vis/plots/sales_bar/config/type']).toBe('bar');
    const listed = JSON.parse(answers['POST /gql']!) as { data: { me: { plots: { id: string; type: string }[] } } };
    expect(listed.data.me.plots.map((p) => [p.id, p.type]).sort()).toEqual([
      ['price_hist', 'line'],
      ['sales_bar', 'bar'],
    ]);
    // the data reads back byte for byte, and sales_bar is gone (-D)
    const data = CLIENT.requests.find((r) => r.path === '/v1/vis/plots/price_hist/data')!.body!;
    expect(await (await http('GET', '/v1/vis/plots/price_hist/data', { token: u.token })).text()).toBe(data);
    expect((await http('GET', '/v1/vis/plots/sales_bar', { token: u.token })).status).toBe(404);
    // shared public by `line.shared += 'public'`: the page and the drawing read without a token
    expect((await http('GET', `/u/${u.username}/p/price_hist`)).status).toBe(200);
    expect((await http('GET', `/v1/users/${u.username}/vis/plots/price_hist/files/plot.svg`)).status).toBe(200);
  });
});

describe('the PNG file', () => {
  it('is the SVG drawn at twice its size: 1600 x 900 for the default 800 x 450, with the bars in colour', async () => {
    const u = await makeUser();
    const name = unique('p');
    await makePlot(u, name, 'PNG sales');
    const res = await http('GET', `/v1/vis/plots/${name}/files/plot.png`, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('image/png');
    const img = decodePng(Buffer.from(await res.arrayBuffer()));
    expect([img.width, img.height]).toEqual([1600, 900]);
    expect(colouredIn(img, { x: 0, y: 0, w: img.width, h: img.height })).toBeGreaterThan(20_000);
    // the second read comes from R2, the third revalidates
    const again = await http('GET', `/v1/vis/plots/${name}/files/plot.png`, { token: u.token });
    expect(again.headers.get('X-Render-Cache')).toBe('hit');
    const etag = again.headers.get('ETag')!;
    expect(
      (
        await http('GET', `/v1/vis/plots/${name}/files/plot.png`, {
          token: u.token,
          headers: { 'If-None-Match': etag },
        })
      ).status,
    ).toBe(304);
  });
});

describe("a document's PDF with a vis block (poppler)", () => {
  it("holds the plot's title, its categories and its coloured bars", async () => {
    const u = await makeUser();
    const ref = await makePlot(u, unique('p'), 'Quarterly sales');
    const doc = `/v1/vis/docs/${unique('d')}`;
    expect((await http('PUT', doc, { token: u.token })).status).toBe(201);
    const content = `# Report\n\n{{ vis\n  ${ref}\n}}\n{{ /vis }}\n`;
    expect((await http('POST', `${doc}/content`, { token: u.token, text: content })).status).toBe(204);
    const res = await http('GET', `${doc}/files/doc.pdf`, { token: u.token });
    expect(res.status).toBe(200);
    const pdf = join(work, 'vis.pdf');
    writeFileSync(pdf, Buffer.from(await res.arrayBuffer()));
    const text = (await run('pdftotext', ['-layout', pdf, '-'])).stdout;
    for (const word of ['Report', 'Quarterly sales', 'Q1', 'Q4', 'north', 'south']) expect(text).toContain(word);
    expect(text).not.toContain('Visual:');
    await run('pdftoppm', ['-png', '-r', '50', '-f', '1', '-l', '1', pdf, join(work, 'vis')]);
    const page = decodePng(readFileSync(join(work, 'vis-1.png')));
    expect(colouredIn(page, { x: 0, y: 0, w: page.width, h: page.height })).toBeGreaterThan(500);
  });
});

describe.skipIf(!existsSync(CHROMIUM))(`plots in headless Chromium (${CHROMIUM})`, () => {
  const VIEW = { width: 1200, height: 800 };
  const browser = chromiumForSuite(VIEW);

  /** Opens `url`; its screenshot, and the console errors and policy violations it reported. */
  async function open(url: string, token?: string) {
    const seen = browser().events.length;
    const session = await openPage(browser(), VIEW, url, token ? { Authorization: `Bearer ${token}` } : {});
    const shot = await browser().send<{ data: string }>('Page.captureScreenshot', { format: 'png' }, session);
    return {
      session,
      img: decodePng(Buffer.from(shot.data, 'base64')),
      problems: pageProblems(browser(), session, seen),
    };
  }
  const rect = async (session: string, selector: string) =>
    JSON.parse(
      await evaluate<string>(
        browser(),
        session,
        `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return JSON.stringify({ x: r.x, y: r.y, w: r.width, h: r.height }); })()`,
      ),
    ) as { x: number; y: number; w: number; h: number };

  it("a dashboard draws its box's plot in colour inside the box; a box whose plot is missing stays blank", async () => {
    const u = await makeUser();
    const ref = await makePlot(u, unique('p'), 'Sales by region');
    const g = `/v1/vis/grids/${unique('g')}`;
    expect((await http('PUT', g, { token: u.token })).status).toBe(201);
    const layout = '+--------+--------+\n|  {A}   |  {B}   |\n+--------+--------+';
    expect((await http('POST', `${g}/layout`, { token: u.token, text: layout })).status).toBe(204);
    const mapping = `A => ${ref}\nB => /u/${u.username}/p/missing`;
    expect((await http('POST', `${g}/mapping`, { token: u.token, text: mapping })).status).toBe(204);
    const { session, img, problems } = await open(`${base()}${g}/html`, u.token);
    expect(problems).toEqual([]);
    expect(await evaluate<number>(browser(), session, 'document.scripts.length')).toBe(0);
    expect(await evaluate<string>(browser(), session, `document.querySelector('#c0 svg title').textContent`)).toBe(
      'Sales by region',
    );
    const [a, b] = [await rect(session, '#c0'), await rect(session, '#c1')];
    expect(a.w).toBeGreaterThan(500);
    // the bars are drawn, inside box A (its style applied under the page's policy)
    expect(colouredIn(img, a)).toBeGreaterThan(5_000);
    expect(colouredIn(img, b)).toBe(0);
    expect(await evaluate<string>(browser(), session, `document.querySelector('#c1').innerText.trim()`)).toContain(
      'no plot to show',
    );
  });

  it("a plot's page shows its drawing under the strict policy, and anonymously once shared public", async () => {
    const u = await makeUser();
    const name = unique('p');
    await makePlot(u, name, 'Page plot', 'line');
    const own = await open(`${base()}/u/${u.username}/p/${name}`, u.token);
    expect(own.problems).toEqual([]);
    expect(colouredIn(own.img, await rect(own.session, 'figure.plot'))).toBeGreaterThan(1_000);
    expect((await http('GET', `/u/${u.username}/p/${name}`)).status).toBe(404);
    expect((await http('POST', '/v1/admin/profile/public', { token: u.token, text: 'yes' })).status).toBe(204);
    expect((await http('PUT', `/v1/vis/plots/${name}/shared/public`, { token: u.token })).status).toBe(201);
    const anon = await open(`${base()}/u/${u.username}/p/${name}`);
    expect(colouredIn(anon.img, await rect(anon.session, 'figure.plot'))).toBeGreaterThan(1_000);
  });

  it("a mail's web view shows the vis block's plot as the embedded PNG", async () => {
    const u = await makeUser();
    const ref = await makePlot(u, unique('p'), 'Mailed sales');
    const m = `/v1/vis/mails/${unique('m')}`;
    expect((await http('PUT', m, { token: u.token })).status).toBe(201);
    const content = `Hello\n\n{{ vis\n  ${ref}\n}}\n{{ /vis }}\n`;
    expect((await http('POST', `${m}/content`, { token: u.token, text: content })).status).toBe(204);
    const { session, img, problems } = await open(`${base()}/u/${u.username}/m/${m.split('/').pop()}`, u.token);
    expect(problems).toEqual([]);
    const shown = await evaluate<{ src: string; natural: number }>(
      browser(),
      session,
      `(() => { const i = document.querySelector('img[alt="Mailed sales"]'); return { src: i.src.slice(0, 22), natural: i.naturalWidth }; })()`,
    );
    expect(shown).toEqual({ src: 'data:image/png;base64,', natural: expect.any(Number) });
    expect(shown.natural).toBeGreaterThan(0);
    expect(colouredIn(img, await rect(session, 'img[alt="Mailed sales"]'))).toBeGreaterThan(2_000);
  });
});
