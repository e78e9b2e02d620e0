// D1 read replication through the Sessions API: each request's D1 work runs in
// one session, its bookmark is answered in x-d1-bookmark and accepted back. Locally there
// are no replicas, so these tests check the plumbing: headers, the round trip of the
// bookmark, read-your-writes with it, and the start of sessions without one.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { dbFor, DbSession } from '../../../src/core/context';
import { requestSession } from '../../../src/core/session';
import { call, makeUser } from '../helpers';

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** An env whose DB records the start of every session opened on it. */
function recordingEnv(): { env: Env; starts: unknown[] } {
  const starts: unknown[] = [];
  const DB = new Proxy(env.DB, {
    get(target, prop) {
      if (prop === 'withSession') return (start: unknown) => (starts.push(start), target.withSession(start as string));
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { env: { ...env, DB } as Env, starts };
}

const roundTrips = (res: Response) =>
  Number(/d1;desc="(\d+) round trips"/.exec(res.headers.get('Server-Timing') ?? '')?.[1] ?? NaN);

describe('D1 sessions', () => {
  it('every answer that ran D1 queries carries its session bookmark in x-d1-bookmark', async () => {
    const u = await makeUser();
    const created = await call('PUT', '/v1/vis/docs/booked', { token: u.token });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-d1-bookmark')).toMatch(BOOKMARK);
    const read = await call('GET', '/v1/vis/docs/booked', { token: u.token });
    expect(read.status).toBe(200);
    expect(read.headers.get('x-d1-bookmark')).toMatch(BOOKMARK);
    // Errors that read D1 carry it too.
    const missing = await call('GET', '/v1/vis/docs/nosuchdoc', { token: u.token });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-d1-bookmark')).toMatch(BOOKMARK);
  });

  it('an answer that ran no D1 query carries no bookmark, and says 0 round trips', async () => {
    const res = await call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-d1-bookmark')).toBeNull();
    expect(roundTrips(res)).toBe(0);
    const unknown = await call('GET', '/v1/no/such/route');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-d1-bookmark')).toBeNull();
    expect(roundTrips(unknown)).toBe(0);
  });

  it('a bookmark sent back is accepted, and the next bookmark is never older (round trip)', async () => {
    const u = await makeUser();
    const first = await call('PUT', '/v1/vis/docs/trip', { token: u.token });
    const b1 = first.headers.get('x-d1-bookmark')!;
    const written = await call('POST', '/v1/vis/docs/trip/content', {
      token: u.token,
      text: 'one',
      headers: { 'x-d1-bookmark': b1 },
    });
    expect(written.status).toBe(204);
    const b2 = written.headers.get('x-d1-bookmark')!;
    expect(b2).toMatch(BOOKMARK);
    expect(b2 >= b1).toBe(true); // fixed-width hex: later bookmarks sort after earlier ones
    const read = await call('GET', '/v1/vis/docs/trip/content', { token: u.token, headers: { 'x-d1-bookmark': b2 } });
    expect(read.status).toBe(200);
    expect(read.headers.get('x-d1-bookmark')! >= b2).toBe(true);
  });

  it('a client reads its own write across two requests with the bookmark', async () => {
    const u = await makeUser();
    await call('PUT', '/v1/vis/docs/ryw', { token: u.token });
    const w = await call('POST', '/v1/vis/docs/ryw/content', { token: u.token, text: 'fresh value' });
    expect(w.status).toBe(204);
    const read = await call('GET', '/v1/vis/docs/ryw/content', {
      token: u.token,
      headers: { 'x-d1-bookmark': w.headers.get('x-d1-bookmark')! },
    });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe('fresh value');
  });

  it('a malformed bookmark is a 400 that reads and stores nothing', async () => {
    const u = await makeUser();
    await call('PUT', '/v1/vis/docs/badmark', { token: u.token });
    await call('POST', '/v1/vis/docs/badmark/content', { token: u.token, text: 'kept' });
    for (const bad of [
      'nonsense',
      '',
      '00000000-00000005-00000000',
      '00000000-00000005-00000000-' + 'g'.repeat(32),
      'x'.repeat(5000),
    ]) {
      const w = await call('POST', '/v1/vis/docs/badmark/content', {
        token: u.token,
        text: 'overwritten',
        headers: { 'x-d1-bookmark': bad },
      });
      expect(w.status, bad).toBe(400);
      const body = (await w.json()) as { status: number; message: string };
      expect(body.status).toBe(400);
      expect(body.message).toContain('x-d1-bookmark');
      expect(w.headers.get('x-d1-bookmark')).toBeNull();
      expect(roundTrips(w)).toBe(0);
      const r = await call('GET', '/v1/vis/docs/badmark/content', {
        token: u.token,
        headers: { 'x-d1-bookmark': bad },
      });
      expect(r.status).toBe(400);
    }
    const head = await call('HEAD', '/v1/vis/docs/badmark/content', {
      token: u.token,
      headers: { 'x-d1-bookmark': 'nonsense' },
    });
    expect(head.status).toBe(400);
    expect(await (await call('GET', '/v1/vis/docs/badmark/content', { token: u.token })).text()).toBe('kept');
  });

  it('requests without a bookmark start first-unconstrained for GET and HEAD, first-primary otherwise; a bookmark starts the session', async () => {
    const { env: rec, starts } = recordingEnv();
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])
      requestSession(new Request('http://x/v1/whoami', { method }), rec);
    expect(starts).toEqual([
      'first-unconstrained',
      'first-unconstrained',
      'first-primary',
      'first-primary',
      'first-primary',
      'first-primary',
    ]);
    const mark = '00000000-00000005-00000000-' + '0'.repeat(32);
    requestSession(new Request('http://x/v1/whoami', { headers: { 'x-d1-bookmark': mark } }), rec);
    expect(starts.at(-1)).toBe(mark);
  });

  it('work outside requests (scheduled, email, Durable Objects) gets its own session, starting at the primary', async () => {
    const { env: rec, starts } = recordingEnv();
    const a = dbFor(rec);
    const b = dbFor(rec);
    expect(a).not.toBe(b); // a session per unit of work, never one shared per isolate
    expect(starts).toEqual(['first-primary', 'first-primary']);
    const s = new DbSession(env);
    expect(s.bookmark()).toBeNull();
    await s.db.run('select 1');
    expect(s.roundTrips).toBe(1);
    expect(s.bookmark()).toMatch(BOOKMARK);
  });
});
