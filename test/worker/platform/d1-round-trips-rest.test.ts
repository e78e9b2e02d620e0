// D1 round trips: no endpoint more than three. The less common writes the main
// table (d1-round-trips.test.ts) does not set up: thread messages and replies, answering an
// invite, group pictures, unsubscribe links and bounces. Tokens are warm (cached), as there.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { dbFor } from '../../../src/core/context';
import { unsubscribeToken } from '../../../src/mail/unsubscribe';
import { call, makeUser, unique } from '../helpers';

const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

/** The answer's status and D1 round trips (from Server-Timing), its body read. */
async function measured(method: string, path: string, o: Parameters<typeof call>[2] = {}) {
  const res = await call(method, path, o);
  await res.arrayBuffer();
  const m = /d1;desc="(\d+) round trips"/.exec(res.headers.get('Server-Timing') ?? '');
  return { status: res.status, trips: Number(m?.[1] ?? NaN) };
}

describe('D1 round trips of the less common writes', () => {
  it("a topic's text, a comment by slug and its text, and a reply by id cost at most three round trips", async () => {
    const o = await makeUser({});
    const d = unique('d');
    await call('PUT', `/v1/vis/docs/${d}`, { token: o.token });
    await call('PUT', `/v1/vis/docs/${d}/threads/t1`, { token: o.token });
    const msg = await measured('POST', `/v1/vis/docs/${d}/threads/@${o.username}~t1/msg`, {
      token: o.token,
      text: 'hello',
    });
    expect(msg.status).toBe(204);
    expect(msg.trips).toBeLessThanOrEqual(3);
    const put = await measured('PUT', `/v1/vis/docs/${d}/threads/@${o.username}~t1/comments/c1`, { token: o.token });
    expect(put.status).toBe(201);
    expect(put.trips).toBeLessThanOrEqual(3);
    const text = await measured('POST', `/v1/vis/docs/${d}/threads/@${o.username}~t1/comments/@${o.username}~c1/msg`, {
      token: o.token,
      text: 'a comment',
    });
    expect(text.status).toBe(204);
    expect(text.trips).toBeLessThanOrEqual(3);
    const [first] = (await (await call('GET', `/v1/vis/docs/${d}/threads/t1`, { token: o.token })).json()) as {
      id: number;
    }[];
    const reply = await measured('POST', `/v1/vis/docs/${d}/threads/@${o.username}~t1/comments/${first!.id}/msg`, {
      token: o.token,
      text: 'reply',
    });
    expect(reply.status).toBe(201);
    expect(reply.trips).toBeLessThanOrEqual(3);
  });

  it('answering an invite and uploading, replacing or reading a group picture cost at most three round trips', async () => {
    const o = await makeUser({});
    const m = await makeUser({});
    const g = unique('g');
    await call('PUT', `/v1/admin/groups/${g}`, { token: o.token });
    await call('PUT', `/v1/admin/groups/${g}/roles/members/${m.username}`, { token: o.token });
    await call('GET', '/v1/whoami', { token: m.token }); // a warm token, as in the main table
    for (const [method, path, opts, status] of [
      ['POST', `/v1/admin/invites/@${o.username}~${g}/accept`, { token: m.token, text: 'yes' }, 200],
      ['PUT', `/v1/admin/groups/${g}/profile/picture/image`, { token: o.token, body: PNG, type: 'image/png' }, 201],
      ['POST', `/v1/admin/groups/${g}/profile/picture/image`, { token: o.token, body: PNG, type: 'image/png' }, 204],
      ['GET', `/v1/admin/groups/${g}/profile/picture/image`, { token: o.token }, 200],
    ] as const) {
      const r = await measured(method, path, opts);
      expect(r.status, `${method} ${path}`).toBe(status);
      expect(r.trips, `${method} ${path}`).toBeLessThanOrEqual(3);
    }
  });

  it('an unsubscribe link (GET and one-click POST) and a recorded bounce cost at most three round trips', async () => {
    const o = await makeUser({});
    const owner = (await env.DB.prepare('SELECT id FROM users WHERE username = ?')
      .bind(o.username)
      .first<{ id: number }>())!.id;
    const token = await unsubscribeToken(env, dbFor(env), { mail: 1, owner, email: `${unique('x')}@example.com` });
    for (const method of ['GET', 'POST']) {
      const r = await measured(method, `/v1/mail/unsubscribe/${token}`);
      expect(r.status, method).toBe(200);
      expect(r.trips, method).toBeLessThanOrEqual(3);
    }
    const bounce = await measured('PUT', `/v1/ops/mail/bounces/${unique('b')}@example.com`, {
      token: (env as unknown as { OPS_TOKEN: string }).OPS_TOKEN,
    });
    expect(bounce.status).toBe(204);
    expect(bounce.trips).toBeLessThanOrEqual(3);
  });
});
