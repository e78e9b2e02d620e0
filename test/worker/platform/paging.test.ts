/**
 * Pages on every listing: `?limit` and the `cursor` of the `Link: <…>; rel="next"` header,
 * stable while items are added; without either a listing answers as before, up to the
 * documented maximum. GraphQL lists take `after` beside `limit` and `offset`.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { PAGE_MAX } from '../../../src/core/paging';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';
import { makeJob, trigger, waitStatus } from '../jobs/fixtures';

const json = async <T = any>(res: Response): Promise<T> => (await res.json()) as T;

/** The path and query of a Link header's next page (the test client takes paths). */
function nextOf(res: Response): string | null {
  const link = res.headers.get('Link');
  if (link === null) return null;
  const m = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(m, `a next link: ${link}`).not.toBeNull();
  const u = new URL(m![1]!);
  return u.pathname + u.search;
}

/** Follows the Link headers from `first`, answering every page's names; `between` runs after each page. */
async function walk(
  token: string | undefined,
  first: string,
  name: (item: any) => string = (i) => i.name,
  between?: (page: number) => Promise<void>,
): Promise<string[][]> {
  const pages: string[][] = [];
  let path: string | null = first;
  while (path !== null) {
    const res = await call('GET', path, { token });
    expect(res.status, path).toBe(200);
    pages.push((await json<any[]>(res)).map(name));
    path = nextOf(res);
    if (pages.length > 50) throw new Error('did not end');
    await between?.(pages.length);
  }
  return pages;
}

async function docs(u: TestUser, names: string[]) {
  for (const n of names) expect((await call('PUT', `/v1/vis/docs/${n}`, { token: u.token })).status).toBe(201);
}

