// Comment threads (src/core/thread/) under documents and the three group trees, the
// migration that moved document threads over, and /v1/o/:org/v (variables of an
// organisation's documents). Real Worker, real local D1.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, commentProblem, checkCommentId, checkTopic, mayRemove } from '../../../src/core/thread';
import { HttpError } from '../../../src/core/errors';
import { json, once, orgWorld, person, userGroupWorld } from '../groups/fixtures';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';

const T = { timeout: 180_000 };
const group = once(userGroupWorld);
const org = once(() => orgWorld('free'));

interface Comment {
  name: string;
  uri: string;
  type: string;
  actions: string[];
  permissions: string[];
  id: number;
  author: string | null;
  text: string;
  created_on: string;
}
const names = async (res: Response) => (await json<{ name: string }[]>(res)).map((i) => i.name);
const open = (u: TestUser | null, base: string, topic: string) =>
  call('PUT', `${base}/threads/${topic}`, { token: u?.token });
const say = (u: TestUser | null, base: string, topic: string, text: string) =>
  call('POST', `${base}/threads/${topic}`, { token: u?.token, text });
const comments = async (u: TestUser, base: string, topic: string) =>
  json<Comment[]>(await call('GET', `${base}/threads/${topic}`, { token: u.token }));

/** Opens a thread and adds one comment by `u`; answers the comment id. */
async function thread(
  u: TestUser,
  base: string,
  topic = unique('t').slice(0, 30),
): Promise<{ topic: string; id: number }> {
  expect((await open(u, base, topic)).status).toBe(201);
  const res = await say(u, base, topic, `first in ${topic}`);
  expect(res.status).toBe(201);
  return { topic, id: (await json<{ id: number }>(res)).id };
}

async function newDoc(u: TestUser): Promise<string> {
  const name = unique('d');
  expect((await call('PUT', `/v1/vis/docs/${name}`, { token: u.token })).status).toBe(201);
  return name;
}

describe('thread rules (pure)', () => {
  it('topics follow the group-name rule; comment ids are positive integers; blank comments are refused', () => {
    expect(checkTopic('intro_1-a')).toBe('intro_1-a');
    for (const bad of ['Intro', 'a b', '-x', '', 'a'.repeat(65), 'a~b'])
      expect(() => checkTopic(bad)).toThrow(HttpError);
    expect(checkCommentId('42')).toBe(42);
    for (const bad of ['0', '-1', '1.5', 'x', '01']) expect(() => checkCommentId(bad)).toThrow(HttpError);
    expect(commentProblem('')).toMatch(/empty/);
    expect(commentProblem(' \n\t')).toMatch(/empty/);
    expect(commentProblem(' hi ')).toBeNull();
    expect(COMMENT_LIMIT).toBe(16 * 1024);
  });
  it('what someone made is removed by its maker or a moderator only', () => {
    expect(mayRemove({ permissions: ['r'], moderator: false }, 1, 1)).toBe(true);
    expect(mayRemove({ permissions: ['r'], moderator: false }, 1, 2)).toBe(false);
    expect(mayRemove({ permissions: ['r'], moderator: false }, 1, null)).toBe(false);
    expect(mayRemove({ permissions: ['r'], moderator: true }, 1, 2)).toBe(true);
  });
});

