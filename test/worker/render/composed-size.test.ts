/**
 * A composition has a size cap of its own (markup/composed-size.ts), checked before it is
 * built: a few bytes of content may stand for a lot once filled in (an author block shows a
 * 4 KiB bio, a variable its value and `about`), so a page or mail whose references would fill
 * in past the cap answers 413 naming it instead of being built, and a send of one fails with
 * that line in its log. Through the real Worker.
 */
import { describe, expect, it, vi } from 'vitest';
import { COMPOSED_LIMIT, composedBytes, composedTooLarge } from '../../../src/markup/composed-size';
import { contentRefs } from '../../../src/markup/markdown';
import { call, makeUser } from '../helpers';
import { logWhen, sender } from '../mail/fixtures';

vi.setConfig({ testTimeout: 120_000 });

const authorBlocks = (user: string, n: number) =>
  Array.from({ length: n }, () => `{{ author\n  ${user}\n}}\n{{ /author }}`).join('\n');

describe('the composed size (pure)', () => {
  it('counts each occurrence of a filled-in reference, and only the source when nothing resolves', () => {
    const source = `${'{/u/a/d/b/v/c} '.repeat(3)}\n\n${authorBlocks('bob', 2)}`;
    const { uses } = contentRefs(source);
    const bytes = new TextEncoder().encode(source).byteLength;
    expect(composedBytes(source, uses, new Map(), new Map())).toBe(bytes + 2 * 1024);
    const vars = new Map([['a/b/c', { text: 'x'.repeat(10), band: 'none' as const, about: 'y'.repeat(100) }]]);
    const profiles = new Map([['bob', { username: 'bob', bio: 'z'.repeat(1000) }]]);
    expect(composedBytes(source, uses, vars, profiles)).toBe(bytes + 3 * (110 + 96) + 2 * (1024 + 1000));
    expect(composedTooLarge(COMPOSED_LIMIT, 'the page')).toBeNull();
    expect(composedTooLarge(COMPOSED_LIMIT + 1, 'the page')).toMatch(/^the page would be 8\.1 MiB .* over the 8 MiB/);
  });
});

describe('a composition over the cap is refused before it is built', () => {
  it('a page of 2,000 author blocks of a 4 KiB bio answers 413 naming the cap; 20 of them render', async () => {
    const author = await makeUser({ profile_public: true });
    expect((await call('POST', '/v1/admin/profile/bio', { token: author.token, text: 'b'.repeat(4000) })).status).toBe(
      204,
    );
    const u = await makeUser();
    expect((await call('PUT', '/v1/vis/docs/many', { token: u.token })).status).toBe(201);
    const write = (n: number) =>
      call('POST', '/v1/vis/docs/many/content', { token: u.token, text: authorBlocks(author.username, n) });
    expect((await write(2000)).status).toBe(204);
    const res = await call('GET', `/u/${u.username}/d/many`, { token: u.token });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toMatch(/^the page would be \d+(\.\d)? MiB .* 8 MiB/);
    expect((await write(20)).status).toBe(204);
    expect((await call('GET', `/u/${u.username}/d/many`, { token: u.token })).status).toBe(200);
  });

  it('a mail likewise: its web view answers 413, and a send fails with the reason in its log', async () => {
    const author = await makeUser({ profile_public: true });
    await call('POST', '/v1/admin/profile/bio', { token: author.token, text: 'b'.repeat(4000) });
    const u = await sender({ profile_public: true });
    const path = '/v1/vis/mails/many';
    expect((await call('PUT', path, { token: u.token })).status).toBe(201);
    expect(
      (await call('POST', `${path}/content`, { token: u.token, text: authorBlocks(author.username, 2000) })).status,
    ).toBe(204);
    expect((await call('GET', `/u/${u.username}/m/many`, { token: u.token })).status).toBe(413);
    // A test send (to the owner's own address) is composed at delivery: it fails there, logged.
    expect((await call('POST', `${path}/status`, { token: u.token, text: 'test' })).status).toBe(202);
    const log = await logWhen(u, path, (l) => l.some((m) => m.includes('would be')));
    expect(log.some((m) => /the e-mail would be \d+(\.\d)? MiB .* over the 8 MiB/.test(m))).toBe(true);
  });
});
