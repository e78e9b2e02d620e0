// The comment model the python library's Context(...).reply(text, title=slug) and the
// command line's --comments --reply use: topics and comments named by a slug their author
// chooses (409 on a second PUT, which the client ignores), addressed as @<author>~<slug>,
// `msg` their own text written by their author (a rewrite marks it edited), replies nested
// under comments to any depth; comments named by their numeric id keep working. Each test
// sends the requests the library sends and reads the answer as it does (GetTopics,
// GetGroupTopics).
import { describe, expect, it } from 'vitest';
import { parseCommentPath, parseCommentStep } from '../../../src/core/thread';
import { HttpError } from '../../../src/core/errors';
import { getGroupTopics, getTopics } from '../gql/client-queries';
import { gql } from '../gql/fixtures';
import { json, once, orgWorld } from '../groups/fixtures';
import { call, makeUser, unique, type TestUser } from '../helpers';

type Row = Record<string, unknown>;
const world = once(async () => {
  const [alice, bob, carol] = await Promise.all([makeUser(), makeUser(), makeUser()]);
  // bob and carol read alice's document through a group of hers
  const team = unique('g').slice(0, 20);
  await call('PUT', `/v1/admin/groups/${team}`, { token: alice.token });
  for (const u of [bob, carol]) {
    await call('PUT', `/v1/admin/groups/${team}/roles/members/${u.username}`, { token: alice.token });
    expect(
      (await call('POST', `/v1/admin/invites/@${alice.username}~${team}/accept`, { token: u.token, text: 'yes' }))
        .status,
    ).toBe(200);
  }
  return { alice, bob, carol, team };
});

async function sharedDoc(): Promise<{ name: string; res: (u: TestUser) => string }> {
  const { alice, team } = await world();
  const name = unique('report');
  expect((await call('PUT', `/v1/vis/docs/${name}`, { token: alice.token })).status).toBe(201);
  expect(
    (await call('PUT', `/v1/vis/docs/${name}/shared/@${alice.username}~${team}`, { token: alice.token })).status,
  ).toBe(201);
  // the library's threads base: vis/docs/<name> for the owner, users/<owner>/vis/docs/<name> for others
  return {
    name,
    res: (u) =>
      u.username === alice.username ? `/v1/vis/docs/${name}` : `/v1/users/${alice.username}/vis/docs/${name}`,
  };
}

/** What Context.reply sends: PUT the slug (a 409 is ignored), then POST the text to @<me>~<slug>/msg. */
async function reply(u: TestUser, parent: string, slug: string, text: string, created = 201): Promise<void> {
  const put = await call('PUT', `${parent}/${slug}`, { token: u.token });
  expect(put.status, await put.clone().text()).toBe(created);
  const msg = await call('POST', `${parent}/@${u.username}~${slug}/msg`, { token: u.token, text });
  expect(msg.status, await msg.clone().text()).toBe(204);
}

/** The topics as the library loads them: GetTopics (three levels of replies) with {id, author}. */
async function topicsOf(u: TestUser, doc: string): Promise<Row[]> {
  const { alice } = await world();
  const { body } = await gql(u.token, getTopics('docs'), { id: doc, author: alice.username });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return ((body.data!.docs as Row[])[0]!.topics as Row[]) ?? [];
}
const pick = (c: Row): Row => ({
  slug: c.slug,
  creator: (c.creator as Row).username,
  message: c.message,
  depth: c.depth,
  edited: c.edited,
  replies: (c.replies as Row[]).map(pick),
});

describe('comment paths (pure)', () => {
  it('a path below a topic is <comment>[/comments/<comment>...]; each comment @<author>~<slug> or an id', () => {
    expect(parseCommentPath('r1')).toEqual(['r1']);
    expect(parseCommentPath('@ann~c1/comments/@bo~c2/comments/r3')).toEqual(['@ann~c1', '@bo~c2', 'r3']);
    for (const bad of ['', 'a/b', 'a/comments', 'a/comments/', 'a//b', `${'a/comments/'.repeat(64)}a`])
      expect(() => parseCommentPath(bad), bad).toThrow(HttpError);
    expect(parseCommentStep('@ann~c1')).toEqual({ user: 'ann', slug: 'c1' });
    expect(parseCommentStep('42')).toEqual({ id: 42 });
    for (const bad of ['c1', '@ann~', '@Ann~c', '@ann~C1', '0'])
      expect(() => parseCommentStep(bad), bad).toThrow(HttpError);
  });
});