describe('document threads', T, () => {
  async function sharedDoc() {
    const [owner, reader, stranger] = await Promise.all([makeUser(), makeUser(), makeUser()]);
    const slug = unique('g');
    await call('PUT', `/v1/admin/groups/${slug}`, { token: owner.token });
    await call('PUT', `/v1/admin/groups/${slug}/roles/members/${reader.username}`, { token: owner.token });
    expect(
      (await call('POST', `/v1/admin/invites/@${owner.username}~${slug}/accept`, { token: reader.token, text: 'yes' }))
        .status,
    ).toBe(200);
    const doc = await newDoc(owner);
    expect(
      (await call('PUT', `/v1/vis/docs/${doc}/shared/@${owner.username}~${slug}`, { token: owner.token })).status,
    ).toBe(201);
    return {
      owner,
      reader,
      stranger,
      own: `/v1/vis/docs/${doc}`,
      theirs: `/v1/users/${owner.username}/vis/docs/${doc}`,
    };
  }
  const world = once(sharedDoc);

  it('a reader opens threads, comments and reads them; comments list newest last with id, author, created_on, text', async () => {
    const w = await world();
    const topic = unique('t').slice(0, 30);
    expect((await open(w.reader, w.theirs, topic)).status).toBe(201);
    expect((await open(w.reader, w.theirs, topic)).status).toBe(409); // a topic name is unique per author
    expect((await open(w.owner, w.own, topic)).status).toBe(201); // another author may use it
    const first = await say(w.reader, w.theirs, topic, 'first, with\ttabs\nand lines');
    expect(first.status).toBe(201);
    const { id, uri } = await json<{ id: number; uri: string }>(first);
    expect(uri).toBe(`${w.theirs}/threads/${topic}/${id}`);
    expect((await say(w.owner, w.own, `@${w.reader.username}~${topic}`, 'second')).status).toBe(201);
    const list = await comments(w.owner, w.own, `@${w.reader.username}~${topic}`);
    expect(list.map((c) => [c.author, c.text])).toEqual([
      [w.reader.username, 'first, with\ttabs\nand lines'],
      [w.owner.username, 'second'],
    ]);
    expect(list[0]).toMatchObject({
      id,
      name: String(id),
      uri: `${w.own}/threads/${topic}/${id}`,
      type: 'file',
      created_on: expect.any(String),
    });
    const one = await call('GET', `${w.own}/threads/@${w.reader.username}~${topic}/${id}`, { token: w.owner.token });
    expect(await one.text()).toBe('first, with\ttabs\nand lines');
    const topics = await json<{ name: string; type: string; actions: string[] }[]>(
      await call('GET', `${w.theirs}/threads`, { token: w.reader.token }),
    );
    expect(topics.find((t) => t.name === topic)).toMatchObject({ type: 'dir', actions: ['GET', 'POST', 'DELETE'] });
  });

  it('with config/comments false nobody opens or comments (403); reading still works', async () => {
    const w = await world();
    const { topic } = await thread(w.reader, w.theirs);
    expect((await call('POST', `${w.own}/config/comments`, { token: w.owner.token, text: 'false' })).status).toBe(204);
    try {
      for (const u of [w.owner, w.reader]) {
        const base = u === w.owner ? w.own : w.theirs;
        const o = await open(u, base, unique('t').slice(0, 30));
        expect(o.status).toBe(403);
        expect((await json<{ message: string }>(o)).message).toMatch(/config\/comments/);
        expect((await say(u, base, topic, 'hello')).status).toBe(403);
      }
      expect(await comments(w.reader, w.theirs, topic)).toHaveLength(1);
      expect(
        (
          await json<{ actions: string[]; name: string }[]>(
            await call('GET', `${w.theirs}/threads`, { token: w.reader.token }),
          )
        ).find((t) => t.name === topic)!.actions,
      ).toEqual(['GET', 'DELETE']);
    } finally {
      await call('POST', `${w.own}/config/comments`, { token: w.owner.token, text: 'true' });
    }
  });

  it("the owner moderates: removes anyone's comments and threads; a reader removes only their own", async () => {
    const w = await world();
    const mine = await thread(w.owner, w.own);
    const theirs = await thread(w.reader, w.theirs);
    const ownerSays = await json<{ id: number }>(await say(w.owner, w.own, theirs.topic, 'owner here'));
    // the reader may not remove the owner's comment nor the owner's thread
    expect(
      (await call('DELETE', `${w.theirs}/threads/${theirs.topic}/${ownerSays.id}`, { token: w.reader.token })).status,
    ).toBe(403);
    expect((await call('DELETE', `${w.theirs}/threads/${mine.topic}`, { token: w.reader.token })).status).toBe(403);
    const listed = await comments(w.reader, w.theirs, theirs.topic);
    expect(listed.map((c) => c.actions)).toEqual([['GET', 'DELETE'], ['GET']]);
    // the reader removes their own comment; the owner removes the reader's thread
    expect(
      (await call('DELETE', `${w.theirs}/threads/${theirs.topic}/${theirs.id}`, { token: w.reader.token })).status,
    ).toBe(204);
    expect((await call('DELETE', `${w.own}/threads/${theirs.topic}`, { token: w.owner.token })).status).toBe(204);
    expect((await call('GET', `${w.own}/threads/${theirs.topic}`, { token: w.owner.token })).status).toBe(404);
    expect((await call('DELETE', `${w.own}/threads/${mine.topic}/${mine.id}`, { token: w.owner.token })).status).toBe(
      204,
    );
  });

  it('a stranger gets 404 on every thread route; anonymous callers get 401', async () => {
    const w = await world();
    const { topic, id } = await thread(w.owner, w.own);
    const base = w.theirs;
    for (const [m, p] of [
      ['GET', '/threads'],
      ['PUT', `/threads/${topic}x`],
      ['GET', `/threads/${topic}`],
      ['POST', `/threads/${topic}`],
      ['DELETE', `/threads/${topic}/${id}`],
      ['DELETE', `/threads/${topic}`],
    ] as const) {
      expect(
        (await call(m, base + p, { token: w.stranger.token, text: m === 'POST' ? 'x' : undefined })).status,
        `${m} ${p}`,
      ).toBe(404);
      expect((await call(m, base + p, { text: m === 'POST' ? 'x' : undefined })).status, `${m} ${p}`).toBe(401);
    }
    expect(await comments(w.owner, w.own, topic)).toHaveLength(1);
  });

  it('removing a document removes its threads and comments', async () => {
    const u = await makeUser();
    const doc = await newDoc(u);
    await thread(u, `/v1/vis/docs/${doc}`, 'gone');
    const id = (await env.DB.prepare(
      'select t.id from threads t join resources r on r.id = t.resource_id where r.name = ?',
    )
      .bind(doc)
      .first<{ id: number }>())!.id;
    expect((await call('DELETE', `/v1/vis/docs/${doc}`, { token: u.token })).status).toBe(204);
    expect(
      await env.DB.prepare('select count(*) as n from thread_comments where thread_id = ?').bind(id).first('n'),
    ).toBe(0);
    expect(await env.DB.prepare('select count(*) as n from threads where id = ?').bind(id).first('n')).toBe(0);
  });
});

