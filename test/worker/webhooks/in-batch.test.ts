// Every event is recorded in the batch of the change it reports (core/events.ts): right after
// the answer its event and delivery exist, exactly once; a change whose event cannot be
// recorded is not stored either (one transaction); and the request-path events (comments,
// memberships) take no D1 round trip more with an endpoint than without.
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { onEvents } from '../../../src/core/events';
import { recordEvent } from '../../../src/webhooks/record';
import { until } from '../../client';
import { call, unique, type TestUser } from '../helpers';
import { json, person } from '../groups/fixtures';
import { succeededRun } from '../jobs/fixtures';

afterEach(() => onEvents(recordEvent));

function roundTrips(res: Response): number {
  const m = /d1;desc="(\d+) round trips"/.exec(res.headers.get('Server-Timing') ?? '');
  if (!m) throw new Error(`no d1 Server-Timing on ${res.status}`);
  return Number(m[1]);
}

/** The events of a type about a subject, each with its number of deliveries. */
async function recorded(type: string, subject: { resourceId?: number; groupId?: number }) {
  const { results } = await env.DB.prepare(
    `SELECT e.body, (SELECT count(*) FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
     FROM webhook_events e WHERE e.type = ?1 AND (e.resource_id = ?2 OR e.group_id = ?3) ORDER BY e.id`,
  )
    .bind(type, subject.resourceId ?? null, subject.groupId ?? null)
    .all<{ body: string; deliveries: number }>();
  return results.map((r) => ({ data: JSON.parse(r.body).data, deliveries: r.deliveries }));
}

const resourceId = async (u: TestUser, name: string) =>
  (await env.DB.prepare(
    'SELECT r.id FROM resources r JOIN users u ON u.id = r.owner_id WHERE u.username = ?1 AND r.name = ?2',
  )
    .bind(u.username, name)
    .first<number>('id'))!;

async function endpoint(u: TestUser, events: string[]): Promise<void> {
  const res = await call('PUT', `/v1/admin/webhooks/${unique('h')}`, {
    token: u.token,
    json: { url: 'https://steps.jobs.test/ok', events },
  });
  expect(res.status).toBe(201);
}

/** A statement that fails: the event, and with it the change's whole batch. */
const failingEvents = () =>
  onEvents({ statements: (db) => [db.run('INSERT INTO no_such_table VALUES (1)')], after: () => null });

