import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../src/core/errors';
import { parseOpenedTopic } from '../../../src/core/thread';
import { json, once, userGroupWorld } from '../groups/fixtures';
import { call, makeUser, unique, type TestUser } from '../helpers';

interface Comment {
  id: number;
  author: string | null;
  text: string;
  reply_to: number | null;
}

const group = once(userGroupWorld);

async function resource(u: TestUser, collection: string): Promise<string> {
  const name = unique('r');
  expect((await call('PUT', `/v1/${collection}/${name}`, { token: u.token })).status).toBe(201);
  return `/v1/${collection}/${name}`;
}
const msg = (u: TestUser | null, path: string, text: string, type?: string) =>
  call('POST', path, { token: u?.token, text, type });
const comments = async (u: TestUser, base: string, topic: string) =>
  json<Comment[]>(await call('GET', `${base}/threads/${topic}`, { token: u.token }));

describe('the clients’ topic reference @user~topic (pure)', () => {
  it('names the topic and who opened it; anything else is a 400', () => {
    expect(parseOpenedTopic('@ann_1~intro-2')).toEqual({ user: 'ann_1', topic: 'intro-2' });
    for (const bad of ['intro', '@~intro', '@ann~', '@Ann~intro', '@ann~In tro', 'ann~intro'])
      expect(() => parseOpenedTopic(bad), bad).toThrow(HttpError);
  });
});

