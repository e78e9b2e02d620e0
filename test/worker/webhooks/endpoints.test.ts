// Webhook endpoints through the Worker: creation (the secret once), url rules, event types,
// the cap of 20, changes, listing, GraphQL me.webhooks, organisation endpoints for founders
// and admins only, 404 for everyone else on every route.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call, makeUser, unique, type TestUser } from '../helpers';
import { orgWorld, person } from '../groups/fixtures';

const HOOK = 'https://steps.jobs.test/echo';
const json = async <T = any>(res: Response): Promise<T> => (await res.json()) as T;

const put = (u: TestUser, path: string, body: unknown) => call('PUT', path, { token: u.token, json: body });

/** Every route of one endpoint, as [method, path]. */
function routesOf(base: string, name: string): [string, string, unknown?][] {
  return [
    ['GET', `${base}/${name}`],
    ['POST', `${base}/${name}`, { description: 'x' }],
    ['DELETE', `${base}/${name}`],
    ['POST', `${base}/${name}/rotate`],
    ['POST', `${base}/${name}/test`],
    ['GET', `${base}/${name}/deliveries`],
    ['GET', `${base}/${name}/deliveries/1`],
    ['POST', `${base}/${name}/deliveries/1/redeliver`],
  ];
}

describe('webhook endpoints', () => {
  it('PUT creates an endpoint and shows its secret (whsec_ + base64 of 32 bytes) once; 409 when it exists', async () => {
    const u = await makeUser();
    const res = await put(u, '/v1/admin/webhooks/main', { url: HOOK, events: ['run.failed', 'document.created'] });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({ name: 'main', url: HOOK, events: ['run.failed', 'document.created'], enabled: true });
    expect(atob(body.secret.slice('whsec_'.length))).toHaveLength(32);
    const read = await json(await call('GET', '/v1/admin/webhooks/main', { token: u.token }));
    expect(read.secret).toBeUndefined();
    expect(read).toMatchObject({ name: 'main', description: '' });
    expect((await put(u, '/v1/admin/webhooks/main', { url: HOOK, events: ['*'] })).status).toBe(409);
    const list = await json(await call('GET', '/v1/admin/webhooks', { token: u.token }));
    expect(list.map((h: { name: string }) => h.name)).toEqual(['main']);
  });

  it('url rules: https only, no credentials, no loopback, private, link-local or platform address', async () => {
    const u = await makeUser();
    for (const url of [
      'http://example.com/hook',
      'http://127.0.0.1:9999/hook', // WEBHOOKS_ALLOW_LOOPBACK is not set here
      'https://user:pw@example.com/hook',
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/hook',
      'https://localhost/hook',
      `${env.PUBLIC_ORIGIN.replace('http:', 'https:')}/hook`,
      'ftp://example.com/x',
      'not a url',
    ]) {
      const res = await put(u, `/v1/admin/webhooks/${unique('h')}`, { url, events: ['*'] });
      expect(res.status, url).toBe(400);
      expect((await json(res)).message).toMatch(/refused/);
    }
    // And on change.
    expect((await put(u, '/v1/admin/webhooks/ok', { url: HOOK, events: ['*'] })).status).toBe(201);
    const res = await call('POST', '/v1/admin/webhooks/ok', { token: u.token, json: { url: 'https://192.168.0.1/' } });
    expect(res.status).toBe(400);
  });

  it('an unknown event type is refused naming it; bad names and bodies are 400', async () => {
    const u = await makeUser();
    const res = await put(u, '/v1/admin/webhooks/x', { url: HOOK, events: ['run.failed', 'run.exploded'] });
    expect(res.status).toBe(400);
    expect((await json(res)).message).toMatch(/run\.exploded/);
    expect((await put(u, '/v1/admin/webhooks/x', { url: HOOK, events: [] })).status).toBe(400);
    expect((await put(u, '/v1/admin/webhooks/x', { url: HOOK })).status).toBe(400);
    expect((await put(u, '/v1/admin/webhooks/Bad%20Name', { url: HOOK, events: ['*'] })).status).toBe(400);
    expect((await put(u, '/v1/admin/webhooks/x', { url: HOOK, events: ['*'], secret: 's' })).status).toBe(400);
  });

  it('at most 20 endpoints per user: the 21st is 409', async () => {
    const u = await makeUser();
    for (let i = 0; i < 20; i++)
      expect((await put(u, `/v1/admin/webhooks/h${i}`, { url: HOOK, events: ['*'] })).status).toBe(201);
    const res = await put(u, '/v1/admin/webhooks/h20', { url: HOOK, events: ['*'] });
    expect(res.status).toBe(409);
    expect((await json(res)).message).toMatch(/20/);
  });

  it('POST changes url, events, description and enabled; DELETE removes it', async () => {
    const u = await makeUser();
    await put(u, '/v1/admin/webhooks/c', { url: HOOK, events: ['*'] });
    const res = await call('POST', '/v1/admin/webhooks/c', {
      token: u.token,
      json: { events: ['ping', 'mail.sent'], description: 'ops', enabled: false },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ events: ['ping', 'mail.sent'], description: 'ops', enabled: false });
    expect((await call('POST', '/v1/admin/webhooks/c/test', { token: u.token })).status).toBe(409);
    expect((await call('DELETE', '/v1/admin/webhooks/c', { token: u.token })).status).toBe(204);
    expect((await call('GET', '/v1/admin/webhooks/c', { token: u.token })).status).toBe(404);
  });

  it('test and redeliver answer the id of the delivery they queued', async () => {
    const u = await makeUser();
    await put(u, '/v1/admin/webhooks/t', { url: HOOK, events: ['document.created'] });
    const test = await call('POST', '/v1/admin/webhooks/t/test', { token: u.token });
    expect(test.status).toBe(202);
    const queued = await json<{ status: string; delivery: number }>(test);
    expect(queued).toEqual({ status: 'queued', delivery: expect.any(Number) });
    const d = await call('GET', `/v1/admin/webhooks/t/deliveries/${queued.delivery}`, { token: u.token });
    expect(await json(d)).toMatchObject({ id: queued.delivery, type: 'ping' });
    const again = await call('POST', `/v1/admin/webhooks/t/deliveries/${queued.delivery}/redeliver`, {
      token: u.token,
    });
    expect(again.status).toBe(202);
    expect(await json(again)).toEqual({ status: 'queued', delivery: queued.delivery });
  });

  it('rotate answers a new secret', async () => {
    const u = await makeUser();
    const { secret } = await json(await put(u, '/v1/admin/webhooks/r', { url: HOOK, events: ['*'] }));
    const res = await call('POST', '/v1/admin/webhooks/r/rotate', { token: u.token });
    expect(res.status).toBe(200);
    const next = (await json(res)).secret;
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
  });

  it('GraphQL me { webhooks } lists the caller’s endpoints without secrets', async () => {
    const u = await makeUser();
    await put(u, '/v1/admin/webhooks/g', { url: HOOK, events: ['run.succeeded'] });
    const res = await call('POST', '/gql', {
      token: u.token,
      json: { query: '{ me { webhooks { name url events enabled } } }' },
    });
    expect((await json(res)).data.me.webhooks).toEqual([
      { name: 'g', url: HOOK, events: ['run.succeeded'], enabled: true },
    ]);
  });

  it('strangers get 404 on every route of someone else’s endpoint (they only ever see their own)', async () => {
    const [owner, stranger] = await Promise.all([makeUser(), makeUser()]);
    await put(owner, '/v1/admin/webhooks/mine', { url: HOOK, events: ['*'] });
    for (const [method, path, body] of routesOf('/v1/admin/webhooks', 'mine')) {
      const res = await call(method, path, { token: stranger.token, json: body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(await json(await call('GET', '/v1/admin/webhooks', { token: stranger.token }))).toEqual([]);
    expect((await call('GET', '/v1/admin/webhooks/mine', { token: owner.token })).status).toBe(200);
  });

  it('organisation endpoints: founders and admins manage them; members and strangers get 404 on every route', async () => {
    const w = await orgWorld();
    const base = `/v1/admin/orgs/${w.org}/webhooks`;
    expect((await put(w.account, `${base}/org`, { url: HOOK, events: ['member.joined'] })).status).toBe(201);
    expect((await call('GET', `${base}/org`, { token: w.orgAdmin.token })).status).toBe(200);
    expect((await put(w.orgAdmin, `${base}/second`, { url: HOOK, events: ['*'] })).status).toBe(201);
    const outsider = await person('x');
    for (const u of [w.orgMember, w.member, outsider]) {
      expect((await call('GET', base, { token: u.token })).status).toBe(404);
      expect((await put(u, `${base}/theirs`, { url: HOOK, events: ['*'] })).status).toBe(404);
      for (const [method, path, body] of routesOf(base, 'org')) {
        const res = await call(method, path, { token: u.token, json: body });
        expect(res.status, `${u.username} ${method} ${path}`).toBe(404);
      }
    }
    // The organisation's endpoints are not the admin's own.
    expect(await json(await call('GET', '/v1/admin/webhooks', { token: w.orgAdmin.token }))).toEqual([]);
  });
});
