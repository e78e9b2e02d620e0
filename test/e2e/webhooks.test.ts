// Webhooks end to end: a real receiver on loopback, every delivery checked with the
// reference verifier (standardwebhooks): order, filtering, the test ping, retries (500
// twice, then 200) driven by the platform clock, Retry-After, 410, redelivery, rotation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base, http, makeUser, opsToken, unique, type E2EUser } from './harness';
import { until } from '../client';
import { Receiver, verify } from './webhooks-receiver';

const receiver = new Receiver();
let user: E2EUser;
const secrets = new Map<string, string>();

async function endpoint(name: string, path: string, events: string[]): Promise<string> {
  const res = await http('PUT', `/v1/admin/webhooks/${name}`, {
    token: user.token,
    json: { url: receiver.url(path), events },
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { secret: string; enabled: boolean; events: string[] };
  expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(body).toMatchObject({ enabled: true, events });
  secrets.set(name, body.secret);
  return body.secret;
}

async function createDoc(name: string): Promise<void> {
  expect((await http('PUT', `/v1/vis/docs/${name}`, { token: user.token })).status).toBe(201);
}

interface DeliveryRow {
  id: number;
  event_id: string;
  type: string;
  attempt: number;
  status: string;
  response_code: number | null;
  next_attempt_on: string | null;
}

async function deliveries(name: string): Promise<DeliveryRow[]> {
  const res = await http('GET', `/v1/admin/webhooks/${name}/deliveries`, { token: user.token });
  expect(res.status).toBe(200);
  return (await res.json()) as DeliveryRow[];
}

async function moveClock(offsetMs: number): Promise<void> {
  expect((await http('POST', '/v1/ops/clock', { token: opsToken(), json: { offset_ms: offsetMs } })).status).toBe(204);
}

const tick = () => fetch(`${base()}/__scheduled?cron=${encodeURIComponent('* * * * *')}`);

beforeAll(async () => {
  await receiver.start();
  user = await makeUser({ email: 'hooks@example.com', email_verified: true }, 'wh');
});

afterAll(async () => {
  await moveClock(0);
  await receiver.stop();
});

describe('webhooks', () => {
  it('delivers in order, signed (reference verifier), filtered by event type', async () => {
    await endpoint('all', '/all', ['*']);
    await endpoint('created', '/created', ['document.created']);
    const names = Array.from({ length: 5 }, (_, i) => `${unique('d')}_${i}`);
    for (const n of names) await createDoc(n);
    expect((await http('DELETE', `/v1/vis/docs/${names[0]}`, { token: user.token })).status).toBe(204);
    await until('6 events at /all', () => receiver.at('/all').length >= 6);
    await until('5 events at /created', () => receiver.at('/created').length >= 5);
    const all = receiver.at('/all');
    for (const r of all) verify(secrets.get('all')!, r);
    for (const r of receiver.at('/created')) verify(secrets.get('created')!, r);
    expect(all.map((r) => `${r.event.type} ${r.event.data.name}`)).toEqual([
      ...names.map((n) => `document.created ${n}`),
      `document.deleted ${names[0]}`,
    ]);
    expect(receiver.at('/created').map((r) => r.event.type)).toEqual(Array(5).fill('document.created'));
    expect(all[0]!.headers['content-type']).toBe('application/json');
    expect(all[0]!.headers['user-agent']).toMatch(/edge-platform/);
    expect(all[0]!.event.data).toMatchObject({ owner: user.username, kind: 'doc' });
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    const log = await deliveries('all');
    expect(log.map((d) => d.status)).toEqual(Array(6).fill('delivered'));
    expect(log[0]!.type).toBe('document.deleted'); // newest first
  });

  it('the test ping goes through the normal path', async () => {
    const before = receiver.at('/all').length;
    expect((await http('POST', '/v1/admin/webhooks/all/test', { token: user.token })).status).toBe(202);
    const ping = await until('ping', () => receiver.at('/all')[before]);
    verify(secrets.get('all')!, ping);
    expect(ping.event.type).toBe('ping');
  });

  it('retries after 500 (twice) with the same webhook-id, then delivered; the schedule runs on the platform clock', async () => {
    await endpoint('flaky', '/flaky', ['document.created']);
    receiver.answers.set('/flaky', [{ status: 500 }, { status: 500 }]);
    await createDoc(unique('f'));
    await until('first attempt', () => receiver.at('/flaky').length >= 1);
    // The first retry comes 5 s later, by the endpoint's own alarm.
    await until('second attempt', () => receiver.at('/flaky').length >= 2, 15_000);
    let log = await until('attempt 2 recorded', async () => {
      const l = await deliveries('flaky');
      return l[0]?.attempt === 2 && l;
    });
    expect(log[0]).toMatchObject({ status: 'failed', response_code: 500 });
    const wait = Date.parse(log[0]!.next_attempt_on!) - Date.now();
    expect(wait).toBeGreaterThan(4 * 60_000); // the second retry: 5 minutes
    await moveClock(5 * 60_000 + 1_000);
    await tick();
    await until('third attempt', () => receiver.at('/flaky').length >= 3);
    const got = receiver.at('/flaky');
    for (const r of got) verify(secrets.get('flaky')!, r);
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    log = await until('delivered', async () => {
      const l = await deliveries('flaky');
      return l[0]?.status === 'delivered' && l;
    });
    expect(log[0]).toMatchObject({ attempt: 3, response_code: 200, next_attempt_on: null });
    await moveClock(0);
  });

  it('honours Retry-After beyond the scheduled wait', async () => {
    await endpoint('later', '/later', ['document.created']);
    receiver.answers.set('/later', [{ status: 503, headers: { 'Retry-After': '3600' } }]);
    await createDoc(unique('l'));
    const log = await until('attempt 1 recorded', async () => {
      const l = await deliveries('later');
      return l[0]?.attempt === 1 && l;
    });
    const wait = Date.parse(log[0]!.next_attempt_on!) - Date.now();
    expect(wait).toBeGreaterThan(3500_000);
    expect(wait).toBeLessThan(3700_000);
  });

  it('410 disables the endpoint at once', async () => {
    await endpoint('gone', '/gone', ['document.created']);
    receiver.answers.set('/gone', [{ status: 410 }]);
    await createDoc(unique('g'));
    const hook = await until('disabled', async () => {
      const h = (await (await http('GET', '/v1/admin/webhooks/gone', { token: user.token })).json()) as {
        enabled: boolean;
        disabled_reason: string | null;
      };
      return !h.enabled && h;
    });
    expect(hook.disabled_reason).toMatch(/410/);
    // Back on: enabled true clears the reason.
    const on = await http('POST', '/v1/admin/webhooks/gone', { token: user.token, json: { enabled: true } });
    expect(await on.json()).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('redelivery sends the same webhook-id again, signed with the current secret', async () => {
    const log = await deliveries('all');
    const first = log.at(-1)!;
    const before = receiver.at('/all').length;
    const res = await http('POST', `/v1/admin/webhooks/all/deliveries/${first.id}/redeliver`, { token: user.token });
    expect(res.status).toBe(202);
    const again = await until('redelivery', () => receiver.at('/all')[before]);
    expect(again.id).toBe(first.event_id);
    verify(secrets.get('all')!, again);
    const one = (await (
      await http('GET', `/v1/admin/webhooks/all/deliveries/${first.id}`, { token: user.token })
    ).json()) as DeliveryRow & { request_body: string; response_body: string };
    expect(one).toMatchObject({ status: 'delivered', response_body: 'ok' });
    expect(JSON.parse(one.request_body).type).toBe('document.created');
  });

  it('rotation: for 24 hours deliveries verify with the old and the new secret', async () => {
    const old = secrets.get('all')!;
    const res = await http('POST', '/v1/admin/webhooks/all/rotate', { token: user.token });
    expect(res.status).toBe(200);
    const { secret } = (await res.json()) as { secret: string };
    expect(secret).not.toBe(old);
    const before = receiver.at('/all').length;
    await createDoc(unique('r'));
    const r = await until('a delivery after rotation', () => receiver.at('/all')[before]);
    expect(r.signature.split(' ')).toHaveLength(2);
    verify(old, r);
    verify(secret, r);
    // After 24 hours only the new secret signs.
    await moveClock(24 * 3600_000 + 60_000);
    await createDoc(unique('r'));
    const later = await until('a delivery a day later', () => receiver.at('/all')[before + 1]);
    expect(later.signature.split(' ')).toHaveLength(1);
    verify(secret, later);
    expect(() => verify(old, later)).toThrow();
    await moveClock(0);
  });
});
