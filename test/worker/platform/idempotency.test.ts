/**
 * Idempotency-Key on the routes that act (core/idempotency.ts): a retry with the first request's key and body answers
 * the first answer again and does nothing twice; another body or route is 422; two requests at once never both act;
 * keys are per account; a 5xx lets a retry act; rows past 24 hours go with the retention tick; without the header
 * nothing changes. Everything through the Worker on the real local D1, R2 and Durable Objects.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sweepRetention } from '../../../src/accounts/retention';
import { RETENTION_DEFAULTS } from '../../../src/accounts/retention-plan';
import { keyMaterial, requestHash } from '../../../src/core/idempotency';
import { newMail, outboxTo, sender, untilReady } from '../mail/fixtures';
import { makeJob } from '../jobs/fixtures';
import { until } from '../../client';
import { call, makeUser, OPS, unique, withoutRequestId, type CallOptions, type TestUser } from '../helpers';

// Runs and sends wait for their end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

const J = '/v1/code/jobs';
const HOUR = 3600_000;

const keyed = (key: string, o: CallOptions = {}): CallOptions => ({
  ...o,
  headers: { ...o.headers, 'Idempotency-Key': key },
});

const count = async (sql: string, ...args: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...args)
    .first<number>('n')) ?? 0;

const userId = async (u: TestUser) =>
  (await env.DB.prepare(`SELECT id FROM users WHERE username = ?`).bind(u.username).first<number>('id'))!;

const runsOf = async (u: TestUser, job: string) =>
  ((await (await call('GET', `${J}/${job}/runs`, { token: u.token })).json()) as { name: string }[]).map((r) => r.name);

const keysOf = async (u: TestUser) =>
  count(`SELECT count(*) AS n FROM idempotency_keys WHERE account_id = ?`, await userId(u));

/** Status, body (without its request id) and the headers a replay must repeat. */
async function answerOf(res: Response) {
  return {
    status: res.status,
    body: withoutRequestId(await res.text()),
    run: res.headers.get('X-Run-Id'),
    type: res.headers.get('Content-Type'),
    location: res.headers.get('Location'),
  };
}

afterEach(async () => {
  await call('POST', '/v1/ops/clock', { token: OPS, json: { offset_ms: 0 } });
});

