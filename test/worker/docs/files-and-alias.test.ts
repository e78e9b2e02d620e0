// A document's files/ listing and its read-only alias /v1/u/:user/d[/:doc]: who sees what,
// the info envelope, renders a document has not, no writes.
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser } from '../helpers';
import { makeGroup, names, newDoc } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('files and the read-only alias', () => {
  it('files/ lists doc.pdf, doc.pptx, doc.png, doc.txt, doc.ansi; png, txt and ansi answer 404', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect(await names(await call('GET', `${path}/files`, { token: u.token }))).toEqual([
      'doc.ansi',
      'doc.pdf',
      'doc.png',
      'doc.pptx',
      'doc.txt',
    ]);
    for (const f of ['doc.png', 'doc.txt', 'doc.ansi']) {
      const res = await call('GET', `${path}/files/${f}`, { token: u.token });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ status: 404, message: expect.stringContaining(f) });
    }
  });
  it('/v1/u/:user/d lists the documents visible to the caller: all to the owner, public ones to anyone', async () => {
    const u = await makeUser({ profile_public: true });
    const member = await makeUser();
    const g = await makeGroup(u, [{ user: member }]);
    const pub = await newDoc(u);
    const priv = await newDoc(u);
    const team = await newDoc(u);
    await call('PUT', `${pub.path}/shared/public`, { token: u.token });
    await call('PUT', `${team.path}/shared/${g.ref}`, { token: u.token });
    const list = async (token?: string) => (await names(await call('GET', `/v1/u/${u.username}/d`, { token }))).sort();
    expect(await list(u.token)).toEqual([pub.name, priv.name, team.name].sort());
    expect(await list()).toEqual([pub.name]);
    expect(await list(member.token)).toEqual([pub.name, team.name].sort());
    expect((await call('GET', '/v1/u/nosuchuserzz/d')).status).toBe(404);
  });
  it('/v1/u/:user/d/:doc answers the info envelope; public needs no token, private is 404 to others', async () => {
    const u = await makeUser({ profile_public: true });
    const stranger = await makeUser();
    const { name, path } = await newDoc(u, 'x');
    await call('POST', `${path}/name`, { token: u.token, text: 'Quarterly report' });
    await call('POST', `${path}/summary`, { token: u.token, text: 'Q1' });
    await call('POST', `${path}/config/type`, { token: u.token, text: 'pres' });
    const alias = `/v1/u/${u.username}/d/${name}`;
    expect((await call('GET', alias)).status).toBe(404);
    expect((await call('GET', alias, { token: stranger.token })).status).toBe(404);
    const own = (await (await call('GET', alias, { token: u.token })).json()) as Record<string, string>;
    expect(own).toEqual({
      name: 'Quarterly report',
      doc: name,
      description: '',
      summary: 'Q1',
      shortname: await (await call('GET', `${path}/shortname`, { token: u.token })).text(),
      url: await (await call('GET', `${path}/url`, { token: u.token })).text(),
      type: 'pres',
      theme: 'default',
      owner: u.username,
      created_on: expect.any(String),
      last_modified: expect.any(String),
    });
    await call('PUT', `${path}/shared/public`, { token: u.token });
    expect((await call('GET', alias)).status).toBe(200);
  });
  it('the info envelope names the theme the document renders with (front matter, then config/theme)', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u, 'th');
    const theme = async () =>
      ((await (await call('GET', `/v1/u/${u.username}/d/${name}`, { token: u.token })).json()) as { theme: string })
        .theme;
    await call('POST', `${path}/content`, { token: u.token, text: '---\ntheme: paper\n---\n# Hi' });
    expect(await theme()).toBe('paper');
    await call('POST', `${path}/config/theme`, { token: u.token, text: 'dark' });
    expect(await theme()).toBe('dark');
  });
  it('the alias img, txt and ansi renders answer 404 for documents', async () => {
    const u = await makeUser({ profile_public: true });
    const { name, path } = await newDoc(u, 'x');
    await call('PUT', `${path}/shared/public`, { token: u.token });
    for (const r of ['img', 'txt', 'ansi']) {
      const res = await call('GET', `/v1/u/${u.username}/d/${name}/${r}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toContain(r);
    }
  });
  it('the alias is read-only (405 for writes)', async () => {
    const u = await makeUser();
    const { name } = await newDoc(u);
    expect((await call('POST', `/v1/u/${u.username}/d/${name}`, { token: u.token, text: 'x' })).status).toBe(405);
  });
});
