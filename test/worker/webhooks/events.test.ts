// Which endpoints an event reaches (no leak through events), and the failure streak that
// switches an endpoint off. Delivery records are read through the deliveries log; the
// endpoints point at the test's stub host (https://steps.jobs.test, answered in Node).
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { setClockOffset } from '../../../src/core/clock';
import { sweepWebhooks } from '../../../src/webhooks/sweep';
import { until } from '../../client';
import { call, OPS, unique, type TestUser } from '../helpers';
import { join, orgWorld, person, userGroupWorld } from '../groups/fixtures';
import { succeededRun, trigger } from '../jobs/fixtures';

const FAILING = 'https://steps.jobs.test/fail';
const json = async <T = any>(res: Response): Promise<T> => (await res.json()) as T;

afterEach(() => setClockOffset(0));

async function endpoint(u: TestUser, base: string, name: string, events: string[]): Promise<void> {
  const res = await call('PUT', `${base}/${name}`, { token: u.token, json: { url: FAILING, events } });
  expect(res.status).toBe(201);
}

interface Row {
  id: number;
  type: string;
  attempt: number;
  status: string;
  next_attempt_on: string | null;
}

const log = async (u: TestUser, path: string): Promise<Row[]> =>
  json(await call('GET', `${path}/deliveries`, { token: u.token }));