describe("Context('/u/alice/d/report').reply(text, title=slug)", () => {
  it('without topics: PUT threads/<slug>, POST threads/@<me>~<slug>/msg: a topic whose message is the text', async () => {
    const { alice, bob } = await world();
    const { name, res } = await sharedDoc();
    await reply(bob, `${res(bob)}/threads`, 'question', 'What does **this** mean?');
    const [topic] = await topicsOf(alice, name);
    expect(topic).toMatchObject({
      slug: 'question',
      message: 'What does **this** mean?',
      creator: { username: bob.username },
      edited: false,
      num_comments: 0,
      comments: [],
    });
    expect(topic!.updated).toMatch(/ UTC$/);
  });

  it('with topics: PUT threads/@<a>~<topic>/comments/<slug>, POST .../comments/@<me>~<slug>/msg; under a comment it nests', async () => {
    const { alice, bob, carol } = await world();
    const { name, res } = await sharedDoc();
    await reply(bob, `${res(bob)}/threads`, 'question', 'Why?');
    const topic = `${res(alice)}/threads/@${bob.username}~question`;
    await reply(alice, `${topic}/comments`, 'answer', 'Because.');
    await reply(
      carol,
      `${res(carol)}/threads/@${bob.username}~question/comments/@${alice.username}~answer/comments`,
      'thanks',
      'Thanks!',
    );
    await reply(
      bob,
      `${res(bob)}/threads/@${bob.username}~question/comments/@${alice.username}~answer/comments/@${carol.username}~thanks/comments`,
      'deep',
      'three deep',
    );
    const [t] = await topicsOf(bob, name);
    expect(t).toMatchObject({ slug: 'question', message: 'Why?', num_comments: 3 });
    expect((t!.comments as Row[]).map(pick)).toEqual([
      {
        slug: 'answer',
        creator: alice.username,
        message: 'Because.',
        depth: 0,
        edited: false,
        replies: [
          {
            slug: 'thanks',
            creator: carol.username,
            message: 'Thanks!',
            depth: 1,
            edited: false,
            replies: [
              { slug: 'deep', creator: bob.username, message: 'three deep', depth: 2, edited: false, replies: [] },
            ],
          },
        ],
      },
    ]);
    expect((t!.comments as Row[])[0]!.num_replies).toBe(1);
  });

  it('a slug is unique per author among siblings: a second PUT is 409 (ignored by the client, which then rewrites the text: edited); another author may use it', async () => {
    const { alice, bob, carol } = await world();
    const { name, res } = await sharedDoc();
    await reply(bob, `${res(bob)}/threads`, 'note', 'first');
    await reply(bob, `${res(bob)}/threads`, 'note', 'second', 409);
    await reply(carol, `${res(carol)}/threads`, 'note', "carol's own");
    const topic = `${res(alice)}/threads/@${bob.username}~note/comments`;
    await reply(alice, topic, 'c', 'one');
    await reply(alice, topic, 'c', 'one, edited', 409);
    await reply(bob, `${res(bob)}/threads/@${bob.username}~note/comments`, 'c', "bob's c");
    const topics = await topicsOf(alice, name);
    expect(topics.map((t) => [t.slug, (t.creator as Row).username, t.message, t.edited])).toEqual([
      ['note', bob.username, 'second', true],
      ['note', carol.username, "carol's own", false],
    ]);
    const bobs = topics.find((t) => (t.creator as Row).username === bob.username)!;
    expect((bobs.comments as Row[]).map((c) => [c.slug, (c.creator as Row).username, c.message, c.edited])).toEqual([
      ['c', alice.username, 'one, edited', true],
      ['c', bob.username, "bob's c", false],
    ]);
  });

  it('only the author writes a text (403); a topic or comment that does not exist is 404; nothing else changes', async () => {
    const { alice, bob, carol } = await world();
    const { name, res } = await sharedDoc();
    await reply(bob, `${res(bob)}/threads`, 'mine', 'by bob');
    await reply(bob, `${res(bob)}/threads/@${bob.username}~mine/comments`, 'c1', 'bob again');
    const t = `${res(carol)}/threads/@${bob.username}~mine`;
    expect((await call('POST', `${t}/msg`, { token: carol.token, text: 'hijack' })).status).toBe(403);
    expect(
      (await call('POST', `${t}/comments/@${bob.username}~c1/msg`, { token: carol.token, text: 'hijack' })).status,
    ).toBe(403);
    expect(
      (await call('POST', `${res(carol)}/threads/@${carol.username}~mine/msg`, { token: carol.token, text: 'x' }))
        .status,
    ).toBe(404);
    expect(
      (await call('POST', `${t}/comments/@${carol.username}~c1/msg`, { token: carol.token, text: 'x' })).status,
    ).toBe(404);
    expect(
      (await call('PUT', `${t}/comments/@${carol.username}~nope/comments/r1`, { token: carol.token })).status,
    ).toBe(404);
    expect(
      (await call('PUT', `${res(carol)}/threads/@${carol.username}~nope/comments/r1`, { token: carol.token })).status,
    ).toBe(404);
    expect((await call('PUT', `${t}/comments/Bad`, { token: carol.token })).status).toBe(400);
    const [topic] = await topicsOf(alice, name);
    expect([topic!.message, topic!.edited, (topic!.comments as Row[]).map((c) => [c.message, c.edited])]).toEqual([
      'by bob',
      false,
      [['bob again', false]],
    ]);
  });

  it('comments added by POST keep their numeric id as slug, and .../comments/<id>/msg still replies to one', async () => {
    const { alice, bob } = await world();
    const { name, res } = await sharedDoc();
    await reply(bob, `${res(bob)}/threads`, 'legacy', 'topic text');
    const added = await call('POST', `${res(alice)}/threads/legacy`, { token: alice.token, text: 'a plain comment' });
    expect(added.status).toBe(201);
    const { id } = await json<{ id: number }>(added);
    const replied = await call('POST', `${res(bob)}/threads/@${bob.username}~legacy/comments/${id}/msg`, {
      token: bob.token,
      text: 'a reply by id',
    });
    expect(replied.status).toBe(201);
    // and a slugged reply under the numbered comment
    await reply(alice, `${res(alice)}/threads/@${bob.username}~legacy/comments/${id}/comments`, 'r2', 'slugged');
    const [t] = await topicsOf(alice, name);
    const [c] = t!.comments as Row[];
    expect(c).toMatchObject({ slug: String(id), comment_id: String(id), message: 'a plain comment' });
    expect((c!.replies as Row[]).map((r) => [r.message, r.slug === String(r.comment_id)])).toEqual([
      ['a reply by id', true],
      ['slugged', false],
    ]);
    // REST's listing names the same comments, with slug and edited
    const list = await json<{ id: number; slug: string; reply_to: number | null; edited: boolean }[]>(
      await call('GET', `${res(alice)}/threads/@${bob.username}~legacy`, { token: alice.token }),
    );
    expect(list.map((m) => [m.slug, m.reply_to, m.edited])).toEqual([
      [String(id), null, false],
      [String(list[1]!.id), id, false],
      ['r2', id, false],
    ]);
  });
});

