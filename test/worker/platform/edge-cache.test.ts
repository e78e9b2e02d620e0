/**
 * Anonymous public reads from the edge (src/core/edge-cache.ts), with the local cache
 * (caches.default) npm start and this suite run: a public page read twice is a hit the
 * second time (no D1), and every change that alters what an anonymous reader sees purges it
 * before its request answers — the next read shows the change (a private or deleted item:
 * 404 at once). Requests with a token, with a query string, or whose answer read what no
 * account's tag follows are never stored; a read that raced a purge keeps nothing.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { DbSession } from '../../../src/core/context';
import { carryPurge, edgePurge, edgeStore, EDGE_RULE, newTrace, readBegins } from '../../../src/core/edge-cache';
import { buildWorld, type World } from '../gql/fixtures';
import { call, makeUser, unique, type TestUser } from '../helpers';

interface Read {
  status: number;
  hit: boolean;
  body: string;
  rule: string | null;
  tags: string | null;
  trips: string | null;
}

async function read(path: string, token?: string): Promise<Read> {
  const res = await call('GET', path, { token });
  return {
    status: res.status,
    hit: res.headers.get('cf-cache-status') === 'HIT',
    body: await res.text(),
    rule: res.headers.get('Cache-Control'),
    tags: res.headers.get('Cache-Tag'),
    trips: res.headers.get('Server-Timing'),
  };
}

/** Reads `path` twice anonymously: the first stores it, the second is the stored answer. */
async function stored(path: string): Promise<Read> {
  const first = await read(path);
  expect(first.status, path).toBe(200);
  expect(first.rule, path).toBe(EDGE_RULE);
  const second = await read(path);
  expect(second.hit, `${path} is a hit the second time`).toBe(true);
  expect(second.body).toBe(first.body);
  return second;
}

const write = (u: TestUser, path: string, text: string) => call('POST', path, { token: u.token, text });

async function ok(res: Promise<Response>): Promise<void> {
  const r = await res;
  expect(r.status, await r.clone().text()).toBeLessThan(300);
}

/** A public document of a new user with a public profile: its page path and its REST path. */
async function publicDoc(
  content: string,
  u?: TestUser,
): Promise<{ u: TestUser; name: string; page: string; rest: string }> {
  const owner = u ?? (await makeUser({ profile_public: true }));
  const name = unique('e');
  const rest = `/v1/vis/docs/${name}`;
  await ok(call('PUT', rest, { token: owner.token }));
  await ok(write(owner, `${rest}/content`, content));
  await ok(call('PUT', `${rest}/shared/public`, { token: owner.token }));
  return { u: owner, name, page: `/u/${owner.username}/d/${name}`, rest };
}

const userId = async (u: TestUser) =>
  (await env.DB.prepare('select id from users where username = ?').bind(u.username).first<{ id: number }>())!.id;

