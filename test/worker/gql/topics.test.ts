// GraphQL topics over the core's reply structure, and the items shared with a group, read
// with REST's visibility (the command line's topics and group listings,
// docs/areas/gql.md). Comments and replies are written through the REST routes the client
// uses without slugs (POST threads/@<user>~<topic> and .../comments/<id>/msg; the slug
// model is test/worker/core/comment-slugs.test.ts).
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { rfc2822Utc } from '../../../src/core/dates';
import { call, makeUser, unique, type TestUser } from '../helpers';
import { gql, ok } from './fixtures';
import { measured } from './counting';
import { join, json, once, orgWorld, person } from '../groups/fixtures';

type Row = Record<string, unknown>;
async function data(token: string | null, query: string, variables?: Record<string, unknown>): Promise<Row> {
  const { status, body } = await gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data!;
}

const MENTIONS = 'mentions { nonce user { username } }';
const C = `comment_id slug message depth deleted edited num_replies likes dislikes my_reaction created updated creator { username } ${MENTIONS}`;
/** `levels` of `replies` below the comments (the client asks three). */
const nested = (levels: number): string => (levels === 0 ? C : `${C} replies { ${nested(levels - 1)} }`);
const topics = (levels = 3) =>
  `topics { topic_id slug message audience status num_comments likes dislikes my_reaction edited created updated creator { username } ${MENTIONS} comments { ${nested(levels)} } }`;
const VARS = 'vars { id value format type threshold }';
const getTopics = (levels = 3) =>
  `query GetTopics($id: ID!, $author: String) { me { username } docs(id: $id, author: $author) { ${VARS} ${topics(levels)} } }`;
const getGroupTopics = (levels = 3) =>
  `query GetGroupTopics($name: String!, $type: GroupType!, $parent_group: String) { me { username } groups(name: $name, type: $type, parent_group: $parent_group) { ${topics(levels)} } }`;

const world = once(() => orgWorld());

/** POSTs a comment (text/plain) and answers its id. */
async function post(u: TestUser, path: string, text: string): Promise<number> {
  const res = await call('POST', path, { token: u.token, text });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: number }>(res)).id;
}

/** A document of `owner` shared with `shares`, answering its name. */
async function doc(owner: TestUser, shares: string[], collection = 'vis/docs'): Promise<string> {
  const name = unique('d');
  await ok(call('PUT', `/v1/${collection}/${name}`, { token: owner.token }));
  for (const s of shares) await ok(call('PUT', `/v1/${collection}/${name}/shared/${s}`, { token: owner.token }));
  return name;
}

const pick = (c: Row): Row => ({
  id: c.comment_id,
  depth: c.depth,
  num_replies: c.num_replies,
  replies: c.replies === undefined ? undefined : (c.replies as Row[]).map(pick),
});