describe('a collection pages by name', () => {
  it('limit pages through the documents, the last page has no Link, nothing repeats', async () => {
    const u = await makeUser();
    await docs(u, ['e', 'c', 'a', 'd', 'b']);
    expect(await walk(u.token, '/v1/vis/docs?limit=2')).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    const whole = await call('GET', '/v1/vis/docs', { token: u.token });
    expect(whole.headers.get('Link')).toBeNull();
    expect((await json<any[]>(whole)).map((i) => i.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('documents made while paging: none listed repeats, none after the cursor is skipped', async () => {
    const u = await makeUser();
    await docs(u, ['b', 'd', 'f', 'h']);
    const pages = await walk(u.token, '/v1/vis/docs?limit=2', undefined, async (n) => {
      if (n === 1) await docs(u, ['a', 'e']); // one before the cursor, one after it
    });
    expect(pages).toEqual([['b', 'd'], ['e', 'f'], ['h']]);
  });

  it("another user's collection pages what the caller may read", async () => {
    const [owner, reader] = [await makeUser({ profile_public: true }), await makeUser()];
    await docs(owner, ['p1', 'p2', 'p3', 'hidden']);
    for (const d of ['p1', 'p2', 'p3'])
      expect((await call('PUT', `/v1/vis/docs/${d}/shared/public`, { token: owner.token })).status).toBe(201);
    expect(await walk(reader.token, `/v1/users/${owner.username}/vis/docs?limit=2`)).toEqual([['p1', 'p2'], ['p3']]);
  });

  it(`without limit a listing stops at ${PAGE_MAX} items and links the rest`, async () => {
    const u = await makeUser();
    const { id } = (await env.DB.prepare('SELECT id FROM users WHERE username = ?')
      .bind(u.username)
      .first<{ id: number }>())!;
    const names = Array.from({ length: PAGE_MAX + 1 }, (_, i) => `n${String(i).padStart(5, '0')}`);
    const at = '2026-01-01T00:00:00.000Z';
    for (let i = 0; i < names.length; i += 100)
      await env.DB.batch(
        names
          .slice(i, i + 100)
          .map((n) =>
            env.DB.prepare(
              'INSERT INTO resources (owner_id, kind, name, shortname, created_on, last_modified) VALUES (?, ?, ?, ?, ?, ?)',
            ).bind(id, 'doc', n, unique('s'), at, at),
          ),
      );
    const first = await call('GET', '/v1/vis/docs', { token: u.token });
    expect((await json<any[]>(first)).length).toBe(PAGE_MAX);
    const rest = await call('GET', nextOf(first)!, { token: u.token });
    expect((await json<any[]>(rest)).map((i) => i.name)).toEqual([names[PAGE_MAX]]);
    expect(rest.headers.get('Link')).toBeNull();
  });

  it('a limit out of range or a cursor this listing did not answer is a 400 validation_failed', async () => {
    const u = await makeUser();
    for (const q of ['limit=0', `limit=${PAGE_MAX + 1}`, 'limit=x', 'cursor=%21', 'cursor=WzFd' /* [1] */]) {
      const res = await call('GET', `/v1/vis/docs?${q}`, { token: u.token });
      expect(res.status, q).toBe(400);
      expect((await json(res)).code).toBe('validation_failed');
    }
  });
});

describe('other listings page the same way', () => {
  it("a resource's folder, shares and a group's listings page by name", async () => {
    const u = await makeUser();
    const d = unique('d');
    await docs(u, [d]);
    const folder = await walk(u.token, `/v1/vis/docs/${d}?limit=3`);
    expect(folder.flat()).toEqual(folder.flat().sort());
    expect(folder.flat()).toEqual(
      (await json<any[]>(await call('GET', `/v1/vis/docs/${d}`, { token: u.token }))).map((i) => i.name).sort(),
    );
    expect(folder.length).toBeGreaterThan(1);
    const roles = await walk(u.token, `/v1/admin/groups?limit=1`);
    expect(roles.every((p) => p.length <= 1)).toBe(true);
  });

  it('runs page newest first, older ones through the cursor', async () => {
    const u = await makeUser();
    const job = await makeJob(u, unique('j'), `export default { async run() { return 1; } }`);
    const base = `/v1/code/jobs/${job}`;
    for (let i = 0; i < 3; i++) expect((await trigger(u.token, base)).status).toBe(200);
    const all = (await json<any[]>(await call('GET', `${base}/runs`, { token: u.token }))).map((r) => r.name);
    expect(all).toHaveLength(3);
    expect(await walk(u.token, `${base}/runs?limit=2`)).toEqual([all.slice(0, 2), all.slice(2)]);
    await waitStatus(u.token, base, all[0]!, (s) => s === 'success');
  });

  it('tokens page oldest first, webhook endpoints by name, deliveries newest first', async () => {
    const u = await makeUser();
    for (let i = 0; i < 2; i++)
      expect(
        (await call('POST', '/v1/token', { json: { username: u.username, password: u.password, token_name: `t${i}` } }))
          .status,
      ).toBe(200);
    const tokens = await walk(u.token, '/v1/tokens?limit=2', (t) => t.token_name);
    expect(tokens.flat()).toHaveLength(3);
    expect(tokens.map((p) => p.length)).toEqual([2, 1]);
    for (const w of ['w2', 'w1', 'w3'])
      expect(
        (
          await call('PUT', `/v1/admin/webhooks/${w}`, {
            token: u.token,
            json: { url: 'https://steps.jobs.test/echo', events: ['document.created'] },
          })
        ).status,
      ).toBe(201);
    expect(await walk(u.token, '/v1/admin/webhooks?limit=2')).toEqual([['w1', 'w2'], ['w3']]);
    await docs(u, ['x1', 'x2', 'x3']);
    const ids = (await json<any[]>(await call('GET', '/v1/admin/webhooks/w1/deliveries', { token: u.token }))).map(
      (d) => d.id,
    );
    expect(ids).toHaveLength(3);
    expect(await walk(u.token, '/v1/admin/webhooks/w1/deliveries?limit=2', (d) => d.id)).toEqual([
      ids.slice(0, 2),
      ids.slice(2),
    ]);
  });

  it("the operator's outbox answers its newest mails, newest last, and links the older ones", async () => {
    const subjects = Array.from({ length: 3 }, () => unique('subject'));
    for (const subject of subjects)
      await env.DB.prepare(
        `INSERT INTO outbox (kind, sender, recipients, subject, text, html, attachments, created_on)
         VALUES ('notice', 'a@example.com', '["b@example.com"]', ?, '', '', '[]', '2026-01-01T00:00:00.000Z')`,
      )
        .bind(subject)
        .run();
    const first = await call('GET', '/v1/ops/outbox?limit=2', { token: OPS });
    expect((await json<any[]>(first)).map((m) => m.subject)).toEqual(subjects.slice(1));
    const older = await call('GET', nextOf(first)!, { token: OPS });
    expect((await json<any[]>(older)).map((m) => m.subject).at(-1)).toBe(subjects[0]);
  });

  it("a resource's log links its older lines with a cursor", async () => {
    const u = await makeUser();
    const d = unique('d');
    await docs(u, [d]);
    for (let i = 0; i < 3; i++)
      expect((await call('POST', `/v1/vis/docs/${d}/content`, { token: u.token, text: `v${i}` })).status).toBe(204);
    const first = await call('GET', `/v1/vis/docs/${d}/log?limit=2`, { token: u.token });
    const older = nextOf(first)!;
    expect(older).toContain(`cursor=${first.headers.get('X-Log-Before')}`);
    const res = await call('GET', older, { token: u.token });
    expect(res.status).toBe(200);
    expect((await res.text()).length).toBeGreaterThan(0);
  });
});

describe('GraphQL lists take after', () => {
  it('after names the id of the last item of the previous page', async () => {
    const u = await makeUser();
    await docs(u, ['a', 'b', 'c']);
    const q = async (args: string) =>
      (
        await json(
          await call('POST', '/gql', {
            token: u.token,
            json: { query: `{ docs(${args}) { id } me { docs(${args}) { id } } }` },
          }),
        )
      ).data;
    expect(await q('limit: 2')).toEqual({ docs: [{ id: 'a' }, { id: 'b' }], me: { docs: [{ id: 'a' }, { id: 'b' }] } });
    expect(await q('limit: 2, after: "b"')).toEqual({ docs: [{ id: 'c' }], me: { docs: [{ id: 'c' }] } });
    const users = await json(
      await call('POST', '/gql', { token: u.token, json: { query: `{ users(after: "${u.username}") { username } }` } }),
    );
    expect(users.data.users.every((x: { username: string }) => x.username > u.username)).toBe(true);
  });

  it('lists read whole (tokens, webhooks, groups, orgs) take limit and offset', async () => {
    const u = await makeUser();
    for (const w of ['w1', 'w2', 'w3'])
      await call('PUT', `/v1/admin/webhooks/${w}`, {
        token: u.token,
        json: { url: 'https://steps.jobs.test/echo', events: ['*'] },
      });
    const res = await call('POST', '/gql', {
      token: u.token,
      json: {
        query:
          '{ me { webhooks(limit: 1, offset: 1) { name } all: webhooks { name } tokens(limit: 1) { token_name } } }',
      },
    });
    expect((await json(res)).data.me).toEqual({
      webhooks: [{ name: 'w2' }],
      all: [{ name: 'w1' }, { name: 'w2' }, { name: 'w3' }],
      tokens: [expect.objectContaining({ token_name: expect.any(String) })],
    });
  });
});
