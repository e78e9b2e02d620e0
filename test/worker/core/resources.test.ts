// The shared resource core, exercised through a fixture kind on its own route table, with
// the real D1 and R2 bindings (the areas' own kinds are tested in their suites).
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../../../src/core/api';
import { INLINE_LIMIT, readEntry } from '../../../src/core/entries';
import { badRequest } from '../../../src/core/errors';
import { jsonResponse } from '../../../src/core/http';
import { fixedFolderRoute, resourceRoutes, type ResourceKind } from '../../../src/core/resource';
import { makeUser, unique, type TestUser } from '../helpers';

const kind: ResourceKind = {
  kind: 'grid',
  collection: 'test/things',
  param: 'thing',
  noun: 'thing',
  log: true,
  entries: [
    { path: 'content', access: 'rw', limit: 2 * 1024 * 1024 },
    { path: 'name', access: 'rw' },
    { path: 'shortname', access: 'r', compute: (rc) => rc.resource.shortname },
    {
      path: 'config/type',
      access: 'rw',
      default: 'doc',
      validate: (v) => (['doc', 'pres'].includes(v) ? undefined : 'doc or pres'),
    },
    { path: 'config/custom/custom.css', access: 'rw' },
  ],
  folders: ['assets'],
  // A copy step that fails after the entries and tags are in: the copy must vanish whole.
  copied: async (from) => {
    if ((await readEntry(from.env, from.db, from.resource.id, 'name')) === 'refuse copy')
      throw badRequest('fixture: this copy fails midway');
  },
};

const api = new Api();
resourceRoutes(api, kind, (r) => {
  fixedFolderRoute(r, 'stats', ['runs']);
  r.get('/preloaded', {
    summary: 'What preload read with the resource (fixture)',
    need: 'r',
    preload: { entries: true, caller: true },
    responses: { 200: { description: 'entries and caller e-mail' } },
    handler: (rc) =>
      jsonResponse({
        entries: Object.fromEntries(rc.preloaded!.entries!),
        caller_email: rc.preloaded!.caller?.email ?? null,
      }),
  });
});

let lastCtx: ExecutionContext;
async function req(
  method: string,
  path: string,
  o: { token?: string | null; text?: string; json?: unknown; type?: string } = {},
) {
  const headers = new Headers();
  if (o.token) headers.set('Authorization', `Bearer ${o.token}`);
  let body: string | undefined;
  if (o.text !== undefined) {
    body = o.text;
    headers.set('Content-Type', o.type ?? 'text/plain');
  } else if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers.set('Content-Type', 'application/json');
  }
  lastCtx = createExecutionContext();
  return api.fetch(new Request(`http://x${path}`, { method, headers, body }), env, lastCtx);
}

async function group(owner: TestUser, memberships: [TestUser, string, string][]): Promise<string> {
  const slug = unique('g').slice(0, 30);
  const ref = `@${owner.username}~${slug}`;
  const now = new Date().toISOString();
  const ownerId = (await env.DB.prepare('select id from users where username = ?')
    .bind(owner.username)
    .first<{ id: number }>())!.id;
  const g = await env.DB.prepare(
    "insert into groups (kind, slug, owner_id, ref, created_on, last_modified) values ('user_group', ?, ?, ?, ?, ?) returning id",
  )
    .bind(slug, ownerId, ref, now, now)
    .first<{ id: number }>();
  // As PUT of a group does: its creator is an active founder (sharing into a group needs an active role).
  for (const [u, role, state] of [[owner, 'founders', 'active'] as [TestUser, string, string], ...memberships]) {
    const uid = (await env.DB.prepare('select id from users where username = ?')
      .bind(u.username)
      .first<{ id: number }>())!.id;
    await env.DB.prepare(
      'insert into members (group_id, user_id, role, state, created_on, last_modified) values (?, ?, ?, ?, ?, ?)',
    )
      .bind(g!.id, uid, role, state, now, now)
      .run();
  }
  return ref;
}