describe('GetTopics: comments nest by the replies posted through REST', () => {
  it('top-level comments are those without a parent; replies nest to any depth with depth and num_replies; slug is the REST comment id', async () => {
    const w = await world();
    const owner = w.superuser;
    const name = await doc(owner, [w.ref]);
    const mine = `/v1/vis/docs/${name}`;
    const theirs = `/v1/users/${owner.username}/vis/docs/${name}`;
    await ok(call('PUT', `${mine}/threads/review`, { token: owner.token }));
    const ref = `${theirs}/threads/@${owner.username}~review`;
    const reply = (id: number) => `${ref}/comments/${id}/msg`;
    const a = await post(w.member, ref, `first, @${w.admin.username}`);
    const b = await post(w.admin, reply(a), 'reply one');
    const b2 = await post(owner, `${mine}/threads/@${owner.username}~review/comments/${a}/msg`, 'reply two');
    const c = await post(w.member, reply(b), `@${owner.username} deeper`);
    const d = await post(w.admin, reply(c), 'deeper still');
    const e = await post(w.member, reply(d), `deepest @${w.member.username}`);
    const f = await post(owner, `${mine}/threads/@${owner.username}~review`, 'another comment on the topic');

    const vars = { id: name, author: owner.username };
    const got = await data(w.member.token, getTopics(), vars);
    expect(got.me).toEqual({ username: w.member.username });
    const [t] = (got.docs as Row[])[0]!.topics as Row[];
    expect(t).toMatchObject({
      slug: 'review',
      message: '',
      audience: 'readers',
      status: 'open',
      num_comments: 7,
      likes: 0,
      dislikes: 0,
      my_reaction: null,
      creator: { username: owner.username },
    });
    // three levels of replies as asked: d (depth 3) says it has a reply the query did not reach
    expect((t!.comments as Row[]).map(pick)).toEqual([
      {
        id: String(a),
        depth: 0,
        num_replies: 2,
        replies: [
          {
            id: String(b),
            depth: 1,
            num_replies: 1,
            replies: [
              {
                id: String(c),
                depth: 2,
                num_replies: 1,
                replies: [{ id: String(d), depth: 3, num_replies: 1, replies: undefined }],
              },
            ],
          },
          { id: String(b2), depth: 1, num_replies: 0, replies: [] },
        ],
      },
      { id: String(f), depth: 0, num_replies: 0, replies: [] },
    ]);
    const [ca] = t!.comments as Row[];
    expect(ca).toMatchObject({
      slug: String(a),
      message: `first, @${w.admin.username}`,
      creator: { username: w.member.username },
      mentions: [{ nonce: `@${w.admin.username}`, user: { username: w.admin.username } }],
      deleted: false,
      edited: false,
      likes: 0,
      dislikes: 0,
      my_reaction: null,
    });
    const cc = ((ca!.replies as Row[])[0]!.replies as Row[])[0]!;
    expect(cc).toMatchObject({
      message: `@${owner.username} deeper`,
      mentions: [{ nonce: `@${owner.username}`, user: { username: owner.username } }],
    });

    // the topic's updated is its latest comment, replies included (REST's listing of the thread)
    const rest = await json<{ id: number; created_on: string; reply_to: number | null }[]>(
      await call('GET', `${mine}/threads/review`, { token: owner.token }),
    );
    expect(rest.map((r) => r.id)).toEqual([a, b, b2, c, d, e, f]);
    expect(t!.updated).toBe(rfc2822Utc(rest.at(-1)!.created_on));

    // asking again deeper reaches the rest of the branch
    const deeper = ((await data(w.member.token, getTopics(5), vars)).docs as Row[])[0]!.topics as Row[];
    const dd = ((((deeper[0]!.comments as Row[])[0]!.replies as Row[])[0]!.replies as Row[])[0]!.replies as Row[])[0]!;
    expect(pick(dd)).toEqual({
      id: String(d),
      depth: 3,
      num_replies: 1,
      replies: [{ id: String(e), depth: 4, num_replies: 0, replies: [] }],
    });
    expect((dd.replies as Row[])[0]).toMatchObject({
      message: `deepest @${w.member.username}`,
      mentions: [{ nonce: `@${w.member.username}`, user: { username: w.member.username } }],
    });

    // the slug GraphQL answers is the one REST replies to
    const g = await post(owner, reply(Number(dd.slug)), 'answering by the GraphQL slug');
    const again = ((await data(w.member.token, getTopics(5), vars)).docs as Row[])[0]!.topics as Row[];
    expect(again[0]!.num_comments).toBe(8);
    const d2 = ((((again[0]!.comments as Row[])[0]!.replies as Row[])[0]!.replies as Row[])[0]!.replies as Row[])[0]!;
    expect((d2.replies as Row[]).map((r) => [r.comment_id, r.depth])).toEqual([
      [String(e), 4],
      [String(g), 4],
    ]);
    expect(d2.num_replies).toBe(2);

    // a caller who may not read the document gets neither it nor its topics (org oversight included)
    for (const u of [w.orgAdmin, w.stranger]) expect((await data(u.token, getTopics(), vars)).docs).toEqual([]);
  });

  it('removing a comment through REST removes its replies from the tree', async () => {
    const w = await world();
    const owner = w.superuser;
    const name = await doc(owner, [w.ref]);
    const mine = `/v1/vis/docs/${name}`;
    await ok(call('PUT', `${mine}/threads/intro`, { token: owner.token }));
    const ref = `${mine}/threads/@${owner.username}~intro`;
    const a = await post(owner, ref, 'parent');
    const b = await post(owner, `${ref}/comments/${a}/msg`, 'child');
    await post(owner, `${ref}/comments/${b}/msg`, 'grandchild');
    const s = await post(owner, ref, 'sibling');
    await ok(call('DELETE', `${mine}/threads/intro/${a}`, { token: owner.token }));
    const [t] = ((await data(owner.token, getTopics(), { id: name })).docs as Row[])[0]!.topics as Row[];
    expect(t!.num_comments).toBe(1);
    expect((t!.comments as Row[]).map(pick)).toEqual([{ id: String(s), depth: 0, num_replies: 0, replies: [] }]);
  });
});