describe('group threads', T, () => {
  it('accepted members of every role open, read and comment; the group folder lists threads', async () => {
    const w = await group();
    const topic = unique('t').slice(0, 30);
    expect((await open(w.member, w.path, topic)).status).toBe(201);
    for (const u of [w.founder, w.admin, w.superuser, w.member])
      expect((await say(u, w.path, topic, `hi from ${u.username}`)).status).toBe(201);
    expect((await comments(w.superuser, w.path, topic)).map((c) => c.author)).toEqual(
      [w.founder, w.admin, w.superuser, w.member].map((u) => u.username),
    );
    expect(await names(await call('GET', w.path, { token: w.member.token }))).toContain('threads');
    expect(await names(await call('GET', `${w.path}/threads`, { token: w.admin.token }))).toContain(topic);
  });

  it('founders and admins moderate; members and superusers remove only what they made', async () => {
    const w = await group();
    const t = await thread(w.member, w.path);
    const byAdmin = await json<{ id: number }>(await say(w.admin, w.path, t.topic, 'admin'));
    const bySuper = await json<{ id: number }>(await say(w.superuser, w.path, t.topic, 'super'));
    expect((await call('DELETE', `${w.path}/threads/${t.topic}/${byAdmin.id}`, { token: w.member.token })).status).toBe(
      403,
    );
    expect((await call('DELETE', `${w.path}/threads/${t.topic}/${t.id}`, { token: w.superuser.token })).status).toBe(
      403,
    );
    expect((await call('DELETE', `${w.path}/threads/${t.topic}`, { token: w.superuser.token })).status).toBe(403);
    expect(
      (await call('DELETE', `${w.path}/threads/${t.topic}/${bySuper.id}`, { token: w.superuser.token })).status,
    ).toBe(204);
    expect((await call('DELETE', `${w.path}/threads/${t.topic}/${t.id}`, { token: w.admin.token })).status).toBe(204);
    expect((await comments(w.member, w.path, t.topic)).map((c) => c.id)).toEqual([byAdmin.id]);
    const other = await thread(w.superuser, w.path);
    expect((await call('DELETE', `${w.path}/threads/${other.topic}`, { token: w.founder.token })).status).toBe(204);
    expect((await call('DELETE', `${w.path}/threads/${t.topic}`, { token: w.member.token })).status).toBe(204);
    expect(await names(await call('GET', `${w.path}/threads`, { token: w.founder.token }))).not.toContain(t.topic);
  });

  it('a pending invitee and a stranger get 404 (also on a public group); anonymous callers get 401', async () => {
    const w = await group();
    const { topic } = await thread(w.founder, w.path);
    const check = async () => {
      for (const u of [w.pending, w.stranger]) {
        expect((await call('GET', `${w.path}/threads`, { token: u.token })).status).toBe(404);
        expect((await call('GET', `${w.path}/threads/${topic}`, { token: u.token })).status).toBe(404);
        expect((await open(u, w.path, unique('t').slice(0, 30))).status).toBe(404);
        expect((await say(u, w.path, topic, 'let me in')).status).toBe(404);
      }
      expect((await call('GET', `${w.path}/threads`)).status).toBe(401);
      expect((await say(null, w.path, topic, 'x')).status).toBe(401);
    };
    await check();
    expect(await names(await call('GET', w.path, { token: w.pending.token }))).not.toContain('threads');
    await call('POST', `${w.path}/profile/options/public`, { token: w.founder.token, text: 'yes' });
    try {
      expect((await call('GET', w.path, { token: w.stranger.token })).status).toBe(200);
      await check();
    } finally {
      await call('POST', `${w.path}/profile/options/public`, { token: w.founder.token, text: 'no' });
    }
    expect(await comments(w.founder, w.path, topic)).toHaveLength(1);
  });

  it('an org admin overseeing a group of the org reads its threads but writes nothing (403)', async () => {
    const w = await org();
    const t = await thread(w.member, w.path);
    expect(await names(await call('GET', `${w.path}/threads`, { token: w.orgAdmin.token }))).toContain(t.topic);
    const seen = await comments(w.orgAdmin, w.path, t.topic);
    expect(seen.map((c) => c.text)).toEqual([`first in ${t.topic}`]);
    expect(seen[0]!.actions).toEqual(['GET']);
    expect(seen[0]!.permissions).toEqual(['r']);
    expect(await names(await call('GET', w.path, { token: w.orgAdmin.token }))).toContain('threads');
    const refused = await open(w.orgAdmin, w.path, unique('t').slice(0, 30));
    expect(refused.status).toBe(403);
    expect((await json<{ message: string }>(refused)).message).toMatch(/read-only/);
    expect((await say(w.orgAdmin, w.path, t.topic, 'from above')).status).toBe(403);
    expect((await call('DELETE', `${w.path}/threads/${t.topic}/${t.id}`, { token: w.orgAdmin.token })).status).toBe(
      403,
    );
    expect((await call('DELETE', `${w.path}/threads/${t.topic}`, { token: w.orgAdmin.token })).status).toBe(403);
    // an org member who is not in the group sees nothing of it
    expect((await call('GET', `${w.path}/threads`, { token: w.orgMember.token })).status).toBe(404);
    expect(await comments(w.member, w.path, t.topic)).toHaveLength(1);
  });

  it('the org tree: org members read and write, org founders and admins moderate, group-only members and strangers get 404', async () => {
    const w = await org();
    const base = `/v1/admin/orgs/${w.org}`;
    const t = await thread(w.orgMember, base);
    expect((await say(w.orgAdmin, base, t.topic, 'admin')).status).toBe(201);
    expect((await call('DELETE', `${base}/threads/${t.topic}/${t.id}`, { token: w.orgAdmin.token })).status).toBe(204);
    expect((await comments(w.account, base, t.topic)).map((c) => c.text)).toEqual(['admin']);
    // a member of one of the org's groups sees the org, not its threads
    expect((await call('GET', base, { token: w.member.token })).status).toBe(200);
    expect((await call('GET', `${base}/threads`, { token: w.member.token })).status).toBe(404);
    expect((await call('GET', `${base}/threads`, { token: w.stranger.token })).status).toBe(404);
    expect((await call('DELETE', `${base}/threads/${t.topic}`, { token: w.account.token })).status).toBe(204);
  });

  it('threads of different subjects are apart: one topic name in a group, its org and a document', async () => {
    const w = await org();
    const topic = unique('same').slice(0, 30);
    for (const base of [w.path, `/v1/admin/orgs/${w.org}`, `/v1/vis/docs/${await newDoc(w.account)}`]) {
      expect((await open(w.account, base, topic)).status).toBe(201);
      expect(await comments(w.account, base, topic)).toEqual([]);
    }
  });
});