describe('resource lifecycle', () => {
  let u: TestUser;
  beforeAll(async () => {
    u = await makeUser();
  });

  it('PUT creates (201 with a listing item); PUT again answers 409 JSON', async () => {
    const res = await req('PUT', '/v1/test/things/alpha', { token: u.token });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      name: 'alpha',
      uri: '/v1/test/things/alpha',
      type: 'dir',
      permissions: ['r', 'w', 'd'],
    });
    const again = await req('PUT', '/v1/test/things/alpha', { token: u.token });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ status: 409, message: expect.stringContaining('already exists') });
  });

  it.each(['Alpha', 'a-b', 'a%20b', '_x', 'a.b'])('invalid name %s answers 400 and creates nothing', async (name) => {
    const res = await req('PUT', `/v1/test/things/${name}`, { token: u.token });
    expect(res.status).toBe(400);
    const list = (await (await req('GET', '/v1/test/things', { token: u.token })).json()) as { name: string }[];
    expect(list.map((i) => i.name)).not.toContain(name);
  });

  it('anonymous callers get 401 on routes that need a user', async () => {
    expect((await req('GET', '/v1/test/things')).status).toBe(401);
    expect((await req('PUT', '/v1/test/things/beta')).status).toBe(401);
  });

  it('the resource folder lists entries, derived folders, shared/ and tags/ with permissions and actions', async () => {
    await req('PUT', '/v1/test/things/listme', { token: u.token });
    await req('POST', '/v1/test/things/listme/content', { token: u.token, text: 'x' });
    const res = await req('GET', '/v1/test/things/listme', { token: u.token });
    expect(res.headers.get('X-NVM-Permissions')).toBe('r, w, d');
    expect(res.headers.get('X-NVM-Type')).toBe('dir');
    const items = (await res.json()) as {
      name: string;
      type: string;
      uri: string;
      actions: string[];
      permissions: string[];
      created_on: string;
      last_modified: string;
    }[];
    expect(items.map((i) => [i.name, i.type])).toEqual([
      ['assets', 'dir'],
      ['config', 'dir'],
      ['content', 'file'],
      ['log', 'file'],
      ['name', 'file'],
      ['shared', 'dir'],
      ['shortname', 'file'],
      ['tags', 'dir'],
    ]);
    const content = items.find((i) => i.name === 'content')!;
    expect(content).toMatchObject({
      uri: '/v1/test/things/listme/content',
      permissions: ['r', 'w', 'd'],
      actions: ['GET', 'POST', 'DELETE'],
    });
    expect(content.created_on).toMatch(/Z$/);
    expect(items.find((i) => i.name === 'shortname')!.actions).toEqual(['GET']);
    // A file's permissions are what the caller can do to it: read-only entries are `r` even for the owner.
    expect(items.find((i) => i.name === 'shortname')!.permissions).toEqual(['r']);
    expect(items.find((i) => i.name === 'log')!.permissions).toEqual(['r']);
    expect(items.find((i) => i.name === 'assets')!.permissions).toEqual(['r', 'w', 'd']);
    const config = (await (await req('GET', '/v1/test/things/listme/config', { token: u.token })).json()) as {
      name: string;
      type: string;
      uri: string;
    }[];
    expect(config.map((i) => [i.name, i.type, i.uri])).toEqual([
      ['custom', 'dir', '/v1/test/things/listme/config/custom'],
      ['type', 'file', '/v1/test/things/listme/config/type'],
    ]);
  });

  it("the collection lists the caller's resources in the listing shape", async () => {
    const v = await makeUser();
    await req('PUT', '/v1/test/things/one', { token: v.token });
    await req('PUT', '/v1/test/things/two', { token: v.token });
    const list = (await (await req('GET', '/v1/test/things/', { token: v.token })).json()) as Record<string, unknown>[];
    expect(list).toEqual([
      {
        name: 'one',
        uri: '/v1/test/things/one',
        type: 'dir',
        permissions: ['r', 'w', 'd'],
        actions: ['GET', 'PATCH', 'DELETE'],
        created_on: expect.any(String),
        last_modified: expect.any(String),
      },
      {
        name: 'two',
        uri: '/v1/test/things/two',
        type: 'dir',
        permissions: ['r', 'w', 'd'],
        actions: ['GET', 'PATCH', 'DELETE'],
        created_on: expect.any(String),
        last_modified: expect.any(String),
      },
    ]);
  });
});