describe('GetGroupTopics: a group thread with replies posted through REST', () => {
  it('members and org oversight read the nested thread (as REST); others get no group or no topics', async () => {
    const w = await world();
    const topic = unique('t').slice(0, 30);
    await ok(call('PUT', `${w.path}/threads/${topic}`, { token: w.admin.token }));
    const ref = `${w.path}/threads/@${w.admin.username}~${topic}`;
    const x = await post(w.member, ref, 'a plan');
    const y = await post(w.superuser, `${ref}/comments/${x}/msg`, `agreed @${w.member.username}`);
    const z = await post(w.member, `${ref}/comments/${y}/msg`, 'then');
    const v = await post(w.admin, `${ref}/comments/${z}/msg`, 'and then');
    const u = await post(w.account, `${ref}/comments/${v}/msg`, 'four levels down');

    const vars = { name: w.group, type: 'org_group', parent_group: w.org };
    const read = async (who: TestUser) =>
      ((await data(who.token, getGroupTopics(), vars)).groups as Row[]).flatMap((g) => g.topics as Row[]);
    for (const who of [w.member, w.orgAdmin]) {
      const [t] = (await read(who)).filter((t) => t.slug === topic);
      expect(t, who.username).toMatchObject({
        audience: 'members',
        num_comments: 5,
        message: '',
        creator: { username: w.admin.username },
      });
      expect((t!.comments as Row[]).map(pick)).toEqual([
        {
          id: String(x),
          depth: 0,
          num_replies: 1,
          replies: [
            {
              id: String(y),
              depth: 1,
              num_replies: 1,
              replies: [
                {
                  id: String(z),
                  depth: 2,
                  num_replies: 1,
                  replies: [{ id: String(v), depth: 3, num_replies: 1, replies: undefined }],
                },
              ],
            },
          ],
        },
      ]);
      const yy = ((t!.comments as Row[])[0]!.replies as Row[])[0]!;
      expect(yy.mentions).toEqual([{ nonce: `@${w.member.username}`, user: { username: w.member.username } }]);
      expect((await call('GET', `${w.path}/threads/${topic}`, { token: who.token })).status).toBe(200);
    }
    const deep = await data(w.member.token, getGroupTopics(4), vars);
    const t4 = ((deep.groups as Row[])[0]!.topics as Row[]).find((t) => t.slug === topic)!;
    const vv = ((((t4.comments as Row[])[0]!.replies as Row[])[0]!.replies as Row[])[0]!.replies as Row[])[0]!;
    expect(pick(vv)).toEqual({
      id: String(v),
      depth: 3,
      num_replies: 1,
      replies: [{ id: String(u), depth: 4, num_replies: 0, replies: undefined }],
    });
    // a stranger and an org member outside the group see no group (REST: 404)
    for (const who of [w.stranger, w.orgMember]) {
      expect(await read(who)).toEqual([]);
      expect((await call('GET', `${w.path}/threads/${topic}`, { token: who.token })).status).toBe(404);
    }
  });
});

