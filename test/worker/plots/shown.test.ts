/**
 * Where plots appear, through the Worker: a dashboard's boxes draw their plots' SVGs (the
 * page's policy still allows one style, by hash), a document's vis block its SVG, a mail's
 * vis block a PNG embedded as a cid: part (mail programs show no SVG), its web view the same
 * PNG inlined.
 */
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';
import { sender, untilReady, type Outbound } from '../mail/fixtures';
import { SALES } from './fixtures';

vi.setConfig({ testTimeout: 120_000 });

async function plot(u: TestUser, title: string): Promise<string> {
  const name = unique('p');
  expect((await call('PUT', `/v1/vis/plots/${name}`, { token: u.token })).status).toBe(201);
  expect((await call('POST', `/v1/vis/plots/${name}/data`, { token: u.token, text: SALES })).status).toBe(204);
  expect((await call('POST', `/v1/vis/plots/${name}/config/title`, { token: u.token, text: title })).status).toBe(204);
  return `/u/${u.username}/p/${name}`;
}

const vis = (ref: string) => `{{ vis\n  ${ref}\n}}\n{{ /vis }}`;

describe('a dashboard draws its plots', () => {
  it('each bound box holds its plot as SVG, scoped, its style in the page style the policy hashes', async () => {
    const u = await makeUser();
    const [one, two] = [await plot(u, 'First plot'), await plot(u, 'Second plot')];
    const g = `/v1/vis/grids/${unique('g')}`;
    await call('PUT', g, { token: u.token });
    await call('POST', `${g}/layout`, { token: u.token, text: '+-----+-----+\n| {A} | {B} |\n+-----+-----+' });
    await call('POST', `${g}/mapping`, { token: u.token, text: `A => ${one}\nB => ${two}` });
    const res = await call('GET', `${g}/html`, { token: u.token });
    const html = await res.text();
    expect(html.match(/<svg/g)).toHaveLength(2);
    expect(html).toContain('First plot');
    expect(html).toContain('Second plot');
    expect(html.match(/<style>/g)).toHaveLength(1);
    expect(res.headers.get('Content-Security-Policy')).toMatch(/style-src 'sha256-[^']+'/);
    // the two drawings use different scopes: no id appears twice
    const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('a document draws the plots of its vis blocks', () => {
  it('the page holds the SVG; a vis block naming nothing readable keeps its placeholder', async () => {
    const u = await makeUser();
    const ref = await plot(u, 'Quarterly sales');
    const doc = `/v1/vis/docs/${unique('d')}`;
    await call('PUT', doc, { token: u.token });
    await call('POST', `${doc}/content`, {
      token: u.token,
      text: `# Report\n\n${vis(ref)}\n\n${vis('/u/nobody/p/none')}`,
    });
    const html = await (await call('GET', `/u/${u.username}/d/${doc.split('/').pop()}`, { token: u.token })).text();
    expect(html).toContain('Quarterly sales');
    expect(html.match(/<svg/g)).toHaveLength(1);
    expect(html).toContain('Visual: /u/nobody/p/none');
  });
});

describe('a mail shows the plots of its vis blocks as PNG', () => {
  it('a test send embeds the PNG as a cid: part the HTML shows; the web view inlines it', async () => {
    const u = await sender({ profile_public: true });
    const ref = await plot(u, 'Mailed plot');
    const m = `/v1/vis/mails/${unique('m')}`;
    await call('PUT', m, { token: u.token });
    const subject = unique('s');
    await call('POST', `${m}/config/subject`, { token: u.token, text: subject });
    await call('POST', `${m}/content`, { token: u.token, text: `Hello\n\n${vis(ref)}` });
    expect((await call('POST', `${m}/status`, { token: u.token, text: 'test' })).status).toBe(202);
    await untilReady(u, m);
    const sent = ((await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as Outbound[]).find(
      (o) => o.subject === subject,
    )!;
    const png = sent.attachments.find((a) => /^vis-[0-9a-f]{16}\.png$/.test(a.filename));
    expect(png).toMatchObject({ content_type: 'image/png' });
    expect(png!.size).toBeGreaterThan(1000);
    expect(sent.html).toContain(`src="cid:${png!.filename}"`);
    expect(sent.html).toContain('alt="Mailed plot"');
    expect(sent.html).not.toContain('<svg');
    const view = await (await call('GET', `/u/${u.username}/m/${m.split('/').pop()}`, { token: u.token })).text();
    expect(view).toMatch(/<img src="data:image\/png;base64,/);
  });
});