describe('a public page is served from the edge until it changes', () => {
  it('the second anonymous read is a hit with no D1 round trip, tagged by its owner', async () => {
    const d = await publicDoc('edge words');
    const hit = await stored(d.page);
    expect(hit.body).toContain('edge words');
    expect(hit.trips).toContain('0 round trips');
    expect(hit.tags).toBe(`o${await userId(d.u)}`);
  });

  it('unsharing: made private, the page is 404 at once', async () => {
    const d = await publicDoc('soon private');
    await stored(d.page);
    await ok(call('DELETE', `${d.rest}/shared/public`, { token: d.u.token }));
    const after = await read(d.page);
    expect(after.status).toBe(404);
    expect(after.rule).toBe('no-store');
  });

  it('content: the next read shows the new content', async () => {
    const d = await publicDoc('first version');
    await stored(d.page);
    await ok(write(d.u, `${d.rest}/content`, 'second version'));
    const after = await read(d.page);
    expect(after.hit).toBe(false);
    expect(after.body).toContain('second version');
    expect(after.body).not.toContain('first version');
  });

  it('config: a new custom stylesheet shows at once', async () => {
    const d = await publicDoc('styled');
    const before = await stored(d.page);
    await ok(write(d.u, `${d.rest}/config/custom/custom.css`, 'h1 { letter-spacing: 7px; }'));
    const after = await read(d.page);
    expect(after.hit).toBe(false);
    expect(after.body).not.toBe(before.body);
  });

  it('variables: a new value of a variable the page shows', async () => {
    const owner = await makeUser({ profile_public: true });
    const name = unique('e');
    const d = await publicDoc(`Revenue: {/u/${owner.username}/d/${name}/v/rev}`, owner);
    expect(d.name).not.toBe(name);
    // The variable lives on another document of the same owner, made public too.
    await ok(call('PUT', `/v1/vis/docs/${name}`, { token: owner.token }));
    await ok(call('PUT', `/v1/vis/docs/${name}/vars/rev`, { token: owner.token }));
    await ok(write(owner, `/v1/vis/docs/${name}/vars/rev/value`, '111'));
    await ok(call('PUT', `/v1/vis/docs/${name}/shared/public`, { token: owner.token }));
    expect((await stored(d.page)).body).toContain('>111</span>');
    await ok(write(owner, `/v1/vis/docs/${name}/vars/rev/value`, '222'));
    const after = await read(d.page);
    expect(after.hit).toBe(false);
    expect(after.body).toContain('>222</span>');
  });

  it("a shared reference: another owner's variable changes, and the page that shows it follows", async () => {
    const carol = await makeUser({ profile_public: true });
    await ok(call('PUT', '/v1/vis/docs/fin', { token: carol.token }));
    await ok(call('PUT', '/v1/vis/docs/fin/vars/revenue', { token: carol.token }));
    await ok(write(carol, '/v1/vis/docs/fin/vars/revenue/value', '987654'));
    await ok(call('PUT', '/v1/vis/docs/fin/shared/public', { token: carol.token }));
    const d = await publicDoc(`Revenue: {/u/${carol.username}/d/fin/v/revenue}`);
    const hit = await stored(d.page);
    expect(hit.body).toContain('>987654</span>');
    expect(hit.tags!.split(',').sort()).toEqual([`o${await userId(d.u)}`, `o${await userId(carol)}`].sort());
    await ok(write(carol, '/v1/vis/docs/fin/vars/revenue/value', '123456'));
    const after = await read(d.page);
    expect(after.hit).toBe(false);
    expect(after.body).toContain('>123456</span>');
    // Carol unshares her document: the value leaves the page at once.
    await stored(d.page);
    await ok(call('DELETE', '/v1/vis/docs/fin/shared/public', { token: carol.token }));
    const hidden = await read(d.page);
    expect(hidden.hit).toBe(false);
    expect(hidden.body).not.toContain('123456');
  });

  it('assets: a replaced asset is served new at once', async () => {
    const d = await publicDoc('with an asset');
    const put = (bytes: string) =>
      call('POST', `${d.rest}/assets/logo.svg`, { token: d.u.token, body: bytes, type: 'image/svg+xml' });
    const svg = (fill: string) => `<svg xmlns="http://www.w3.org/2000/svg"><rect fill="${fill}"/></svg>`;
    await ok(put(svg('red')));
    const asset = `/v1/users/${d.u.username}/vis/docs/${d.name}/assets/logo.svg`;
    expect((await stored(asset)).body).toBe(svg('red'));
    await ok(put(svg('blue')));
    const after = await read(asset);
    expect(after.hit).toBe(false);
    expect(after.body).toBe(svg('blue'));
  });

  it("the profile's public flag: its pages (whose author blocks show the profile) are read anew", async () => {
    const d = await publicDoc('a public profile');
    await stored(d.page);
    await ok(write(d.u, '/v1/admin/profile/public', 'no'));
    const after = await read(d.page);
    expect(after.hit).toBe(false);
    expect(after.status).toBe(200);
  });

  it('a rename: the old url is 404 at once, the new one serves', async () => {
    const d = await publicDoc('moving');
    await stored(d.page);
    const to = unique('e');
    await ok(call('PATCH', d.rest, { token: d.u.token, text: to }));
    expect((await read(d.page)).status).toBe(404);
    expect((await read(`/u/${d.u.username}/d/${to}`)).body).toContain('moving');
  });

  it('a delete: 404 at once', async () => {
    const d = await publicDoc('going');
    await stored(d.page);
    await ok(call('DELETE', d.rest, { token: d.u.token }));
    expect((await read(d.page)).status).toBe(404);
  });

  it('an account deletion: its pages are 404 at once', async () => {
    const d = await publicDoc('leaving');
    await stored(d.page);
    await ok(call('DELETE', '/v1/admin/account', { token: d.u.token, json: { password: d.u.password } }));
    expect((await read(d.page)).status).toBe(404);
  });
});