describe('GetTopics stays a bounded number of D1 statements whatever the number of comments', () => {
  /**
   * A topic on a new document of `owner` with `n` comments written as the REST routes write them: chains of replies,
   * mentions at every depth.
   */
  async function seeded(owner: TestUser, n: number, chains: number, mention: string[]): Promise<string> {
    const name = await doc(owner, []);
    await ok(call('PUT', `/v1/vis/docs/${name}/threads/busy`, { token: owner.token }));
    const thread = (await env.DB.prepare(
      "select t.id from threads t join resources r on r.id = t.resource_id join users u on u.id = r.owner_id where u.username = ? and r.name = ? and t.topic = 'busy'",
    )
      .bind(owner.username, name)
      .first<{ id: number }>())!.id;
    const author = (await env.DB.prepare('select id from users where username = ?')
      .bind(owner.username)
      .first<{ id: number }>())!.id;
    const now = new Date().toISOString();
    const ids: number[] = [];
    // In rounds: comment i replies to comment i - chains (the first `chains` are on the topic).
    for (let start = 0; start < n; start += chains) {
      const round = Array.from({ length: Math.min(chains, n - start) }, (_, k) => start + k);
      const rows = await env.DB.batch(
        round.map((i) =>
          env.DB.prepare(
            'insert into thread_comments (thread_id, author_id, text, created_on, parent_id) values (?, ?, ?, ?, ?) returning id',
          ).bind(
            thread,
            author,
            `comment ${i} for @${mention[i % mention.length]} and @nobody_${i}`,
            now,
            i < chains ? null : ids[i - chains]!,
          ),
        ),
      );
      for (const r of rows) ids.push((r.results[0] as { id: number }).id);
    }
    return name;
  }

  it('a document with 400 comments in reply chains: as many statements as with 4, mentions at every depth included', async () => {
    const [owner, other] = await Promise.all([makeUser(), makeUser()]);
    const many = await seeded(owner, 400, 40, [owner.username, other.username]);
    const few = await seeded(owner, 4, 1, [owner.username, other.username]);
    const big = await measured(owner.token, getTopics(), { id: many });
    const small = await measured(owner.token, getTopics(), { id: few });
    const t = ((big.data.docs as Row[])[0]!.topics as Row[])[0]!;
    expect(t.num_comments).toBe(400);
    expect(t.comments as Row[]).toHaveLength(40);
    const chain = ((t.comments as Row[])[0]!.replies as Row[])[0]!;
    expect(chain).toMatchObject({
      depth: 1,
      num_replies: 1,
      message: `comment 40 for @${owner.username} and @nobody_40`,
      mentions: [{ user: { username: owner.username } }],
    });
    const s = ((small.data.docs as Row[])[0]!.topics as Row[])[0]!;
    expect(s.num_comments).toBe(4);
    expect(big.statements.length).toBe(small.statements.length);
    // the page, the topics with all their comments (one batch of two), the mentioned accounts
    expect(big.statements.length).toBeLessThanOrEqual(4);
  });
});