describe('comments and replies by topic reference (client contract)', () => {
  for (const collection of ['vis/docs', 'vis/grids', 'vis/mails']) {
    it(`${collection}: POST threads/@<opener>~<topic> comments (named by id); .../comments/<id>/msg replies`, async () => {
      const owner = await makeUser();
      const reader = await makeUser();
      const base = await resource(owner, collection);
      const theirs = `/v1/users/${owner.username}/${base.slice(4)}`;
      expect((await call('PUT', `${base}/shared/@${owner.username}~nobody`, { token: owner.token })).status).toBe(404); // sanity: no such group
      expect((await call('POST', '/v1/admin/profile/public', { token: owner.token, text: 'yes' })).status).toBe(204);
      expect((await call('PUT', `${base}/shared/public`, { token: owner.token })).status).toBe(201);
      expect((await call('PUT', `${base}/threads/intro`, { token: owner.token })).status).toBe(201);
      const ref = `@${owner.username}~intro`;
      const first = await msg(reader, `${theirs}/threads/${ref}`, 'Hello  there\r\n');
      expect(first.status).toBe(201);
      const { id } = await json<{ id: number }>(first);
      const reply = await msg(owner, `${base}/threads/${ref}/comments/${id}/msg`, 'Thanks!');
      expect(reply.status).toBe(201);
      const replyId = (await json<{ id: number }>(reply)).id;
      const nested = await msg(reader, `${theirs}/threads/${ref}/comments/${replyId}/msg`, 'welcome');
      expect(nested.status).toBe(201);
      const list = await comments(owner, base, 'intro');
      expect(list.map((c) => [c.author, c.text, c.reply_to])).toEqual([
        [reader.username, 'Hello  there\r\n', null],
        [owner.username, 'Thanks!', id],
        [reader.username, 'welcome', replyId],
      ]);
      // the reply reads back like any comment
      expect(await (await call('GET', `${base}/threads/intro/${replyId}`, { token: owner.token })).text()).toBe(
        'Thanks!',
      );
    });
  }

  it('a topic not opened by the named user, or a comment of another topic, is 404; nothing is stored', async () => {
    const owner = await makeUser();
    const other = await makeUser();
    const base = await resource(owner, 'vis/docs');
    expect((await call('PUT', `${base}/threads/intro`, { token: owner.token })).status).toBe(201);
    expect((await call('PUT', `${base}/threads/second`, { token: owner.token })).status).toBe(201);
    const c2 = (await json<{ id: number }>(await msg(owner, `${base}/threads/second`, 'in second'))).id;
    expect((await msg(owner, `${base}/threads/@${other.username}~intro/msg`, 'x')).status).toBe(404);
    expect((await msg(owner, `${base}/threads/@${owner.username}~nosuch/msg`, 'x')).status).toBe(404);
    expect((await msg(owner, `${base}/threads/@nosuchuser_xyz~intro/msg`, 'x')).status).toBe(404);
    expect((await msg(owner, `${base}/threads/@${owner.username}~intro/comments/${c2}/msg`, 'x')).status).toBe(404);
    expect((await msg(owner, `${base}/threads/@${owner.username}~intro/comments/999999999/msg`, 'x')).status).toBe(404);
    expect(await comments(owner, base, 'intro')).toEqual([]);
  });

  it('a resource the caller cannot read is 404', async () => {
    const owner = await makeUser();
    const stranger = await makeUser();
    for (const collection of ['vis/docs', 'vis/grids', 'vis/mails']) {
      const base = await resource(owner, collection);
      expect((await call('PUT', `${base}/threads/intro`, { token: owner.token })).status).toBe(201);
      const theirs = `/v1/users/${owner.username}/${base.slice(4)}`;
      expect((await msg(stranger, `${theirs}/threads/@${owner.username}~intro/msg`, 'x')).status, collection).toBe(404);
      expect((await call('GET', `${theirs}/threads`, { token: stranger.token })).status, collection).toBe(404);
    }
  });

  it('bad input: malformed reference or comment id 400, empty 400, too long 413, not text 415', async () => {
    const owner = await makeUser();
    const base = await resource(owner, 'vis/grids');
    expect((await call('PUT', `${base}/threads/intro`, { token: owner.token })).status).toBe(201);
    const ref = `@${owner.username}~intro`;
    expect((await msg(owner, `${base}/threads/intro/msg`, 'x')).status).toBe(400);
    expect((await msg(owner, `${base}/threads/${encodeURIComponent('@X~intro')}/msg`, 'x')).status).toBe(400);
    expect((await msg(owner, `${base}/threads/${ref}/comments/abc/msg`, 'x')).status).toBe(400);
    expect((await msg(owner, `${base}/threads/${ref}/msg`, '  \n')).status).toBe(400);
    expect((await msg(owner, `${base}/threads/${ref}/msg`, 'x'.repeat(16 * 1024 + 1))).status).toBe(413);
    expect((await msg(owner, `${base}/threads/${ref}/msg`, '{}', 'application/json')).status).toBe(415);
    expect(await comments(owner, base, 'intro')).toEqual([]);
  });

  it('documents with comments disabled refuse (403)', async () => {
    const owner = await makeUser();
    const base = await resource(owner, 'vis/docs');
    expect((await call('PUT', `${base}/threads/intro`, { token: owner.token })).status).toBe(201);
    expect((await call('POST', `${base}/config/comments`, { token: owner.token, text: 'false' })).status).toBe(204);
    expect((await msg(owner, `${base}/threads/@${owner.username}~intro/msg`, 'x')).status).toBe(403);
  });

  it('groups: members comment and reply by reference; strangers get 404', async () => {
    const w = await group();
    const topic = unique('t').slice(0, 30);
    expect((await call('PUT', `${w.path}/threads/${topic}`, { token: w.admin.token })).status).toBe(201);
    const ref = `@${w.admin.username}~${topic}`;
    const c = await msg(w.member, `${w.path}/threads/${ref}`, 'from a member');
    expect(c.status).toBe(201);
    const id = (await json<{ id: number }>(c)).id;
    expect((await msg(w.founder, `${w.path}/threads/${ref}/comments/${id}/msg`, 'reply')).status).toBe(201);
    expect((await msg(w.stranger, `${w.path}/threads/${ref}`, 'x')).status).toBe(404);
    expect((await comments(w.member, w.path, topic)).map((x) => x.reply_to)).toEqual([null, id]);
  });

  it('removing a comment removes the replies below it', async () => {
    const owner = await makeUser();
    const base = await resource(owner, 'vis/docs');
    expect((await call('PUT', `${base}/threads/intro`, { token: owner.token })).status).toBe(201);
    const ref = `@${owner.username}~intro`;
    const id = (await json<{ id: number }>(await msg(owner, `${base}/threads/${ref}`, 'parent'))).id;
    await msg(owner, `${base}/threads/${ref}/comments/${id}/msg`, 'child');
    await msg(owner, `${base}/threads/${ref}`, 'sibling');
    expect((await call('DELETE', `${base}/threads/intro/${id}`, { token: owner.token })).status).toBe(204);
    expect((await comments(owner, base, 'intro')).map((c) => c.text)).toEqual(['sibling']);
  });
});