describe('a fixed folder (stats/)', () => {
  it("lists its read-only files with the resource's dates, for readers only", async () => {
    const u = await makeUser();
    const stranger = await makeUser();
    const name = unique('f');
    expect((await req('PUT', `/v1/test/things/${name}`, { token: u.token })).status).toBe(201);
    const res = await req('GET', `/v1/test/things/${name}/stats`, { token: u.token });
    expect(res.status).toBe(200);
    const items = (await res.json()) as { name: string; uri: string; type: string; actions: string[] }[];
    expect(items.map((i) => [i.name, i.uri, i.type, i.actions])).toEqual([
      ['runs', `/v1/test/things/${name}/stats/runs`, 'file', ['GET']],
    ]);
    expect(
      (await req('GET', `/v1/users/${u.username}/test/things/${name}/stats`, { token: stranger.token })).status,
    ).toBe(404);
  });
});

describe('preload: reads batched with the resource', () => {
  it('entries (including one kept in R2) and the caller row as D1 has it now come with the resource; only its own', async () => {
    const u = await makeUser();
    const other = await makeUser();
    const name = unique('p');
    for (const who of [u, other])
      expect((await req('PUT', `/v1/test/things/${name}`, { token: who.token })).status).toBe(201);
    const big = 'x'.repeat(INLINE_LIMIT + 10);
    expect((await req('POST', `/v1/test/things/${name}/content`, { token: u.token, text: big })).status).toBe(204);
    expect((await req('POST', `/v1/test/things/${name}/name`, { token: u.token, text: 'Mine' })).status).toBe(204);
    expect((await req('POST', `/v1/test/things/${name}/name`, { token: other.token, text: 'Theirs' })).status).toBe(
      204,
    );
    // The calls above cached the caller with their token; the change below bypasses that cache.
    await env.DB.prepare('update users set email = ? where username = ?')
      .bind(`${u.username}@fresh.example`, u.username)
      .run();
    const res = await req('GET', `/v1/test/things/${name}/preloaded`, { token: u.token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { entries: Record<string, string>; caller_email: string };
    expect(Object.keys(body.entries).sort()).toEqual(['content', 'name']);
    expect(body.entries.name).toBe('Mine');
    expect(body.entries.content).toBe(big);
    expect(body.caller_email).toBe(`${u.username}@fresh.example`);
  });
  it('a caller who may not read the resource gets 404, not its preloaded entries', async () => {
    const u = await makeUser();
    const stranger = await makeUser();
    const name = unique('p');
    expect((await req('PUT', `/v1/test/things/${name}`, { token: u.token })).status).toBe(201);
    expect((await req('POST', `/v1/test/things/${name}/name`, { token: u.token, text: 'secret' })).status).toBe(204);
    const res = await req('GET', `/v1/users/${u.username}/test/things/${name}/preloaded`, { token: stranger.token });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('secret');
  });
});

describe('text entries', () => {
  let u: TestUser;
  beforeAll(async () => {
    u = await makeUser();
    await req('PUT', '/v1/test/things/t', { token: u.token });
  });

  it.each([
    ['plain', 'hello'],
    ['trailing newline', 'line\n'],
    ['leading and trailing spaces', '  spaced  '],
    ['CRLF', 'a\r\nb\r\n'],
    ['unicode', 'héllo — ☃ 𝄞'],
    ['BOM', '\uFEFFwith bom'],
    ['empty', ''],
  ])('reads back byte for byte: %s', async (_n, value) => {
    expect((await req('POST', '/v1/test/things/t/content', { token: u.token, text: value })).status).toBe(204);
    const res = await req('GET', '/v1/test/things/t/content', { token: u.token });
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
    expect(res.headers.get('X-NVM-Type')).toBe('file');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new TextEncoder().encode(value));
  });

  it('a value larger than a D1 row holds is stored in R2 and reads back exactly', async () => {
    const big = 'x'.repeat(INLINE_LIMIT + 10) + 'end\n';
    expect((await req('POST', '/v1/test/things/t/content', { token: u.token, text: big })).status).toBe(204);
    expect(await (await req('GET', '/v1/test/things/t/content', { token: u.token })).text()).toBe(big);
    const keys = await env.BLOBS.list({ prefix: 'r/' });
    expect(keys.objects.some((o) => o.key.endsWith('/entries/content'))).toBe(true);
  });

  it('the entry limit answers 413 and keeps the previous value', async () => {
    await req('POST', '/v1/test/things/t/content', { token: u.token, text: 'kept' });
    const res = await req('POST', '/v1/test/things/t/content', {
      token: u.token,
      text: 'y'.repeat(2 * 1024 * 1024 + 1),
    });
    expect(res.status).toBe(413);
    expect(await (await req('GET', '/v1/test/things/t/content', { token: u.token })).text()).toBe('kept');
  });

  it('form-urlencoded answers 415, other non-text types 415, nothing stored', async () => {
    await req('POST', '/v1/test/things/t/name', { token: u.token, text: 'before' });
    expect(
      (
        await req('POST', '/v1/test/things/t/name', {
          token: u.token,
          text: 'a=b',
          type: 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(415);
    expect((await req('POST', '/v1/test/things/t/name', { token: u.token, json: 'x' })).status).toBe(415);
    expect(await (await req('GET', '/v1/test/things/t/name', { token: u.token })).text()).toBe('before');
  });

  it('unset entries read as their default; DELETE clears back to it', async () => {
    expect(await (await req('GET', '/v1/test/things/t/config/type', { token: u.token })).text()).toBe('doc');
    expect((await req('POST', '/v1/test/things/t/config/type', { token: u.token, text: 'pres' })).status).toBe(204);
    expect(await (await req('GET', '/v1/test/things/t/config/type', { token: u.token })).text()).toBe('pres');
    expect((await req('DELETE', '/v1/test/things/t/config/type', { token: u.token })).status).toBe(204);
    expect(await (await req('GET', '/v1/test/things/t/config/type', { token: u.token })).text()).toBe('doc');
  });

  it('an invalid value answers 400 naming the entry and keeps the value', async () => {
    await req('POST', '/v1/test/things/t/config/type', { token: u.token, text: 'pres' });
    const res = await req('POST', '/v1/test/things/t/config/type', { token: u.token, text: 'slides' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('config/type');
    expect(await (await req('GET', '/v1/test/things/t/config/type', { token: u.token })).text()).toBe('pres');
  });

  it('read-only entries answer 405 to POST', async () => {
    expect((await req('POST', '/v1/test/things/t/shortname', { token: u.token, text: 'x' })).status).toBe(405);
  });

  it('writes are recorded in the log, as text and as JSON entries', async () => {
    await req('POST', '/v1/test/things/t/name', { token: u.token, text: 'logged' });
    const text = await (await req('GET', '/v1/test/things/t/log', { token: u.token })).text();
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\S+ INFO thing created\n/);
    expect(text).toContain('INFO name written (6 bytes)\n');
    const res = await api.fetch(
      new Request('http://x/v1/test/things/t/log', {
        headers: { Authorization: `Bearer ${u.token}`, Accept: 'application/json' },
      }),
      env,
      createExecutionContext(),
    );
    const entries = (await res.json()) as { log_time: string; severity: string; message: string }[];
    expect(entries[0]).toEqual({ log_time: expect.stringMatching(/Z$/), severity: 'info', message: 'thing created' });
  });
});

describe('sharing and the permission model', () => {
  let owner: TestUser, member: TestUser, pending: TestUser, stranger: TestUser, writer: TestUser;
  let ref: string, rwRef: string;
  beforeAll(async () => {
    [owner, member, pending, stranger, writer] = await Promise.all([
      makeUser(),
      makeUser(),
      makeUser(),
      makeUser(),
      makeUser(),
    ]);
    ref = await group(owner, [
      [member, 'members', 'active'],
      [pending, 'members', 'pending'],
    ]);
    rwRef = await group(owner, [[writer, 'members', 'active']]);
    await req('PUT', '/v1/test/things/s', { token: owner.token });
    await req('POST', '/v1/test/things/s/content', { token: owner.token, text: 'secret' });
  });

  const shared = (u: TestUser, rest = '') =>
    req('GET', `/v1/users/${owner.username}/test/things/s${rest}`, { token: u.token });

  it('before any share, only the owner sees it: everyone else gets 404, never 403', async () => {
    for (const u of [member, pending, stranger]) expect((await shared(u, '/content')).status).toBe(404);
    expect((await req('GET', `/v1/users/${owner.username}/test/things/s/content`)).status).toBe(401);
  });

  it('PUT shared/public needs a public owner profile: 403 naming the setting', async () => {
    const res = await req('PUT', '/v1/test/things/s/shared/public', { token: owner.token });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/profile/);
  });

  it('a group share grants read to accepted members only; pending members and strangers get 404', async () => {
    expect((await req('PUT', `/v1/test/things/s/shared/${ref}`, { token: owner.token })).status).toBe(201);
    expect((await req('PUT', `/v1/test/things/s/shared/${ref}`, { token: owner.token })).status).toBe(409);
    const ok = await shared(member, '/content');
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('secret');
    expect((await shared(member)).headers.get('X-NVM-Permissions')).toBe('r');
    expect((await shared(pending, '/content')).status).toBe(404);
    expect((await shared(stranger, '/content')).status).toBe(404);
  });

  it('a read grantee may not write (403) or delete (403) or re-share (403)', async () => {
    const base = `/v1/users/${owner.username}/test/things/s`;
    expect((await req('POST', `${base}/content`, { token: member.token, text: 'hacked' })).status).toBe(403);
    expect((await req('DELETE', base, { token: member.token })).status).toBe(403);
    expect((await req('PUT', `${base}/shared/public`, { token: member.token })).status).toBe(403);
    expect(await (await shared(member, '/content')).text()).toBe('secret');
  });

  it('a ~rw share grants write but never delete', async () => {
    await req('PUT', `/v1/test/things/s/shared/${rwRef}~rw`, { token: owner.token });
    const base = `/v1/users/${owner.username}/test/things/s`;
    expect((await req('POST', `${base}/name`, { token: writer.token, text: 'by writer' })).status).toBe(204);
    expect((await req('DELETE', base, { token: writer.token })).status).toBe(403);
  });

  it('shared/ lists entries exactly as written', async () => {
    const list = (await (await req('GET', '/v1/test/things/s/shared', { token: owner.token })).json()) as {
      name: string;
      uri: string;
    }[];
    expect(list.map((i) => i.name)).toEqual([ref, `${rwRef}~rw`].sort());
    expect(list[0]!.uri).toBe(`/v1/test/things/s/shared/${list[0]!.name}`);
  });

  it("the owner's collection as seen by a grantee lists only what is shared with them", async () => {
    await req('PUT', '/v1/test/things/hidden', { token: owner.token });
    const list = (await (
      await req('GET', `/v1/users/${owner.username}/test/things`, { token: member.token })
    ).json()) as { name: string }[];
    expect(list.map((i) => i.name)).toEqual(['s']);
    expect(
      await (await req('GET', `/v1/users/${owner.username}/test/things`, { token: stranger.token })).json(),
    ).toEqual([]);
  });

  it("the owner's collection lists each resource with what the share grants the caller (~rw: r, w)", async () => {
    const item = async (u: TestUser) =>
      (
        (await (await req('GET', `/v1/users/${owner.username}/test/things`, { token: u.token })).json()) as {
          permissions: string[];
          actions: string[];
        }[]
      )[0];
    expect(await item(writer)).toMatchObject({ permissions: ['r', 'w'], actions: ['GET', 'PATCH'] });
    expect(await item(member)).toMatchObject({ permissions: ['r'], actions: ['GET', 'PATCH'] });
    // the same as the resource's own folder says
    expect((await shared(writer)).headers.get('X-NVM-Permissions')).toBe('r, w');
  });

  it("tags are per caller: a read-only grantee's listing offers PUT below tags/", async () => {
    const items = (await (await shared(member)).json()) as { name: string; actions: string[] }[];
    expect(items.find((i) => i.name === 'tags')!.actions).toEqual(['GET', 'PUT']);
    expect(
      (await req('PUT', `/v1/users/${owner.username}/test/things/s/tags/fav`, { token: member.token })).status,
    ).toBe(201);
  });

  it('PUT shared/public reads the owner profile fresh: a profile made public elsewhere counts at once', async () => {
    // The auth cache of this isolate now holds the owner's row (profile private)...
    expect((await req('PUT', '/v1/test/things/s/shared/public', { token: owner.token })).status).toBe(403);
    // ...and the profile turns public in D1, as another isolate's update would do it.
    await env.DB.prepare('update users set profile_public = 1 where username = ?').bind(owner.username).run();
    expect((await req('PUT', '/v1/test/things/s/shared/public', { token: owner.token })).status).toBe(201);
    expect((await req('DELETE', '/v1/test/things/s/shared/public', { token: owner.token })).status).toBe(204);
  });

  it('public shares make it readable anonymously where routes allow, and DELETE revokes', async () => {
    expect((await req('PUT', '/v1/test/things/s/shared/public', { token: owner.token })).status).toBe(201);
    expect((await shared(stranger, '/content')).status).toBe(200);
    const anonList = (await (await req('GET', `/v1/users/${owner.username}/test/things`)).json()) as { name: string }[];
    expect(anonList.map((i) => i.name)).toEqual(['s']);
    expect((await req('DELETE', '/v1/test/things/s/shared/public', { token: owner.token })).status).toBe(204);
    expect((await shared(stranger, '/content')).status).toBe(404);
    expect((await req('DELETE', '/v1/test/things/s/shared/public', { token: owner.token })).status).toBe(404);
  });

  it('sharing with a group that does not exist answers 404; a malformed entry 400', async () => {
    expect((await req('PUT', '/v1/test/things/s/shared/@nobody~nothing', { token: owner.token })).status).toBe(404);
    expect((await req('PUT', '/v1/test/things/s/shared/everyone', { token: owner.token })).status).toBe(400);
  });
});

describe('rename, copy, tags, delete', () => {
  let u: TestUser, g: TestUser;
  let ref: string;
  beforeAll(async () => {
    [u, g] = await Promise.all([makeUser(), makeUser()]);
    ref = await group(u, [[g, 'members', 'active']]);
    await req('PUT', '/v1/test/things/orig', { token: u.token });
    await req('POST', '/v1/test/things/orig/content', { token: u.token, text: 'body' });
    await req('POST', '/v1/test/things/orig/config/type', { token: u.token, text: 'pres' });
    await req('PUT', `/v1/test/things/orig/shared/${ref}`, { token: u.token });
    await req('PUT', '/v1/test/things/orig/tags/fav', { token: u.token });
  });

  it("tags: PUT adds (409 again), invalid tag 400, GET lists the caller's own, DELETE removes", async () => {
    expect((await req('PUT', '/v1/test/things/orig/tags/+mine', { token: u.token })).status).toBe(201);
    expect((await req('PUT', '/v1/test/things/orig/tags/+mine', { token: u.token })).status).toBe(409);
    expect((await req('PUT', '/v1/test/things/orig/tags/star', { token: u.token })).status).toBe(400);
    // A grantee tags for themselves; the owner does not see their tags.
    expect((await req('PUT', `/v1/users/${u.username}/test/things/orig/tags/=work`, { token: g.token })).status).toBe(
      201,
    );
    const mine = (await (await req('GET', '/v1/test/things/orig/tags', { token: u.token })).json()) as {
      name: string;
    }[];
    expect(mine.map((t) => t.name)).toEqual(['+mine', 'fav']);
    expect((await req('DELETE', '/v1/test/things/orig/tags/+mine', { token: u.token })).status).toBe(204);
    expect((await req('DELETE', '/v1/test/things/orig/tags/+mine', { token: u.token })).status).toBe(404);
  });

  it("copy clones entries and the caller's tags, gets a fresh shortname, starts private", async () => {
    const res = await req('PATCH', '/v1/test/things/orig', { token: u.token, json: { name: 'dup', copy: true } });
    expect(res.status).toBe(201);
    expect(await (await req('GET', '/v1/test/things/dup/content', { token: u.token })).text()).toBe('body');
    expect(await (await req('GET', '/v1/test/things/dup/config/type', { token: u.token })).text()).toBe('pres');
    const s1 = await (await req('GET', '/v1/test/things/orig/shortname', { token: u.token })).text();
    const s2 = await (await req('GET', '/v1/test/things/dup/shortname', { token: u.token })).text();
    expect(s2).not.toBe(s1);
    expect(await (await req('GET', '/v1/test/things/dup/shared', { token: u.token })).json()).toEqual([]);
    const tags = (await (await req('GET', '/v1/test/things/dup/tags', { token: u.token })).json()) as {
      name: string;
    }[];
    expect(tags.map((t) => t.name)).toEqual(['fav']);
    expect((await req('GET', `/v1/users/${u.username}/test/things/dup`, { token: g.token })).status).toBe(404);
  });

  it("a grantee copies into their own collection, with the grantee's tags and not the owner's", async () => {
    const res = await req('PATCH', `/v1/users/${u.username}/test/things/orig`, {
      token: g.token,
      json: { name: 'mycopy', copy: true },
    });
    expect(res.status).toBe(201);
    expect(await (await req('GET', '/v1/test/things/mycopy/content', { token: g.token })).text()).toBe('body');
    const tags = (await (await req('GET', '/v1/test/things/mycopy/tags', { token: g.token })).json()) as {
      name: string;
    }[];
    expect(tags.map((t) => t.name)).toEqual(['=work']);
  });

  it("a copy carries every one of the caller's tags (30: more than one D1 statement binds)", async () => {
    await req('PUT', '/v1/test/things/tagged', { token: u.token });
    const all = Array.from({ length: 30 }, (_, i) => `+t${String(i).padStart(2, '0')}`);
    for (const t of all)
      expect((await req('PUT', `/v1/test/things/tagged/tags/${t}`, { token: u.token })).status).toBe(201);
    const res = await req('PATCH', '/v1/test/things/tagged', {
      token: u.token,
      json: { name: 'tagged_copy', copy: true },
    });
    expect(res.status).toBe(201);
    const tags = (await (await req('GET', '/v1/test/things/tagged_copy/tags', { token: u.token })).json()) as {
      name: string;
    }[];
    expect(tags.map((t) => t.name)).toEqual(all);
  });

  it('a copy is all or nothing: one that fails midway leaves no row, entries, tags or blobs', async () => {
    await req('PUT', '/v1/test/things/fragile', { token: u.token });
    await req('POST', '/v1/test/things/fragile/content', { token: u.token, text: 'z'.repeat(INLINE_LIMIT + 1) });
    await req('POST', '/v1/test/things/fragile/name', { token: u.token, text: 'refuse copy' });
    await req('PUT', '/v1/test/things/fragile/tags/fav', { token: u.token });
    const seq = async () =>
      (await env.DB.prepare("select seq from sqlite_sequence where name = 'resources'").first<{ seq: number }>())!.seq;
    const next = (await seq()) + 1;
    const res = await req('PATCH', '/v1/test/things/fragile', {
      token: u.token,
      json: { name: 'fragile_copy', copy: true },
    });
    expect(res.status).toBe(400);
    expect(await seq()).toBe(next); // the failed copy had this id
    expect((await req('GET', '/v1/test/things/fragile_copy', { token: u.token })).status).toBe(404);
    for (const table of ['resources', 'entries', 'tags', 'resource_log']) {
      const col = table === 'resources' ? 'id' : 'resource_id';
      expect(
        (await env.DB.prepare(`select count(*) as n from ${table} where ${col} = ?`).bind(next).first<{ n: number }>())!
          .n,
      ).toBe(0);
    }
    expect((await env.BLOBS.list({ prefix: `r/${next}/` })).objects).toEqual([]);
    // the name is free again: the same copy succeeds once nothing fails
    await req('POST', '/v1/test/things/fragile/name', { token: u.token, text: 'fine' });
    expect(
      (await req('PATCH', '/v1/test/things/fragile', { token: u.token, json: { name: 'fragile_copy', copy: true } }))
        .status,
    ).toBe(201);
  });

  it('rename (text body) keeps shortname and shares; 409 onto an existing name; 400 bad name; grantee 403', async () => {
    const before = await (await req('GET', '/v1/test/things/orig/shortname', { token: u.token })).text();
    expect((await req('PATCH', '/v1/test/things/orig', { token: u.token, text: 'dup' })).status).toBe(409);
    expect((await req('PATCH', '/v1/test/things/orig', { token: u.token, text: 'Bad Name' })).status).toBe(400);
    expect(
      (await req('PATCH', `/v1/users/${u.username}/test/things/orig`, { token: g.token, text: 'stolen' })).status,
    ).toBe(403);
    expect((await req('PATCH', '/v1/test/things/orig', { token: u.token, text: 'renamed' })).status).toBe(200);
    expect((await req('GET', '/v1/test/things/orig', { token: u.token })).status).toBe(404);
    expect(await (await req('GET', '/v1/test/things/renamed/shortname', { token: u.token })).text()).toBe(before);
    expect((await req('GET', `/v1/users/${u.username}/test/things/renamed/content`, { token: g.token })).status).toBe(
      200,
    );
  });

  it('PATCH with a malformed JSON body answers 400', async () => {
    expect((await req('PATCH', '/v1/test/things/renamed', { token: u.token, json: { copy: true } })).status).toBe(400);
  });

  it('DELETE removes the resource, its entries and its blobs', async () => {
    await req('POST', '/v1/test/things/dup/content', { token: u.token, text: 'z'.repeat(INLINE_LIMIT + 1) });
    const id = (await env.DB.prepare(
      "select id from resources where name = 'dup' and owner_id = (select id from users where username = ?)",
    )
      .bind(u.username)
      .first<{ id: number }>())!.id;
    expect((await env.BLOBS.list({ prefix: `r/${id}/` })).objects.length).toBe(1);
    expect((await req('DELETE', '/v1/test/things/dup', { token: u.token })).status).toBe(204);
    await waitOnExecutionContext(lastCtx);
    expect((await req('GET', '/v1/test/things/dup', { token: u.token })).status).toBe(404);
    expect(
      (await env.DB.prepare('select count(*) as n from entries where resource_id = ?').bind(id).first<{ n: number }>())!
        .n,
    ).toBe(0);
    expect((await env.BLOBS.list({ prefix: `r/${id}/` })).objects.length).toBe(0);
  });
});

describe('the entry store', () => {
  it('clearing a folder prefix removes exactly the entries under it (`_` is not a wildcard)', async () => {
    const { clearEntries, readEntries, writeEntry } = await import('../../../src/core/entries');
    const { dbFor } = await import('../../../src/core/context');
    const u = await makeUser();
    await req('PUT', '/v1/test/things/store', { token: u.token });
    const resource = (await env.DB.prepare(
      "select * from resources where name = 'store' and owner_id = (select id from users where username = ?)",
    )
      .bind(u.username)
      .first())! as never;
    const db = dbFor(env);
    for (const p of ['vars/a_b/value', 'vars/axb/value', 'vars/a_b2/value'])
      await writeEntry(env, db, resource, p, p, null);
    await clearEntries(env, db, resource, 'vars/a_b/');
    expect([...(await readEntries(env, db, (resource as { id: number }).id, 'vars/')).keys()].sort()).toEqual([
      'vars/a_b2/value',
      'vars/axb/value',
    ]);
  });
});