describe('a retry with the same Idempotency-Key and body answers the first answer and does nothing twice', () => {
  it('a trigger: same status, output and X-Run-Id; one run exists', async () => {
    const u = await makeUser();
    await makeJob(u, 'once', `export default { async run(input) { return 'ran ' + Math.random(); } }`);
    const key = crypto.randomUUID();
    const opts = keyed(key, { token: u.token, json: { n: 1 } });
    const first = await call('POST', `${J}/once/data`, opts);
    expect(first.status).toBe(200);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const a = await answerOf(first);
    const again = await call('POST', `${J}/once/data`, opts);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await answerOf(again)).toEqual(a);
    expect(await runsOf(u, 'once')).toEqual([a.run]);
  });

  it('a new key costs a trigger no D1 round trip of its own: the claim rides with the load of the job', async () => {
    const u = await makeUser();
    await makeJob(u, 'cheap', `export default { async run() { return 'ok'; } }`);
    const trips = (res: Response) => res.headers.get('Server-Timing');
    const plain = await call('POST', `${J}/cheap/data`, { token: u.token, json: {} });
    const fresh = await call('POST', `${J}/cheap/data`, keyed(unique('k'), { token: u.token, json: {} }));
    expect(fresh.status).toBe(200);
    expect(trips(fresh)).toBe(trips(plain));
  });

  it('a trigger with Prefer: respond-async: the same 202, run id, Location and X-Run-Id', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'later',
      `export default { async run() { await new Promise((r) => setTimeout(r, 300)); return 'x'; } }`,
    );
    const opts = keyed(unique('k'), { token: u.token, json: {}, headers: { Prefer: 'respond-async' } });
    const first = await call('POST', `${J}/later/data`, opts);
    expect(first.status).toBe(202);
    const a = await answerOf(first);
    expect(JSON.parse(a.body)).toMatchObject({ run: a.run, status: 'processing' });
    const again = await call('POST', `${J}/later/data`, opts);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await answerOf(again)).toEqual(a);
    expect(await runsOf(u, 'later')).toEqual([a.run]);
  });

  it('a send: the same 202 and send id; one message goes out', async () => {
    const u = await sender();
    const { path } = await newMail(u, { content: 'hello', subject: 'S' });
    const key = crypto.randomUUID();
    const first = await call('POST', `${path}/status`, keyed(key, { token: u.token, text: 'test' }));
    expect(first.status).toBe(202);
    const a = await answerOf(first);
    await untilReady(u, path);
    const again = await call('POST', `${path}/status`, keyed(key, { token: u.token, text: 'test' }));
    expect(await answerOf(again)).toEqual(a);
    expect(JSON.parse(a.body).id).toMatch(/./);
    await untilReady(u, path);
    expect(await outboxTo(u.email)).toHaveLength(1);
  });

  it('a webhook test queues one ping; a redelivery is asked for once', async () => {
    const u = await makeUser();
    const hook = '/v1/admin/webhooks/w';
    const made = await call('PUT', hook, {
      token: u.token,
      json: { url: 'https://steps.jobs.test/echo', events: ['*'] },
    });
    expect(made.status).toBe(201);
    const test = keyed(unique('k'), { token: u.token });
    expect((await call('POST', `${hook}/test`, test)).status).toBe(202);
    const again = await call('POST', `${hook}/test`, test);
    expect(again.status).toBe(202);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    const id = await userId(u);
    expect(await count(`SELECT count(*) AS n FROM webhook_events WHERE owner_id = ? AND type = 'ping'`, id)).toBe(1);

    const delivery = (await env.DB.prepare(
      `SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.owner_id = ?`,
    )
      .bind(id)
      .first<number>('id'))!;
    const redeliver = keyed(unique('k'), { token: u.token });
    expect((await call('POST', `${hook}/deliveries/${delivery}/redeliver`, redeliver)).status).toBe(202);
    // What the first marked is undone by hand: a second redelivery would mark it again.
    await env.DB.prepare(`UPDATE webhook_deliveries SET manual = 0 WHERE id = ?`).bind(delivery).run();
    const replay = await call('POST', `${hook}/deliveries/${delivery}/redeliver`, redeliver);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await count(`SELECT manual AS n FROM webhook_deliveries WHERE id = ?`, delivery)).toBe(0);
  });

  it('a token: the same token again, one token row', async () => {
    const u = await makeUser();
    const opts = keyed(crypto.randomUUID(), {
      json: { username: u.username, password: u.password, token_name: 'retry' },
    });
    const first = await call('POST', '/v1/token', opts);
    expect(first.status).toBe(200);
    const a = await answerOf(first);
    const again = await call('POST', '/v1/token', opts);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await answerOf(again)).toEqual(a);
    const id = await userId(u);
    expect(await count(`SELECT count(*) AS n FROM tokens WHERE user_id = ? AND name = 'retry'`, id)).toBe(1);
    const { token } = JSON.parse(a.body) as { token: string };
    expect(await (await call('GET', '/v1/whoami', { token })).text()).toBe(u.username);
    // The stored answer does not hold the token in the clear.
    const stored = await env.DB.prepare(`SELECT answer FROM idempotency_keys WHERE account_id = ?`)
      .bind(id)
      .first<string>('answer');
    expect(stored).not.toContain(token);
    expect(atob(stored!)).not.toContain(token);
  });

  it('a create through PUT: 201 again, not 409; the resource exists once', async () => {
    const u = await makeUser();
    const doc = `/v1/vis/docs/${unique('d')}`;
    const opts = keyed(unique('k'), { token: u.token });
    const first = await call('PUT', doc, opts);
    expect(first.status).toBe(201);
    const a = await answerOf(first);
    const again = await call('PUT', doc, opts);
    expect(await answerOf(again)).toEqual(a);
    expect((await call('PUT', doc, { token: u.token })).status).toBe(409);
    expect((await (await call('GET', '/v1/vis/docs', { token: u.token })).json()) as unknown[]).toHaveLength(1);
  });
});