describe('webhook events', () => {
  it('a reader of a shared document (then unshared) never gets its events; the owner does', async () => {
    const w = await userGroupWorld();
    await endpoint(w.founder, '/v1/admin/webhooks', 'own', ['*']);
    await endpoint(w.member, '/v1/admin/webhooks', 'reader', ['*']);
    const doc = unique('d');
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: w.founder.token })).status).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${doc}/shared/${w.ref}`, { token: w.founder.token })).status).toBe(201);
    // The member can read it now.
    expect(
      (await call('GET', `/v1/users/${w.founder.username}/vis/docs/${doc}/content`, { token: w.member.token })).status,
    ).toBe(200);
    const write = () =>
      call('POST', `/v1/vis/docs/${doc}/content`, { token: w.founder.token, text: `# ${unique('t')}` });
    expect((await write()).status).toBe(204);
    await until('the owner’s document.updated', async () =>
      (await log(w.founder, '/v1/admin/webhooks/own')).some((d) => d.type === 'document.updated'),
    );
    expect((await call('DELETE', `/v1/vis/docs/${doc}/shared/${w.ref}`, { token: w.founder.token })).status).toBe(204);
    expect((await write()).status).toBe(204);
    await until(
      'the second document.updated',
      async () =>
        (await log(w.founder, '/v1/admin/webhooks/own')).filter((d) => d.type === 'document.updated').length === 2,
    );
    const own = await log(w.founder, '/v1/admin/webhooks/own');
    expect(own.map((d) => d.type).reverse()).toEqual(['document.created', 'document.updated', 'document.updated']);
    expect(await log(w.member, '/v1/admin/webhooks/reader')).toEqual([]);
  });

  it('a grantee’s copy is the grantee’s event (document.created with copied_from), never the original owner’s', async () => {
    const w = await userGroupWorld();
    await endpoint(w.founder, '/v1/admin/webhooks', 'own', ['*']);
    await endpoint(w.member, '/v1/admin/webhooks', 'mine', ['*']);
    const doc = unique('d');
    const copy = unique('c');
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: w.founder.token })).status).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${doc}/shared/${w.ref}`, { token: w.founder.token })).status).toBe(201);
    const copied = await call('PATCH', `/v1/users/${w.founder.username}/vis/docs/${doc}`, {
      token: w.member.token,
      json: { name: copy, copy: true },
    });
    expect(copied.status).toBe(201);
    const mine = await log(w.member, '/v1/admin/webhooks/mine');
    expect(mine.map((d) => d.type)).toEqual(['document.created']);
    const body = await json(
      await call('GET', `/v1/admin/webhooks/mine/deliveries/${mine[0]!.id}`, { token: w.member.token }),
    );
    expect(JSON.parse(body.request_body).data).toMatchObject({
      owner: w.member.username,
      name: copy,
      copied_from: `${w.founder.username}/${doc}`,
    });
    expect((await log(w.founder, '/v1/admin/webhooks/own')).map((d) => d.type)).toEqual(['document.created']);
  });

  it('an organisation endpoint gets its groups’ membership events; a member’s own endpoint about a group they are not in gets none', async () => {
    const w = await orgWorld();
    const orgBase = `/v1/admin/orgs/${w.org}/webhooks`;
    await endpoint(w.account, orgBase, 'members', ['member.joined', 'member.left']);
    await endpoint(w.orgMember, '/v1/admin/webhooks', 'mine', ['*']);
    const newcomer = await person('n');
    await join(w.path, w.ref, w.account, newcomer, 'members');
    expect(
      (await call('DELETE', `${w.path}/roles/members/${newcomer.username}`, { token: newcomer.token })).status,
    ).toBe(204);
    const got = await until('joined and left', async () => {
      const rows = await log(w.account, `${orgBase}/members`);
      return rows.length >= 2 && rows;
    });
    expect(got.map((d) => d.type).reverse()).toEqual(['member.joined', 'member.left']);
    const one = await json(
      await call('GET', `${orgBase}/members/deliveries/${got[1]!.id}`, { token: w.account.token }),
    );
    expect(JSON.parse(one.request_body).data).toMatchObject({
      group: w.ref,
      username: newcomer.username,
      role: 'members',
    });
    expect(await log(w.orgMember, '/v1/admin/webhooks/mine')).toEqual([]);
  });

  it('a top-level run that ends sends run.succeeded or run.failed with its job, run, status and times', async () => {
    const u = await person('r');
    await endpoint(u, '/v1/admin/webhooks', 'runs', ['run.succeeded', 'run.failed']);
    const job = unique('j');
    const { base, run } = await succeededRun(u, job);
    await putFailing(u, job);
    await trigger(u.token, base); // a failed run answers its failure (5xx)
    const rows = await until('both run events', async () => {
      const r = await log(u, '/v1/admin/webhooks/runs');
      return r.length === 2 && r;
    });
    expect(rows.map((d) => d.type).reverse()).toEqual(['run.succeeded', 'run.failed']);
    const one = await json(await call('GET', `/v1/admin/webhooks/runs/deliveries/${rows[1]!.id}`, { token: u.token }));
    const event = JSON.parse(one.request_body);
    expect(event.data).toMatchObject({ owner: u.username, job, run, status: 'success', trigger: 'api' });
    expect(Date.parse(event.data.finished_on)).toBeGreaterThanOrEqual(Date.parse(event.data.started_on));
    expect(JSON.stringify(event.data)).not.toMatch(/ok/); // never the output
  });

  it('a comment sends comment.created and a send of an e-mail mail.sent with its counts', async () => {
    const u = await person('c');
    await endpoint(u, '/v1/admin/webhooks', 'talk', ['comment.created', 'mail.sent']);
    const doc = unique('d');
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${doc}/threads/t1`, { token: u.token })).status).toBe(201);
    const posted = await call('POST', `/v1/vis/docs/${doc}/threads/@${u.username}~t1`, {
      token: u.token,
      text: 'hello',
    });
    expect(posted.status).toBe(201);
    const mail = `/v1/vis/mails/${unique('m')}`;
    expect((await call('PUT', mail, { token: u.token })).status).toBe(201);
    expect((await call('POST', `${mail}/recipients/to`, { token: u.token, text: 'me' })).status).toBe(204);
    expect((await call('POST', `${mail}/status`, { token: u.token, text: 'sent' })).status).toBe(202);
    const rows = await until('comment.created and mail.sent', async () => {
      const r = await log(u, '/v1/admin/webhooks/talk');
      return r.length === 2 && r;
    });
    const bodies = await Promise.all(
      rows.map(async (d) =>
        JSON.parse(
          (await json(await call('GET', `/v1/admin/webhooks/talk/deliveries/${d.id}`, { token: u.token })))
            .request_body,
        ),
      ),
    );
    const byType = Object.fromEntries(bodies.map((e) => [e.type, e.data]));
    expect(byType['comment.created']).toMatchObject({ comment: (await json(posted)).id, author: u.username });
    expect(JSON.stringify(byType['comment.created'])).not.toMatch(/hello/); // never the content
    expect(byType['mail.sent']).toMatchObject({ delivered: 1, failed: 0 });
  });

  it('a change is answered with its event and deliveries recorded already: create, write, rename, copy, delete', async () => {
    const u = await person('chg');
    const other = await person('chgx'); // no endpoint: its writes record nothing, in between
    await endpoint(u, '/v1/admin/webhooks', 'all', ['*']);
    const doc = unique('d');
    const moved = unique('m');
    const copied = unique('c');
    const steps: [string, string, object?][] = [
      ['PUT', `/v1/vis/docs/${doc}`],
      ['POST', `/v1/vis/docs/${doc}/content`, { text: '# one' }],
      ['PATCH', `/v1/vis/docs/${doc}`, { text: moved }],
      ['PATCH', `/v1/vis/docs/${moved}`, { json: { name: copied, copy: true } }],
      ['DELETE', `/v1/vis/docs/${copied}`],
    ];
    for (const [method, path, body] of steps) {
      expect((await call(method, path, { token: u.token, ...body })).status).toBeLessThan(300);
      expect((await call('PUT', `/v1/vis/docs/${unique('o')}`, { token: other.token })).status).toBe(201);
    }
    // No waiting: each answered change had its delivery written in the same batch.
    const rows = (await log(u, '/v1/admin/webhooks/all')).reverse();
    expect(rows.map((d) => d.type)).toEqual([
      'document.created',
      'document.updated',
      'document.updated',
      'document.created',
      'document.deleted',
    ]);
    const data = async (row: Row) =>
      JSON.parse(
        (await json(await call('GET', `/v1/admin/webhooks/all/deliveries/${row.id}`, { token: u.token }))).request_body,
      ).data;
    expect(await data(rows[1]!)).toMatchObject({ name: doc, entry: 'content' });
    expect(await data(rows[2]!)).toMatchObject({ name: moved, renamed_from: doc });
    expect(await data(rows[3]!)).toMatchObject({ name: copied, copied_from: `${u.username}/${moved}` });
    expect(await data(rows[4]!)).toMatchObject({ name: copied });
  });

  it('a delivery to a host name that resolves to a private, loopback or no address is not sent; a public one is', async () => {
    const u = await person('dns');
    const hosts = ['private.jobs.test', 'rebind.jobs.test', 'nowhere.jobs.test', 'steps.jobs.test'];
    for (const [i, host] of hosts.entries())
      expect(
        (
          await call('PUT', `/v1/admin/webhooks/h${i}`, {
            token: u.token,
            json: { url: `https://${host}/fail`, events: ['document.created'] },
          })
        ).status,
      ).toBe(201);
    expect((await call('PUT', `/v1/vis/docs/${unique('d')}`, { token: u.token })).status).toBe(201);
    const tried = async (i: number) => {
      const [row] = await log(u, `/v1/admin/webhooks/h${i}`);
      if (row?.attempt !== 1) return undefined;
      return json(await call('GET', `/v1/admin/webhooks/h${i}/deliveries/${row.id}`, { token: u.token }));
    };
    const results = await Promise.all(hosts.map((_, i) => until(`attempt at ${hosts[i]}`, () => tried(i))));
    expect(results.map((d) => [d.response_code, d.response_body])).toEqual([
      [null, 'not sent: private.jobs.test resolves to 10.0.0.7 is a private address'],
      [null, 'not sent: rebind.jobs.test resolves to 127.0.0.1 is a loopback address'],
      [null, 'not sent: nowhere.jobs.test does not resolve to an address'],
      // Sent: the stub host answers 500.
      [500, 'down for maintenance'],
    ]);
    expect(results.every((d) => d.status === 'failed')).toBe(true);
  });

  it('an event reaches all 20 endpoints of its owner (its deliveries are one insert, whatever their number)', async () => {
    const u = await person('t');
    for (let i = 0; i < 20; i++) await endpoint(u, '/v1/admin/webhooks', `e${i}`, ['*']);
    expect((await call('PUT', `/v1/vis/docs/${unique('d')}`, { token: u.token })).status).toBe(201);
    for (let i = 0; i < 20; i++)
      await until(`endpoint e${i}`, async () => (await log(u, `/v1/admin/webhooks/e${i}`)).length === 1);
  });

  it('an endpoint failing every attempt for 5 days is disabled and its owner gets an e-mail; enabled true turns it on', async () => {
    const u = await person('fail');
    await endpoint(u, '/v1/admin/webhooks', 'down', ['document.created']);
    expect((await call('PUT', `/v1/vis/docs/${unique('d')}`, { token: u.token })).status).toBe(201);
    await until('attempt 1', async () => (await log(u, '/v1/admin/webhooks/down'))[0]?.attempt === 1);
    // Five days on, the next attempt (due long ago) fails too: the streak is 5 days long.
    setClockOffset(5 * 24 * 3600_000 + 60_000);
    await sweepWebhooks(env);
    const hook = await until('disabled', async () => {
      const h = await json(await call('GET', '/v1/admin/webhooks/down', { token: u.token }));
      return !h.enabled && h;
    });
    expect(hook.disabled_reason).toMatch(/5 days/);
    const [row] = await log(u, '/v1/admin/webhooks/down');
    expect(row).toMatchObject({ attempt: 2, status: 'failed' });
    const outbox = await json<{ to: string[]; subject: string }[]>(await call('GET', '/v1/ops/outbox', { token: OPS }));
    expect(
      outbox.filter((m) => m.to[0] === `${u.username}@example.com` && /down disabled/.test(m.subject)),
    ).toHaveLength(1);
    const redeliver = await call('POST', `/v1/admin/webhooks/down/deliveries/${row!.id}/redeliver`, { token: u.token });
    expect(redeliver.status).toBe(409);
    const on = await call('POST', '/v1/admin/webhooks/down', { token: u.token, json: { enabled: true } });
    expect(await json(on)).toMatchObject({ enabled: true, disabled_reason: null });
  });
});

async function putFailing(u: TestUser, job: string): Promise<void> {
  const res = await call('POST', `/v1/code/jobs/${job}/code/index.js`, {
    token: u.token,
    body: 'export default { async run() { throw new Error("down"); } };',
    type: 'text/javascript',
  });
  expect(res.status).toBe(204);
}