describe('Group { docs grids mails jobs }: only the shared items the caller can read (as GET /v1/o/<group ref>/<kind>)', () => {
  const KINDS = [
    ['docs', 'vis/docs', 'd'],
    ['grids', 'vis/grids', 'g'],
    ['mails', 'vis/mails', 'm'],
    ['jobs', 'code/jobs', 'j'],
  ] as const;

  it('a member reads all; org oversight only what an own share lets it read; a stranger and an org member outside see no group', async () => {
    const w = await world();
    // The sharer holds a role in the group and in the organisation: a share into either needs one.
    const owner = await person('sh');
    await join(w.path, w.ref, w.account, owner, 'members');
    await join(`/v1/admin/orgs/${w.org}`, `+${w.org}`, w.account, owner, 'members');
    const q = `query G($name: String, $type: GroupType, $parent_group: String) { groups(name: $name, type: $type, parent_group: $parent_group) { id docs { id topics { slug } } grids { id } mails { id } jobs { id last_run_time } } }`;
    const vars = { name: w.group, type: 'org_group', parent_group: w.org };
    await ok(call('POST', '/v1/admin/profile/public', { token: owner.token, text: 'yes' })); // to share with public
    for (const [field, collection, section] of KINDS) {
      const groupOnly = await doc(owner, [w.ref], collection);
      const orgToo = await doc(owner, [w.ref, `+${w.org}`], collection);
      const publicToo = await doc(owner, [w.ref, 'public'], collection);
      if (field === 'docs')
        for (const n of [groupOnly, orgToo])
          await ok(call('PUT', `/v1/${collection}/${n}/threads/note`, { token: owner.token }));
      const gqlIds = async (who: TestUser) =>
        ((await data(who.token, q, vars)).groups as Row[]).map((g) => (g[field] as Row[]).map((i) => i.id as string));
      const restIds = async (who: TestUser) => {
        const res = await call('GET', `/v1/o/${w.ref}/${section}`, { token: who.token });
        return res.status === 200 ? [(await json<{ id: string }[]>(res)).map((i) => i.id)] : [];
      };
      const mineOnly = (ids: string[][]) =>
        ids.map((l) => l.filter((i) => [groupOnly, orgToo, publicToo].includes(i)).sort());
      expect(mineOnly(await gqlIds(w.member)), `${field}: member`).toEqual([[groupOnly, orgToo, publicToo].sort()]);
      // oversight is read-only and over the group, not its items: the org admin reads the org-wide share and the public
      // one
      expect(mineOnly(await gqlIds(w.orgAdmin)), `${field}: overseer`).toEqual([[orgToo, publicToo].sort()]);
      for (const who of [w.member, w.orgAdmin, w.stranger, w.orgMember]) {
        expect(mineOnly(await gqlIds(who)), `${field}: ${who.username} as REST`).toEqual(mineOnly(await restIds(who)));
      }
      expect(await gqlIds(w.stranger)).toEqual([]);
      expect(await gqlIds(w.orgMember)).toEqual([]);
      if (field === 'docs') {
        const docs = ((await data(w.orgAdmin.token, q, vars)).groups as Row[])[0]!.docs as Row[];
        expect(docs.find((d) => d.id === orgToo)!.topics).toEqual([{ slug: 'note' }]);
      }
    }
  });

  it('a public group shows an outsider only what is also shared with them (REST agrees); its topics are for members', async () => {
    const founder = await makeUser();
    const outsider = await makeUser();
    await ok(call('POST', '/v1/admin/profile/public', { token: founder.token, text: 'yes' }));
    const slug = unique('g').slice(0, 30);
    await ok(call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token }));
    const ref = `@${founder.username}~${slug}`;
    await ok(call('POST', `/v1/admin/groups/${slug}/profile/options/public`, { token: founder.token, text: 'yes' }));
    await ok(call('PUT', `/v1/admin/groups/${slug}/threads/chat`, { token: founder.token }));
    const open = await doc(founder, [ref, 'public']);
    const closed = await doc(founder, [ref]);
    const q = `query G($id: ID) { groups(id: $id) { id docs { id } topics { slug } } }`;
    const seen = async (who: TestUser | null) => (await data(who?.token ?? null, q, { id: ref })).groups as Row[];
    expect(await seen(outsider)).toEqual([{ id: ref, docs: [{ id: open }], topics: [] }]);
    expect(await seen(null)).toEqual([{ id: ref, docs: [{ id: open }], topics: [] }]);
    expect(((await seen(founder))[0]!.docs as Row[]).map((d) => d.id).sort()).toEqual([open, closed].sort());
    expect(
      (await json<{ id: string }[]>(await call('GET', `/v1/o/${ref}/d`, { token: outsider.token }))).map((i) => i.id),
    ).toEqual([open]);
  });
});