describe('a key is for one request', () => {
  it('the same key with another body is 422 idempotency_key_reused, and nothing is acted', async () => {
    const u = await makeUser();
    await makeJob(u, 'j', `export default { async run() { return 'ok'; } }`);
    const key = unique('k');
    expect((await call('POST', `${J}/j/data`, keyed(key, { token: u.token, json: { a: 1 } }))).status).toBe(200);
    const other = await call('POST', `${J}/j/data`, keyed(key, { token: u.token, json: { a: 2 } }));
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    expect(await runsOf(u, 'j')).toHaveLength(1);
  });

  it('the same key on another route is 422, and nothing is created', async () => {
    const u = await makeUser();
    const key = unique('k');
    const a = `/v1/vis/docs/${unique('d')}`;
    const b = `/v1/vis/docs/${unique('d')}`;
    expect((await call('PUT', a, keyed(key, { token: u.token }))).status).toBe(201);
    const other = await call('PUT', b, keyed(key, { token: u.token }));
    expect(other.status).toBe(422);
    expect(((await other.json()) as { message: string }).message).toContain(`PUT ${a}`);
    expect((await call('GET', b, { token: u.token })).status).toBe(404);
  });

  it('two requests at once with one key: exactly one acts, the other is 409 in progress or its replay', async () => {
    const u = await makeUser();
    const slow = `export default { async run() { await new Promise((r) => setTimeout(r, 3000)); return 'done ' + Math.random(); } }`;
    await makeJob(u, 'slow', slow);
    const opts = keyed(unique('k'), { token: u.token, json: {} });
    // Sent together: whichever claims first acts.
    const both = await Promise.all([call('POST', `${J}/slow/data`, opts), call('POST', `${J}/slow/data`, opts)]);
    const statuses = both.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([200, 409]).toContain(statuses[1]);
    expect(await runsOf(u, 'slow')).toHaveLength(1);

    // One while the first runs (its claim is pending): 409 with Retry-After; after it, the replay.
    const later = keyed(unique('k'), { token: u.token, json: {} });
    const first = call('POST', `${J}/slow/data`, later);
    const id = await userId(u);
    await until('the claim', async () =>
      count(`SELECT count(*) AS n FROM idempotency_keys WHERE account_id = ? AND status IS NULL`, id),
    );
    const busy = await call('POST', `${J}/slow/data`, later);
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ status: 409, code: 'idempotency_in_progress' });
    expect(busy.headers.get('Retry-After')).toBe('1');
    const done = await answerOf(await first);
    expect(done.status).toBe(200);
    expect(await answerOf(await call('POST', `${J}/slow/data`, later))).toEqual(done);
    expect(await runsOf(u, 'slow')).toHaveLength(2);
  });

  it('a claim whose request never answered is never acted on again: after an hour it answers not kept', async () => {
    const u = await makeUser();
    const key = unique('k');
    const doc = `/v1/vis/docs/${unique('d')}`;
    const id = await userId(u);
    const m = await keyMaterial(key, id);
    const body = await requestHash(m, new Uint8Array(0));
    const insert = (ago: number) =>
      env.DB.prepare(
        `INSERT OR REPLACE INTO idempotency_keys (account_id, key_hash, route, request_hash, created_on) VALUES (?, ?, ?, ?, ?)`,
      ).bind(id, m.hash, `PUT ${doc}`, body, new Date(Date.now() - ago).toISOString());
    await insert(10 * 60_000).run();
    expect((await call('PUT', doc, keyed(key, { token: u.token }))).status).toBe(409);
    await insert(2 * HOUR).run();
    const lost = await call('PUT', doc, keyed(key, { token: u.token }));
    expect(lost.status).toBe(409);
    expect(await lost.json()).toMatchObject({ code: 'idempotency_answer_not_kept' });
    expect((await call('GET', doc, { token: u.token })).status).toBe(404); // nothing acted
    // Past 24 hours the key is free again.
    await insert(25 * HOUR).run();
    expect((await call('PUT', doc, keyed(key, { token: u.token }))).status).toBe(201);
  });

  it('an answer larger than 64 KiB is sent whole; its replay is 409 idempotency_answer_not_kept naming the run', async () => {
    const u = await makeUser();
    await makeJob(u, 'big', `export default { async run() { return 'y'.repeat(100 * 1024); } }`);
    const opts = keyed(unique('k'), { token: u.token, json: {} });
    const first = await call('POST', `${J}/big/data`, opts);
    expect(first.status).toBe(200);
    expect((await first.text()).length).toBe(100 * 1024);
    const again = await call('POST', `${J}/big/data`, opts);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'idempotency_answer_not_kept', answered: 200 });
    expect(again.headers.get('X-Run-Id')).toBe(first.headers.get('X-Run-Id'));
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await runsOf(u, 'big')).toHaveLength(1);
  });

  it('keys are per account: the same key by two users acts for each', async () => {
    const [u, v] = [await makeUser(), await makeUser()];
    const key = unique('k');
    const doc = unique('d');
    expect((await call('PUT', `/v1/vis/docs/${doc}`, keyed(key, { token: u.token }))).status).toBe(201);
    const second = await call('PUT', `/v1/vis/docs/${doc}`, keyed(key, { token: v.token }));
    expect(second.status).toBe(201);
    expect(second.headers.get('Idempotent-Replayed')).toBeNull();
  });

  it('a key that is empty, longer than 255 or not printable ASCII is 400, and nothing is created', async () => {
    const u = await makeUser();
    const doc = `/v1/vis/docs/${unique('d')}`;
    for (const key of ['', 'x'.repeat(256), 'tab\tkey'])
      expect((await call('PUT', doc, keyed(key, { token: u.token }))).status, JSON.stringify(key)).toBe(400);
    expect((await call('GET', doc, { token: u.token })).status).toBe(404);
    expect((await call('PUT', doc, keyed('x'.repeat(255), { token: u.token }))).status).toBe(201);
  });

  it('a 5xx keeps nothing: the retry acts again (a failed run, then another run)', async () => {
    const u = await makeUser();
    await makeJob(u, 'fails', `export default { async run() { throw new Error('no'); } }`);
    const opts = keyed(unique('k'), { token: u.token, json: {} });
    const first = await call('POST', `${J}/fails/data`, opts);
    expect(first.status).toBe(502);
    const again = await call('POST', `${J}/fails/data`, opts);
    expect(again.status).toBe(502);
    expect(again.headers.get('Idempotent-Replayed')).toBeNull();
    expect(again.headers.get('X-Run-Id')).not.toBe(first.headers.get('X-Run-Id'));
    expect(await runsOf(u, 'fails')).toHaveLength(2);
    expect(await keysOf(u)).toBe(0);
  });

  it('a 4xx is kept like any answer: a retry gets the same 409', async () => {
    const u = await makeUser();
    const doc = `/v1/vis/docs/${unique('d')}`;
    expect((await call('PUT', doc, { token: u.token })).status).toBe(201);
    const opts = keyed(unique('k'), { token: u.token });
    expect((await call('PUT', doc, opts)).status).toBe(409);
    const again = await call('PUT', doc, opts);
    expect(again.status).toBe(409);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
  });
});