describe('what is never stored', () => {
  it('a request with a token gets a private answer and never the stored one', async () => {
    const d = await publicDoc('token reads');
    await stored(d.page);
    const mine = await read(d.page, d.u.token);
    expect(mine.hit).toBe(false);
    expect(mine.rule).toMatch(/^private/);
    expect(mine.tags).toBeNull();
  });

  it('a url with a query string is not stored', async () => {
    const d = await publicDoc('queried');
    for (let i = 0; i < 2; i++) {
      const r = await read(`${d.page}?x=1`);
      expect(r.hit).toBe(false);
      expect(r.rule).not.toMatch(/public/);
    }
  });

  it('a page with a reference that does not resolve (it may later) is not stored', async () => {
    const carol = await makeUser({ profile_public: true });
    await ok(call('PUT', '/v1/vis/docs/fin', { token: carol.token }));
    await ok(call('PUT', '/v1/vis/docs/fin/vars/v', { token: carol.token }));
    await ok(write(carol, '/v1/vis/docs/fin/vars/v/value', '42'));
    await ok(call('PUT', '/v1/vis/docs/fin/shared/public', { token: carol.token }));
    const d = await publicDoc(`Value: {/u/${carol.username}/d/fin/v/v}`);
    // Carol unshares: the page shows a placeholder, and would show the value again once she shares.
    await ok(call('DELETE', '/v1/vis/docs/fin/shared/public', { token: carol.token }));
    for (let i = 0; i < 2; i++) {
      const r = await read(d.page);
      expect(r.status).toBe(200);
      expect(r.body).not.toContain('>42</span>');
      expect(r.hit).toBe(false);
      expect(r.rule).not.toMatch(/public/);
    }
  });

  it('a read that began before a purge of its accounts keeps nothing (the race of a read and a change)', async () => {
    const d = await publicDoc('raced');
    const id = await userId(d.u);
    const session = new DbSession(env);
    const began = newTrace();
    began.began = readBegins(session);
    await session.db.run(sql`select 1`);
    began.routed = true;
    began.route = 'cache';
    began.owners.add(id);
    // A change of the owner's content is purged after the read began and before it stores.
    const change = newTrace();
    change.routed = true;
    change.owners.add(id);
    const changing = new DbSession(env);
    carryPurge(changing, change);
    await edgePurge(changing, env, {} as ExecutionContext, change, true);
    const url = `http://localhost${d.page}`;
    const res = await edgeStore(session, env, new Request(url), new Response('old'), began);
    expect(res.headers.get('Cache-Control')).toBe('private, no-cache');
    expect(await (caches as unknown as { default: Cache }).default.match(url)).toBeUndefined();
  });
});

describe('every route the edge keeps stores a public answer', () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld();
  }, 120_000);

  for (const letter of ['d', 'g', 'm', 'j'])
    it(`/u/<user>/${letter}/<name>: stored, and a change of its owner purges it`, async () => {
      const page = `/u/${w.owner.username}/${letter}/${w.names.pub}`;
      await stored(page);
      const coll = { d: 'vis/docs', g: 'vis/grids', m: 'vis/mails', j: 'code/jobs' }[letter]!;
      await ok(write(w.owner, `/v1/${coll}/${w.names.pub}/description`, unique('changed')));
      expect((await read(page)).hit).toBe(false);
    });

  it('the read-only alias and the grid page alias are stored', async () => {
    await stored(`/v1/u/${w.owner.username}/d/${w.names.pub}`);
    await stored(`/v1/u/${w.owner.username}/g/${w.names.pub}/html`);
    await stored(`/v1/users/${w.owner.username}/vis/grids/${w.names.pub}/html`);
  });
});

describe('public plots', () => {
  it('the plot page and its files are stored, and a new plot purges them', async () => {
    const u = await makeUser({ profile_public: true });
    const name = unique('p');
    const rest = `/v1/vis/plots/${name}`;
    await ok(call('PUT', rest, { token: u.token }));
    await ok(write(u, `${rest}/data`, 'x,y\n1,2\n2,3\n'));
    await ok(call('PUT', `${rest}/shared/public`, { token: u.token }));
    const svg = `/v1/users/${u.username}/vis/plots/${name}/files/plot.svg`;
    await stored(`/u/${u.username}/p/${name}`);
    const before = await stored(svg);
    await ok(write(u, `${rest}/data`, 'x,y\n1,9\n2,1\n3,5\n'));
    const after = await read(svg);
    expect(after.hit).toBe(false);
    expect(after.body).not.toBe(before.body);
  });
});