describe('group threads: admin/groups/<group>, and the paths the library builds (groups/<group>, orgs/<org>/groups/<group>)', () => {
  const org = once(() => orgWorld());

  it('a user group: topic and comment by slug, read with GetGroupTopics {"name", "type": "user_group", "parent_group": "<owner>"}', async () => {
    const { alice, bob, team } = await world();
    await reply(alice, `/v1/admin/groups/${team}/threads`, 'plans', 'Plans for the week');
    await reply(
      bob,
      `/v1/admin/groups/@${alice.username}~${team}/threads/@${alice.username}~plans/comments`,
      'ok',
      'sounds good',
    );
    await reply(
      alice,
      `/v1/groups/${team}/threads/@${alice.username}~plans/comments/@${bob.username}~ok/comments`,
      'r1',
      'great',
    );
    const { body } = await gql(alice.token, getGroupTopics(), {
      name: team,
      type: 'user_group',
      parent_group: alice.username,
    });
    const [t] = (body.data!.groups as Row[])[0]!.topics as Row[];
    expect(t).toMatchObject({ slug: 'plans', message: 'Plans for the week', num_comments: 2 });
    expect((t!.comments as Row[]).map(pick)).toEqual([
      {
        slug: 'ok',
        creator: bob.username,
        message: 'sounds good',
        depth: 0,
        edited: false,
        replies: [{ slug: 'r1', creator: alice.username, message: 'great', depth: 1, edited: false, replies: [] }],
      },
    ]);
  });

  it('an org group through orgs/<org>/groups/<group>: members write, read with GetGroupTopics (org_group, parent_group the org); outsiders 404', async () => {
    const w = await org();
    const base = `/v1/orgs/${w.org}/groups/${w.group}/threads`;
    await reply(w.member, base, 'standup', 'Daily standup');
    await reply(w.admin, `${base}/@${w.member.username}~standup/comments`, 'here', 'here');
    expect((await call('PUT', `${base}/x1`, { token: w.stranger.token })).status).toBe(404);
    const { body } = await gql(w.member.token, getGroupTopics(), {
      name: w.group,
      type: 'org_group',
      parent_group: w.org,
    });
    const [t] = (body.data!.groups as Row[])[0]!.topics as Row[];
    expect(t).toMatchObject({ slug: 'standup', message: 'Daily standup', creator: { username: w.member.username } });
    expect((t!.comments as Row[]).map((c) => [c.slug, c.message])).toEqual([['here', 'here']]);
    // the same threads under the admin path
    const listing = await json<{ name: string }[]>(await call('GET', `${w.path}/threads`, { token: w.member.token }));
    expect(listing.map((i) => i.name)).toContain('standup');
  });
});
