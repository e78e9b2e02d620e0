// E-mails as resources through the real Worker in workerd: creation, the folder's entries,
// option values and embedded assets.
import { describe, expect, it, vi } from 'vitest';
import { call } from '../helpers';
import { newMail, PNG, sender, statusOf } from './fixtures';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

describe('e-mails as resources', () => {
  it('PUT creates; the folder lists the spec entries; defaults read back', async () => {
    const u = await sender();
    const { path } = await newMail(u);
    const list = (await (await call('GET', path, { token: u.token })).json()) as { name: string; actions: string[] }[];
    expect(list.map((i) => i.name)).toEqual(
      [
        'assets',
        'config',
        'content',
        'description',
        'log',
        'name',
        'recipients',
        'shared',
        'shortname',
        'stats',
        'status',
        'summary',
        'tags',
        'threads',
        'url',
      ].sort((a, b) => a.localeCompare(b)),
    );
    expect(list.find((i) => i.name === 'status')!.actions).toEqual(['GET', 'POST', 'DELETE']);
    const cfg = ((await (await call('GET', `${path}/config`, { token: u.token })).json()) as { name: string }[]).map(
      (i) => i.name,
    );
    expect(cfg).toEqual(['enabled', 'reply_to', 'size', 'subject', 'template', 'theme']);
    const rec = (
      (await (await call('GET', `${path}/recipients`, { token: u.token })).json()) as { name: string }[]
    ).map((i) => i.name);
    expect(rec).toEqual(['bcc', 'cc', 'to']);
    expect(await (await call('GET', `${path}/config/enabled`, { token: u.token })).text()).toBe('true');
    expect(await (await call('GET', `${path}/config/size`, { token: u.token })).text()).toBe('m');
    expect(await statusOf(u, path)).toBe('ready');
    expect(
      ((await (await call('GET', `${path}/stats`, { token: u.token })).json()) as { name: string }[]).map(
        (i) => i.name,
      ),
    ).toEqual(['runs']);
  });
  it('subject and config/subject are one entry, byte for byte', async () => {
    const u = await sender();
    const { path } = await newMail(u);
    expect((await call('POST', `${path}/subject`, { token: u.token, text: 'Hello  there ' })).status).toBe(204);
    expect(await (await call('GET', `${path}/config/subject`, { token: u.token })).text()).toBe('Hello  there ');
    expect((await call('POST', `${path}/config/subject`, { token: u.token, text: 'Again' })).status).toBe(204);
    expect(await (await call('GET', `${path}/subject`, { token: u.token })).text()).toBe('Again');
  });
  it('bad option values answer 400 and keep the old value', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'config/size': 's' });
    for (const [entry, bad] of [
      ['config/size', 'xl'],
      ['config/size', 'toString'],
      ['config/reply_to', 'not an address'],
      ['subject', 'two\nlines'],
    ]) {
      const res = await call('POST', `${path}/${entry}`, { token: u.token, text: bad });
      expect(res.status, `${entry} ${bad}`).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(entry);
    }
    expect(await (await call('GET', `${path}/config/size`, { token: u.token })).text()).toBe('s');
    expect(
      (await call('POST', `${path}/content`, { token: u.token, text: 'x', type: 'application/x-www-form-urlencoded' }))
        .status,
    ).toBe(415);
  });
  it('assets: upload, list, download, delete; at most 25 per e-mail', async () => {
    const u = await sender();
    const { path } = await newMail(u);
    const up = (n: string) =>
      call('POST', `${path}/assets/${n}`, { token: u.token, body: PNG, headers: { 'Content-Type': 'image/png' } });
    expect((await up('a0.png')).status).toBe(201);
    expect((await up('a0.png')).status).toBe(204);
    expect(
      (
        await call('POST', `${path}/assets/x.png`, {
          token: u.token,
          body: PNG,
          headers: { 'Content-Type': 'text/plain' },
        })
      ).status,
    ).toBe(415);
    expect(
      (
        await call('POST', `${path}/assets/Bad.png`, {
          token: u.token,
          body: PNG,
          headers: { 'Content-Type': 'image/png' },
        })
      ).status,
    ).toBe(400);
    for (let i = 1; i < 25; i++) expect((await up(`a${i}.png`)).status).toBe(201);
    const full = await up('a25.png');
    expect(full.status).toBe(409);
    expect(((await full.json()) as { message: string }).message).toContain('25');
    const listed = (await (await call('GET', `${path}/assets`, { token: u.token })).json()) as unknown[];
    expect(listed).toHaveLength(25);
    const got = await call('GET', `${path}/assets/a0.png`, { token: u.token });
    expect(got.headers.get('Content-Type')).toBe('image/png');
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(PNG);
    expect((await call('DELETE', `${path}/assets/a0.png`, { token: u.token })).status).toBe(204);
    expect((await call('GET', `${path}/assets/a0.png`, { token: u.token })).status).toBe(404);
    expect((await up('a25.png')).status).toBe(201);
  });
});
