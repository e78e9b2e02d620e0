// The per-user entries of a document: tags, threads (config/comments) and notification levels.
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser } from '../helpers';
import { names, newDoc, sharedDoc, text } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('tags, threads and notifications (per user)', () => {
  it('tags: PUT adds, DELETE removes, each caller sees their own', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await call('PUT', `${path}/tags/fav`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${path}/tags/+mine`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${path}/tags/star`, { token: u.token })).status).toBe(400);
    expect(await names(await call('GET', `${path}/tags`, { token: u.token }))).toEqual(['+mine', 'fav']);
    expect((await call('DELETE', `${path}/tags/fav`, { token: u.token })).status).toBe(204);
    expect(await names(await call('GET', `${path}/tags`, { token: u.token }))).toEqual(['+mine']);
  });
  it('threads: listed; opening one needs config/comments true (403 otherwise)', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect(await (await call('GET', `${path}/threads`, { token: u.token })).json()).toEqual([]);
    expect((await call('PUT', `${path}/threads/intro`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${path}/threads/intro`, { token: u.token })).status).toBe(409);
    expect(await names(await call('GET', `${path}/threads`, { token: u.token }))).toEqual(['intro']);
    await call('POST', `${path}/config/comments`, { token: u.token, text: 'false' });
    const off = await call('PUT', `${path}/threads/other`, { token: u.token });
    expect(off.status).toBe(403);
    expect(((await off.json()) as { message: string }).message).toMatch(/config\/comments/);
  });
  it('concurrent notification writes by one caller leave one level', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const levels = ['ignore', 'important', 'info', 'important', 'ignore', 'info'];
    const codes = (
      await Promise.all(levels.map((l) => call('POST', `${path}/notifications`, { token: u.token, text: l })))
    ).map((r) => r.status);
    expect(codes.every((c) => c === 204)).toBe(true);
    expect(levels).toContain(await (await call('GET', `${path}/notifications`, { token: u.token })).text());
  });
  it("notifications: info by default, POST sets the caller's level, others 400 and keep it, DELETE resets", async () => {
    const shared = await sharedDoc();
    const { owner, member, path } = shared;
    const theirs = `${shared.theirs}/notifications`;
    expect(await text(await call('GET', `${path}/notifications`, { token: owner.token }))).toEqual({
      status: 200,
      body: 'info',
    });
    for (const level of ['ignore', 'important', 'info', 'important'])
      expect((await call('POST', `${path}/notifications`, { token: owner.token, text: level })).status).toBe(204);
    expect((await call('POST', `${path}/notifications`, { token: owner.token, text: 'loud' })).status).toBe(400);
    expect(await (await call('GET', `${path}/notifications`, { token: owner.token })).text()).toBe('important');
    // per user: a reader has their own level, and it is not part of the document
    expect(await (await call('GET', theirs, { token: member.token })).text()).toBe('info');
    expect((await call('POST', theirs, { token: member.token, text: 'ignore' })).status).toBe(204);
    expect(await (await call('GET', theirs, { token: member.token })).text()).toBe('ignore');
    expect(await (await call('GET', `${path}/notifications`, { token: owner.token })).text()).toBe('important');
    expect((await call('DELETE', `${path}/notifications`, { token: owner.token })).status).toBe(204);
    expect(await (await call('GET', `${path}/notifications`, { token: owner.token })).text()).toBe('info');
  });
});