describe('24 hours', () => {
  it('the retention tick removes keys older than 24 hours, and a key past them acts again', async () => {
    const u = await makeUser();
    const doc = `/v1/vis/docs/${unique('d')}`;
    const key = unique('k');
    expect((await call('PUT', doc, keyed(key, { token: u.token }))).status).toBe(201);
    const s = { ...RETENTION_DEFAULTS, tick_ms: 60_000 };
    await sweepRetention(env, Date.now() + 23 * HOUR, s);
    expect(await keysOf(u)).toBe(1);
    // Past 24 hours, before any sweep: the key is free again (here: the doc exists, 409).
    await call('POST', '/v1/ops/clock', { token: OPS, json: { offset_ms: 25 * HOUR } });
    const late = await call('PUT', doc, keyed(key, { token: u.token }));
    expect(late.status).toBe(409);
    expect(late.headers.get('Idempotent-Replayed')).toBeNull();
    const result = await sweepRetention(env, Date.now() + 50 * HOUR, s);
    expect(result!.removed.idempotency_keys).toBeGreaterThanOrEqual(1);
    expect(await keysOf(u)).toBe(0);
  });
});

describe('without the header nothing changes', () => {
  it('a re-create is 409 and a trigger runs each time, with no key stored', async () => {
    const u = await makeUser();
    await makeJob(u, 'plain', `export default { async run() { return 'ok'; } }`);
    const doc = `/v1/vis/docs/${unique('d')}`;
    expect((await call('PUT', doc, { token: u.token })).status).toBe(201);
    expect((await call('PUT', doc, { token: u.token })).status).toBe(409);
    for (let i = 0; i < 2; i++) {
      const res = await call('POST', `${J}/plain/data`, { token: u.token, json: {} });
      expect(res.status).toBe(200);
      expect(res.headers.get('Idempotent-Replayed')).toBeNull();
    }
    expect(await runsOf(u, 'plain')).toHaveLength(2);
    expect(await keysOf(u)).toBe(0);
  });

  it('on a route that does not act the header is ignored', async () => {
    const u = await makeUser();
    const doc = `/v1/vis/docs/${unique('d')}`;
    expect((await call('PUT', doc, { token: u.token })).status).toBe(201);
    const opts = keyed(unique('k'), { token: u.token, text: 'v1' });
    expect((await call('POST', `${doc}/content`, opts)).status).toBe(204);
    expect((await call('POST', `${doc}/content`, { ...opts, text: 'v2' })).status).toBe(204);
    expect(await (await call('GET', `${doc}/content`, { token: u.token })).text()).toBe('v2');
    expect(await keysOf(u)).toBe(0);
  });
});