describe('bad input', T, () => {
  it('bad topic names answer 400 and open nothing', async () => {
    const w = await group();
    for (const bad of ['Intro', 'a%20b', '~x', '_x', 'a'.repeat(65)]) {
      expect((await open(w.member, w.path, bad)).status, bad).toBe(400);
      expect((await say(w.member, w.path, bad, 'x')).status, bad).toBe(400);
    }
    expect(await names(await call('GET', `${w.path}/threads`, { token: w.member.token }))).not.toContain('Intro');
  });

  it('empty, blank and oversized comments answer 400/413; 16 KiB exactly is accepted; nothing else is stored', async () => {
    const w = await group();
    const { topic } = await thread(w.member, w.path);
    const empty = await say(w.member, w.path, topic, '');
    expect(empty.status).toBe(400);
    expect(await json(empty)).toMatchObject({ status: 400, message: expect.stringMatching(/empty/) });
    expect((await say(w.member, w.path, topic, '  \n ')).status).toBe(400);
    const big = await say(w.member, w.path, topic, 'x'.repeat(16 * 1024 + 1));
    expect(big.status).toBe(413);
    expect((await json<{ message: string }>(big)).message).toMatch(/16 KiB/);
    expect((await say(w.member, w.path, topic, 'é'.repeat(8 * 1024))).status).toBe(201); // 16384 bytes
    expect((await comments(w.member, w.path, topic)).map((c) => c.text.length)).toEqual([
      `first in ${topic}`.length,
      8 * 1024,
    ]);
  });

  it('form-urlencoded comments answer 415, JSON 415, invalid UTF-8 400', async () => {
    const w = await group();
    const { topic } = await thread(w.member, w.path);
    const form = await call('POST', `${w.path}/threads/${topic}`, {
      token: w.member.token,
      text: 'a=b',
      type: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    expect((await json<{ message: string }>(form)).message).toMatch(/form-urlencoded/);
    expect(
      (await call('POST', `${w.path}/threads/${topic}`, { token: w.member.token, json: { text: 'x' } })).status,
    ).toBe(415);
    expect(
      (
        await call('POST', `${w.path}/threads/${topic}`, {
          token: w.member.token,
          body: new Uint8Array([0xff, 0xfe]),
          type: 'text/plain',
        })
      ).status,
    ).toBe(400);
    expect(await comments(w.member, w.path, topic)).toHaveLength(1);
  });

  it('unknown threads and comment ids answer 404, malformed ids 400', async () => {
    const w = await group();
    const { topic, id } = await thread(w.member, w.path);
    const other = await thread(w.member, w.path);
    expect((await say(w.member, w.path, 'nosuchthread', 'x')).status).toBe(404);
    expect((await call('GET', `${w.path}/threads/nosuchthread`, { token: w.member.token })).status).toBe(404);
    expect((await call('DELETE', `${w.path}/threads/nosuchthread`, { token: w.member.token })).status).toBe(404);
    expect((await call('DELETE', `${w.path}/threads/${topic}/99999999`, { token: w.member.token })).status).toBe(404);
    expect((await call('GET', `${w.path}/threads/${topic}/99999999`, { token: w.member.token })).status).toBe(404);
    // a comment addressed through another thread of the group is not found there
    expect((await call('DELETE', `${w.path}/threads/${other.topic}/${id}`, { token: w.member.token })).status).toBe(
      404,
    );
    expect((await call('DELETE', `${w.path}/threads/${topic}/abc`, { token: w.member.token })).status).toBe(400);
    expect((await call('PUT', `${w.path}/threads/${topic}/${id}`, { token: w.member.token })).status).toBe(405);
    expect(await comments(w.member, w.path, topic)).toHaveLength(1);
  });
});

describe('concurrency', T, () => {
  it('concurrent opens of one topic name: one 201 per author, the rest 409', async () => {
    const w = await group();
    const topic = unique('t').slice(0, 30);
    const codes = (
      await Promise.all([w.member, w.member, w.member, w.founder, w.founder].map((u) => open(u, w.path, topic)))
    )
      .map((r) => r.status)
      .sort();
    expect(codes).toEqual([201, 201, 409, 409, 409]);
  });

  it('concurrent comments are all kept, each with its own id, in id order', async () => {
    const w = await group();
    const { topic } = await thread(w.member, w.path);
    const res = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        say([w.founder, w.admin, w.superuser, w.member][i % 4]!, w.path, topic, `c${i}`),
      ),
    );
    expect(res.map((r) => r.status)).toEqual(Array(8).fill(201));
    const ids = await Promise.all(res.map(async (r) => (await json<{ id: number }>(r)).id));
    const listed = await comments(w.member, w.path, topic);
    expect(listed).toHaveLength(9);
    expect(listed.slice(1).map((c) => c.id)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('comments racing the removal of their thread answer 201 or 404 and leave nothing behind', async () => {
    const w = await group();
    const { topic } = await thread(w.member, w.path);
    const res = await Promise.all([
      ...Array.from({ length: 5 }, () => say(w.member, w.path, topic, 'race')),
      call('DELETE', `${w.path}/threads/${topic}`, { token: w.founder.token }),
    ]);
    expect(res.at(-1)!.status).toBe(204);
    for (const r of res.slice(0, -1)) expect([201, 404]).toContain(r.status);
    expect((await open(w.member, w.path, topic)).status).toBe(201);
    expect(await comments(w.member, w.path, topic)).toEqual([]);
  });
});

describe('the migration of document threads', T, () => {
  it('0007 moves doc_threads rows (topic, opener, time) into the core tables and drops doc_threads', async () => {
    const migrations = (env as unknown as { TEST_MIGRATIONS: { name: string; queries: string[] }[] }).TEST_MIGRATIONS;
    const create = migrations
      .find((m) => m.name.startsWith('0003'))!
      .queries.find((q) => q.includes('CREATE TABLE doc_threads'))!;
    const moves = migrations.find((m) => m.name.startsWith('0007'))!.queries;
    const [owner, reader] = await Promise.all([makeUser(), makeUser()]);
    const doc = await newDoc(owner);
    const id = async (sql: string, v: string) => (await env.DB.prepare(sql).bind(v).first<number>('id'))!;
    const resourceId = await id('select id from resources where name = ?', doc);
    const readerId = await id('select id from users where username = ?', reader.username);
    const ownerId = await id('select id from users where username = ?', owner.username);
    // the documents area's table as 0003 made it, holding two topics
    await env.DB.prepare(create).run();
    await env.DB.batch([
      env.DB.prepare('insert into doc_threads (resource_id, topic, created_by, created_on) values (?, ?, ?, ?)').bind(
        resourceId,
        'intro',
        readerId,
        '2020-01-02T03:04:05.000Z',
      ),
      env.DB.prepare('insert into doc_threads (resource_id, topic, created_by, created_on) values (?, ?, ?, ?)').bind(
        resourceId,
        'outro',
        ownerId,
        '2021-01-02T03:04:05.000Z',
      ),
    ]);
    for (const q of moves) await env.DB.prepare(q).run();

    expect(await env.DB.prepare("select name from sqlite_master where name = 'doc_threads'").first()).toBeNull();
    const path = `/v1/vis/docs/${doc}`;
    const topics = await json<{ name: string; created_on: string; actions: string[] }[]>(
      await call('GET', `${path}/threads`, { token: owner.token }),
    );
    expect(topics.map((t) => [t.name, t.created_on])).toEqual([
      ['intro', '2020-01-02T03:04:05.000Z'],
      ['outro', '2021-01-02T03:04:05.000Z'],
    ]);
    // the opener is kept: the reader (once shared) may remove 'intro' but not 'outro'
    expect((await call('PUT', `${path}/shared/public`, { token: owner.token })).status).toBe(403); // private profile
    await call('PUT', `/v1/ops/users/${owner.username}`, { token: OPS, json: { profile_public: true } });
    expect((await call('PUT', `${path}/shared/public`, { token: owner.token })).status).toBe(201);
    const theirs = `/v1/users/${owner.username}/vis/docs/${doc}`;
    expect((await call('DELETE', `${theirs}/threads/outro`, { token: reader.token })).status).toBe(403);
    expect((await say(reader, theirs, 'intro', 'still works')).status).toBe(201);
    expect((await call('DELETE', `${theirs}/threads/intro`, { token: reader.token })).status).toBe(204);
  });
});

describe("/v1/o/:org/v: variables of the organisation's documents", T, () => {
  it("the account sees every document's variables; others only those of documents they may read; p stays empty", async () => {
    const account = await makeUser({ account: 'organisation', profile_public: true }, 'o');
    const slug = unique('org');
    expect((await call('PUT', `/v1/admin/orgs/${slug}`, { token: account.token })).status).toBe(201);
    expect(
      (await call('POST', `/v1/admin/orgs/${slug}/profile/options/public`, { token: account.token, text: 'yes' }))
        .status,
    ).toBe(204);
    const [member, stranger] = await Promise.all([person('m'), person('x')]);
    expect(
      (await call('PUT', `/v1/admin/orgs/${slug}/roles/members/${member.username}`, { token: account.token })).status,
    ).toBe(201);
    expect((await call('POST', `/v1/admin/invites/+${slug}/accept`, { token: member.token, text: 'yes' })).status).toBe(
      200,
    );
    const docs = { pub: 'a_public', shared: 'b_shared', secret: 'c_secret' };
    for (const [which, doc] of Object.entries(docs)) {
      expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: account.token })).status).toBe(201);
      for (const v of ['rate', 'total']) {
        expect((await call('PUT', `/v1/vis/docs/${doc}/vars/${v}`, { token: account.token })).status).toBe(201);
        expect(
          (await call('POST', `/v1/vis/docs/${doc}/vars/${v}/value`, { token: account.token, text: '42' })).status,
        ).toBe(204);
      }
      if (which === 'pub')
        expect((await call('PUT', `/v1/vis/docs/${doc}/shared/public`, { token: account.token })).status).toBe(201);
      if (which === 'shared')
        expect((await call('PUT', `/v1/vis/docs/${doc}/shared/+${slug}`, { token: account.token })).status).toBe(201);
    }
    const vars = async (u: TestUser | null) => {
      const res = await call('GET', `/v1/o/${slug}/v`, { token: u?.token });
      expect(res.status).toBe(200);
      return json<{ name: string; uri: string; type: string; permissions: string[]; actions: string[] }[]>(res);
    };
    const all = await vars(account);
    expect(all.map((v) => v.name)).toEqual([
      'a_public/rate',
      'a_public/total',
      'b_shared/rate',
      'b_shared/total',
      'c_secret/rate',
      'c_secret/total',
    ]);
    expect(all[0]).toMatchObject({
      uri: `/v1/u/${account.username}/d/a_public/v/rate`,
      type: 'file',
      permissions: ['r'],
      actions: ['GET'],
    });
    expect((await vars(member)).map((v) => v.name)).toEqual([
      'a_public/rate',
      'a_public/total',
      'b_shared/rate',
      'b_shared/total',
    ]);
    const seen = await vars(stranger);
    expect(seen.map((v) => v.name)).toEqual(['a_public/rate', 'a_public/total']);
    expect((await vars(null)).map((v) => v.name)).toEqual(['a_public/rate', 'a_public/total']);
    // the listed uri resolves through the documents' read-only alias
    expect(await json(await call('GET', seen[0]!.uri, { token: stranger.token }))).toMatchObject({
      name: 'rate',
      value: '42',
    });
    expect(await json(await call('GET', `/v1/o/${slug}/p`, { token: account.token }))).toEqual([]);
    // d keeps the same visibility
    expect(await names(await call('GET', `/v1/o/${slug}/d`, { token: stranger.token }))).toEqual(['a_public']);
  });
});