describe('events recorded in the batch of their change', () => {
  it('comment.created: each way of commenting records it once, with the id and url; no round trip more', async () => {
    const [u, v] = await Promise.all([person('cw'), person('cn')]);
    await endpoint(u, ['comment.created']);
    const doc = unique('d');
    const trips: Record<string, number[]> = { [u.username]: [], [v.username]: [] };
    const uris: string[] = [];
    for (const w of [u, v]) {
      expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: w.token })).status).toBe(201);
      expect((await call('PUT', `/v1/vis/docs/${doc}/threads/t1`, { token: w.token })).status).toBe(201);
      const thread = `/v1/vis/docs/${doc}/threads/@${w.username}~t1`;
      const add = async (method: string, path: string, text?: string) => {
        const res = await call(method, path, { token: w.token, text });
        expect(res.status).toBe(201);
        trips[w.username]!.push(roundTrips(res));
        const body = await json<{ id: number; uri: string }>(res);
        if (w === u) uris.push(`${env.PUBLIC_ORIGIN}${body.uri}`);
        return body.id;
      };
      const id = await add('POST', thread, 'hello');
      await add('PUT', `${thread}/comments/s1`);
      await add('POST', `${thread}/comments/${id}/msg`, 'again');
      // Refused: a taken slug stores nothing, and records no event.
      expect((await call('PUT', `${thread}/comments/s1`, { token: w.token })).status).toBe(409);
    }
    expect(trips[u.username]).toEqual(trips[v.username]);
    // No waiting: each answered comment has its event and delivery.
    const events = await recorded('comment.created', { resourceId: await resourceId(u, doc) });
    expect(events.map((e) => e.deliveries)).toEqual([1, 1, 1]);
    const ids = events.map((e) => e.data.comment as number);
    expect(new Set(ids).size).toBe(3);
    // Where each is, as its answer says.
    expect(events.map((e) => e.data.url)).toEqual(uris);
    expect(events[1]!.data.url).toMatch(new RegExp(`/comments/@${u.username}~s1$`));
    expect(await recorded('comment.created', { resourceId: await resourceId(v, doc) })).toEqual([]);
  });

  it('a comment whose event cannot be recorded is not stored', async () => {
    const u = await person('cf');
    await endpoint(u, ['comment.created']);
    const doc = unique('d');
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${doc}/threads/t1`, { token: u.token })).status).toBe(201);
    failingEvents();
    const thread = `/v1/vis/docs/${doc}/threads/@${u.username}~t1`;
    expect((await call('POST', thread, { token: u.token, text: 'lost' })).status).toBe(500);
    onEvents(recordEvent);
    const stored = await env.DB.prepare(
      `SELECT count(*) AS n FROM thread_comments c JOIN threads t ON t.id = c.thread_id WHERE t.resource_id = ?1`,
    )
      .bind(await resourceId(u, doc))
      .first<number>('n');
    expect(stored).toBe(0);
  });

  it('member.invited, .joined and .left: once each, no round trip more; a join whose event fails is not stored', async () => {
    const [owner, plain, invitee, other] = await Promise.all([person('mo'), person('mp'), person('mi'), person('mx')]);
    await endpoint(owner, ['member.invited', 'member.joined', 'member.left']);
    const slug = unique('g');
    await call('GET', '/v1/whoami', { token: invitee.token }); // its token cached: no D1 read in what is measured
    const trips: number[][] = [];
    for (const founder of [owner, plain]) {
      expect((await call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token })).status).toBe(201);
      const ref = `@${founder.username}~${slug}`;
      const path = `/v1/admin/groups/${ref}/roles/members/${invitee.username}`;
      const steps = [
        await call('PUT', path, { token: founder.token }),
        await call('POST', `/v1/admin/invites/${ref}/accept`, { token: invitee.token, text: 'yes' }),
        await call('DELETE', path, { token: invitee.token }),
      ];
      expect(steps.map((r) => r.status)).toEqual([201, 200, 204]);
      trips.push(steps.map(roundTrips));
    }
    expect(trips[0]).toEqual(trips[1]);
    const groupId = async (f: TestUser) =>
      (await env.DB.prepare('SELECT id FROM groups WHERE ref = ?1')
        .bind(`@${f.username}~${slug}`)
        .first<number>('id'))!;
    const mine = await groupId(owner);
    for (const type of ['member.invited', 'member.joined', 'member.left'])
      expect(await recorded(type, { groupId: mine })).toEqual([
        {
          data: expect.objectContaining({ username: invitee.username, role: 'members' }),
          deliveries: 1,
        },
      ]);

    // Atomic: with the event's statements failing, the join is refused and not stored.
    failingEvents();
    const joined = await call('PUT', `/v1/admin/groups/@${owner.username}~${slug}/roles/members/${other.username}`, {
      token: owner.token,
    });
    expect(joined.status).toBe(500);
    onEvents(recordEvent);
    const held = await env.DB.prepare('SELECT count(*) AS n FROM members WHERE group_id = ?1 AND user_id = ?2')
      .bind(mine, (await env.DB.prepare('SELECT id FROM users WHERE username = ?1').bind(other.username).first('id'))!)
      .first<number>('n');
    expect(held).toBe(0);
  });

  it('run.succeeded is recorded once with its row (the run object’s batch), with the owner and job read there', async () => {
    const u = await person('ru');
    await endpoint(u, ['run.succeeded', 'run.failed']);
    const job = unique('j');
    const { run } = await succeededRun(u, job);
    // The final status is read from the row: its event was in the same batch.
    const events = await recorded('run.succeeded', { resourceId: await resourceId(u, job) });
    expect(events).toEqual([
      {
        data: expect.objectContaining({
          owner: u.username,
          job,
          run,
          status: 'success',
          url: `${env.PUBLIC_ORIGIN}/v1/users/${u.username}/code/jobs/${job}/runs/${run}`,
        }),
        deliveries: 1,
      },
    ]);
  });

  it('mail.sent is recorded once with the send’s row', async () => {
    const u = await person('ms');
    await endpoint(u, ['mail.sent']);
    const name = unique('m');
    const mail = `/v1/vis/mails/${name}`;
    expect((await call('PUT', mail, { token: u.token })).status).toBe(201);
    expect((await call('POST', `${mail}/recipients/to`, { token: u.token, text: 'me' })).status).toBe(204);
    expect((await call('POST', `${mail}/status`, { token: u.token, text: 'sent' })).status).toBe(202);
    const id = await resourceId(u, name);
    const events = await until('mail.sent', async () => {
      const rows = await recorded('mail.sent', { resourceId: id });
      return rows.length > 0 && rows;
    });
    const runs = await env.DB.prepare('SELECT send_id FROM mail_runs WHERE resource_id = ?1')
      .bind(id)
      .all<{ send_id: string }>();
    expect(events).toEqual([
      { data: expect.objectContaining({ run: runs.results[0]!.send_id, delivered: 1 }), deliveries: 1 },
    ]);
  });
});
