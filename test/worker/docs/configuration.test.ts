// A document's configuration: its defaults, the values each option takes, organisation
// themes, and the free-text entries (custom.css, title, toc).
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser } from '../helpers';
import { makeOrg, names, newDoc } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('configuration', () => {
  it('defaults: type doc, theme default, comments true, custom.css/title/toc empty', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const read = async (k: string) => (await call('GET', `${path}/config/${k}`, { token: u.token })).text();
    expect(await read('type')).toBe('doc');
    expect(await read('theme')).toBe('default');
    expect(await read('comments')).toBe('true');
    expect(await read('custom/custom.css')).toBe('');
    expect(await read('title')).toBe('');
    expect(await read('toc')).toBe('');
    expect(await names(await call('GET', `${path}/config`, { token: u.token }))).toEqual([
      'comments',
      'custom',
      'theme',
      'title',
      'toc',
      'type',
    ]);
    expect(await names(await call('GET', `${path}/config/custom`, { token: u.token }))).toEqual(['custom.css']);
  });
  it.each([
    ['type', ['doc', 'docs', 'pres', 'blog', 'web'], ['slides', 'DOC', '']],
    ['comments', ['true', 'false'], ['yes', 'True', '1']],
    ['theme', ['dark', 'paper'], ['Dark', 'a b', '+acme', '', 'nosuchtheme']],
  ])('config/%s accepts the allowed values and answers 400 for others, keeping the value', async (key, good, bad) => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    for (const v of good) {
      expect((await call('POST', `${path}/config/${key}`, { token: u.token, text: v })).status).toBe(204);
      expect(await (await call('GET', `${path}/config/${key}`, { token: u.token })).text()).toBe(v);
    }
    for (const v of bad) {
      const res = await call('POST', `${path}/config/${key}`, { token: u.token, text: v });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(`config/${key}`);
      expect(await (await call('GET', `${path}/config/${key}`, { token: u.token })).text()).toBe(good.at(-1));
    }
  });
  it('config/theme takes an organisation theme +org/theme for an existing organisation', async () => {
    const u = await makeUser();
    const { slug: org } = await makeOrg();
    const { path } = await newDoc(u);
    expect((await call('POST', `${path}/config/theme`, { token: u.token, text: `+${org}/brand` })).status).toBe(204);
    expect(await (await call('GET', `${path}/config/theme`, { token: u.token })).text()).toBe(`+${org}/brand`);
    const missing = await call('POST', `${path}/config/theme`, { token: u.token, text: '+nosuchorgzz/brand' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(/no such organisation/);
  });
  it('custom.css, title and toc store any text exactly', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    for (const [k, v] of [
      ['custom/custom.css', 'h1 { color: red; }\n'],
      ['title', 'Reserved'],
      ['toc', 'yes please'],
    ]) {
      expect((await call('POST', `${path}/config/${k}`, { token: u.token, text: v })).status).toBe(204);
      expect(await (await call('GET', `${path}/config/${k}`, { token: u.token })).text()).toBe(v);
    }
  });
});
