// D1 round trips per request, read from each answer's Server-Timing: a hot
// authenticated read costs at most one once the token is cached, and the common writes
// no more than three. A change that adds a round trip to these fails here.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { orgWorld, person, userGroupWorld } from '../groups/fixtures';
import { call, makeUser, unique, type TestUser } from '../helpers';

function roundTrips(res: Response): number {
  const m = /d1;desc="(\d+) round trips"/.exec(res.headers.get('Server-Timing') ?? '');
  if (!m) throw new Error(`no d1 Server-Timing on ${res.status}: ${res.headers.get('Server-Timing')}`);
  return Number(m[1]);
}

/** The answer's status and round trips, its body read. */
async function measured(
  method: string,
  path: string,
  u: TestUser | null,
  o: { text?: string; json?: unknown; body?: BodyInit; type?: string; headers?: Record<string, string> } = {},
) {
  const res = await call(method, path, { token: u?.token ?? null, ...o });
  await res.arrayBuffer();
  return { status: res.status, trips: roundTrips(res) };
}

describe('D1 round trips per request', () => {
  let owner: TestUser;
  let reader: TestUser;
  let run: string;

  beforeAll(async () => {
    owner = await makeUser({ profile_public: true });
    reader = await makeUser();
    expect((await call('PUT', '/v1/vis/docs/hot', { token: owner.token })).status).toBe(201);
    expect((await call('POST', '/v1/vis/docs/hot/content', { token: owner.token, text: 'hello' })).status).toBe(204);
    expect((await call('PUT', '/v1/vis/docs/hot/shared/public', { token: owner.token })).status).toBe(201);
    expect((await call('PUT', '/v1/code/jobs/hotjob', { token: owner.token })).status).toBe(201);
    // A finished run of the job, written straight to D1 (no sandbox needed to read its status).
    run = '20250101-000000-hotjob0000001';
    await env.DB.prepare(
      `INSERT INTO job_runs (name, shortname, job_id, top, parent_id, root_job_id, parent_step, status, trigger, source, created_by, started_on, completed_on, duration)
       SELECT ?1, ?2, r.id, 1, NULL, r.id, NULL, 'success', 'api', 'test', ?3, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:01.000Z', 1.0
       FROM resources r JOIN users u ON u.id = r.owner_id WHERE u.username = ?3 AND r.name = 'hotjob' AND r.kind = 'job'`,
    )
      .bind(run, `s${owner.username}`.slice(0, 40), owner.username)
      .run();
    // Cache both tokens in the isolate (a token's first request reads it from D1).
    await call('GET', '/v1/whoami', { token: owner.token });
    await call('GET', '/v1/whoami', { token: reader.token });
  });

  it('a hot read of an own document entry is one round trip', async () => {
    expect(await measured('GET', '/v1/vis/docs/hot/content', owner)).toEqual({ status: 200, trips: 1 });
    // An entry never written (its default) too, and a config entry.
    expect(await measured('GET', '/v1/vis/docs/hot/summary', owner)).toMatchObject({ trips: 1 });
  });

  it('a hot read of a shared document entry by a reader is one round trip', async () => {
    expect(await measured('GET', `/v1/users/${owner.username}/vis/docs/hot/content`, reader)).toEqual({
      status: 200,
      trips: 1,
    });
  });

  it('a document folder listing is one round trip', async () => {
    expect(await measured('GET', '/v1/vis/docs/hot', owner)).toEqual({ status: 200, trips: 1 });
    expect(await measured('GET', `/v1/users/${owner.username}/vis/docs/hot`, reader)).toEqual({
      status: 200,
      trips: 1,
    });
    expect(await measured('GET', '/v1/vis/docs/hot/config', owner)).toEqual({ status: 200, trips: 1 });
  });

  it('a listing of documents is one round trip, own or shared', async () => {
    expect(await measured('GET', '/v1/vis/docs', owner)).toEqual({ status: 200, trips: 1 });
    expect(await measured('GET', `/v1/users/${owner.username}/vis/docs`, reader)).toEqual({ status: 200, trips: 1 });
    expect(await measured('GET', `/v1/users/${owner.username}/vis/docs`, owner)).toEqual({ status: 200, trips: 1 });
  });

  it("a run's status is one round trip", async () => {
    expect(await measured('GET', `/v1/code/jobs/hotjob/runs/${run}/status`, owner)).toEqual({ status: 200, trips: 1 });
    expect(await measured('GET', `/v1/code/jobs/hotjob/runs/${run}`, owner)).toEqual({ status: 200, trips: 1 });
  });

  it("a grid's dashboard page is one round trip, at its own path and at its public url", async () => {
    expect((await call('PUT', '/v1/vis/grids/hotgrid', { token: owner.token })).status).toBe(201);
    expect(
      (await call('POST', '/v1/vis/grids/hotgrid/layout', { token: owner.token, text: '+---+\n| A |\n+---+' })).status,
    ).toBe(204);
    expect((await call('PUT', '/v1/vis/grids/hotgrid/shared/public', { token: owner.token })).status).toBe(201);
    expect(await measured('GET', '/v1/vis/grids/hotgrid/html', owner)).toEqual({ status: 200, trips: 1 });
    expect(await measured('GET', `/v1/users/${owner.username}/vis/grids/hotgrid/html`, reader)).toEqual({
      status: 200,
      trips: 1,
    });
    expect(await measured('GET', `/v1/u/${owner.username}/g/hotgrid/html`, reader)).toEqual({ status: 200, trips: 1 });
  });

  it("a document's PDF costs at most three round trips rendered, one from the render cache (its entries read with it)", async () => {
    expect((await call('PUT', '/v1/vis/docs/out', { token: owner.token })).status).toBe(201);
    expect((await call('POST', '/v1/vis/docs/out/content', { token: owner.token, text: '# Out\n\ntext' })).status).toBe(
      204,
    );
    expect((await measured('GET', '/v1/vis/docs/out/files/doc.pdf', owner)).trips).toBeLessThanOrEqual(3);
    expect(await measured('GET', '/v1/vis/docs/out/files/doc.pdf', owner)).toEqual({ status: 200, trips: 1 });
    expect(await measured('GET', `/v1/u/${owner.username}/d/out/pdf`, owner)).toEqual({ status: 200, trips: 1 });
  });

  it('a missing or unreadable resource costs one round trip too (404)', async () => {
    expect(await measured('GET', '/v1/vis/docs/nosuch/content', owner)).toEqual({ status: 404, trips: 1 });
    expect(await measured('GET', `/v1/users/nosuchuser${Date.now()}/vis/docs/hot/content`, reader)).toEqual({
      status: 404,
      trips: 1,
    });
  });

  it('common writes cost at most three round trips', async () => {
    const u = await makeUser({ profile_public: true });
    await call('GET', '/v1/whoami', { token: u.token });
    // [method, path, body, most round trips]
    const steps: [string, string, { text?: string }, number][] = [
      ['PUT', '/v1/vis/docs/w', {}, 3],
      ['POST', '/v1/vis/docs/w/content', { text: 'x' }, 2], // the entry, last_modified and the log line: one batch
      ['DELETE', '/v1/vis/docs/w/content', {}, 2],
      ['PUT', '/v1/vis/docs/w/shared/public', {}, 3],
      ['DELETE', '/v1/vis/docs/w/shared/public', {}, 3],
      ['PUT', '/v1/vis/docs/w/tags/fav', {}, 3],
      ['DELETE', '/v1/vis/docs/w', {}, 3],
    ];
    for (const [method, path, o, most] of steps) {
      const r = await measured(method, path, u, o);
      expect(r.status, `${method} ${path}`).toBeLessThan(300);
      expect(r.trips, `${method} ${path}`).toBeLessThanOrEqual(most);
    }
  });

  it('renaming or copying a resource costs at most three round trips, whatever its kind carries', async () => {
    const u = await makeUser();
    await call('GET', '/v1/whoami', { token: u.token });
    const png = new Uint8Array([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6,
      0, 0, 0,
    ]);
    // A document with entries, a tag and an asset; a grid with layout and mapping (its parse names its id).
    expect((await call('PUT', '/v1/vis/docs/r', { token: u.token })).status).toBe(201);
    expect((await call('POST', '/v1/vis/docs/r/content', { token: u.token, text: 'x' })).status).toBe(204);
    expect((await call('PUT', '/v1/vis/docs/r/tags/fav', { token: u.token })).status).toBe(201);
    expect(
      (await call('POST', '/v1/vis/docs/r/assets/logo.png', { token: u.token, body: png, type: 'image/png' })).status,
    ).toBe(201);
    expect((await call('PUT', '/v1/vis/grids/g', { token: u.token })).status).toBe(201);
    expect(
      (await call('POST', '/v1/vis/grids/g/layout', { token: u.token, text: '+---+\n| A |\n+---+' })).status,
    ).toBeLessThan(300);
    expect(
      (await call('POST', '/v1/vis/grids/g/mapping', { token: u.token, text: 'A => /u/x/p/y' })).status,
    ).toBeLessThan(300);
    expect(await measured('PATCH', '/v1/vis/docs/r', u, { text: 'r2' })).toMatchObject({ status: 200, trips: 2 });
    expect(await measured('PATCH', '/v1/vis/docs/r2', u, { text: 'r2' })).toMatchObject({ status: 200, trips: 1 });
    expect(await measured('PATCH', '/v1/vis/docs/r2', u, { json: { name: 'r3', copy: true } })).toMatchObject({
      status: 201,
    });
    expect(
      (await measured('PATCH', '/v1/vis/docs/r2', u, { json: { name: 'r4', copy: true } })).trips,
    ).toBeLessThanOrEqual(3);
    expect(
      (await measured('PATCH', '/v1/vis/grids/g', u, { json: { name: 'g2', copy: true } })).trips,
    ).toBeLessThanOrEqual(3);
    expect((await measured('PATCH', '/v1/vis/grids/g', u, { text: 'g3' })).trips).toBeLessThanOrEqual(2);
    // A job with code and a schedule: its meta and schedule index rows join the copy's batch.
    expect((await call('PUT', '/v1/code/jobs/j', { token: u.token })).status).toBe(201);
    expect(
      (await call('POST', '/v1/code/jobs/j/code/main.py', { token: u.token, text: 'print(1)' })).status,
    ).toBeLessThan(300);
    expect(
      (await call('POST', '/v1/code/jobs/j/config/schedule', { token: u.token, text: '*/5 * * * *' })).status,
    ).toBe(204);
    expect(await measured('PATCH', '/v1/code/jobs/j', u, { json: { name: 'j2', copy: true } })).toMatchObject({
      status: 201,
    });
    expect(
      (await measured('PATCH', '/v1/code/jobs/j', u, { json: { name: 'j3', copy: true } })).trips,
    ).toBeLessThanOrEqual(3);
  });

  it('an organisation card or its groups cost at most three round trips, for a member or a stranger', async () => {
    const w = await orgWorld();
    for (const u of [w.orgMember, w.stranger, w.account]) await call('GET', '/v1/whoami', { token: u.token });
    for (const u of [w.orgMember, w.account]) {
      expect(await measured('GET', `/v1/orgs/${w.org}`, u)).toMatchObject({ status: 200, trips: 3 });
      expect(await measured('GET', `/v1/o/${w.org}`, u)).toMatchObject({ status: 200, trips: 3 });
      expect(await measured('GET', `/v1/orgs/${w.org}/groups`, u)).toMatchObject({ status: 200, trips: 2 });
    }
    // A private organisation is 404 to a stranger, in two round trips.
    expect(await measured('GET', `/v1/orgs/${w.org}`, w.stranger)).toMatchObject({ status: 404, trips: 2 });
  });

  it("an organisation group's inbound address costs at most three round trips, its options read with the group", async () => {
    const w = await orgWorld('premium');
    await call('GET', '/v1/whoami', { token: w.account.token });
    expect(await measured('GET', `/v1/orgs/${w.org}/groups/${w.group}/email`, w.account)).toEqual({
      status: 200,
      trips: 1,
    });
    expect(
      (
        await call('POST', `/v1/admin/orgs/${w.org}/profile/options/enable_subdomain`, {
          token: w.account.token,
          text: 'yes',
        })
      ).status,
    ).toBe(204);
    expect(
      (await call('POST', `${w.path}/profile/options/allow_inbound_mail`, { token: w.account.token, text: 'yes' }))
        .status,
    ).toBe(204);
    const res = await call('GET', `/v1/orgs/${w.org}/groups/${w.group}/email`, { token: w.account.token });
    expect(await res.text()).toBe(`${w.group}@${w.org}.mail.localhost`);
    expect(roundTrips(res)).toBe(1);
  });

  it('creating a user group costs at most three round trips, the new group read in its batch', async () => {
    const u = await makeUser();
    await call('GET', '/v1/whoami', { token: u.token });
    expect(await measured('PUT', `/v1/admin/groups/${unique('g').slice(0, 30)}`, u)).toEqual({ status: 201, trips: 2 });
  });

  it('a role PUT costs at most three round trips, an invitation with its e-mail (the outbox row joins the membership batch) too', async () => {
    const w = await userGroupWorld();
    const newcomer = await person('n');
    await call('GET', '/v1/whoami', { token: w.founder.token });
    expect(await measured('PUT', `${w.path}/roles/superusers/${w.member.username}`, w.founder)).toEqual({
      status: 200,
      trips: 2,
    });
    expect(await measured('PUT', `${w.path}/roles/members/${w.member.username}`, w.founder)).toEqual({
      status: 200,
      trips: 2,
    });
    expect(await measured('PUT', `${w.path}/roles/members/${newcomer.username}`, w.founder)).toEqual({
      status: 201,
      trips: 2,
    });
    expect(await measured('PUT', `${w.path}/roles/admins/${newcomer.username}`, w.founder)).toEqual({
      status: 200,
      trips: 2,
    });
  });

  it('removing a role, revoking an invite or leaving costs at most three round trips (the target read with the group)', async () => {
    const w = await userGroupWorld();
    for (const u of [w.founder, w.member]) await call('GET', '/v1/whoami', { token: u.token });
    expect(await measured('DELETE', `${w.path}/roles/superusers/${w.superuser.username}`, w.founder)).toEqual({
      status: 204,
      trips: 2,
    });
    expect(await measured('DELETE', `${w.path}/roles/members/${w.pending.username}`, w.founder)).toEqual({
      status: 204,
      trips: 2,
    });
    expect(await measured('DELETE', `${w.path}/roles/members/${w.member.username}`, w.member)).toEqual({
      status: 204,
      trips: 2,
    });
  });

  it('an invitation into an organisation or an organisation group costs at most three round trips', async () => {
    const w = await orgWorld();
    const [a, b] = await Promise.all([person('n'), person('n')]);
    await call('GET', '/v1/whoami', { token: w.account.token });
    expect(await measured('PUT', `/v1/admin/orgs/${w.org}/roles/members/${a.username}`, w.account)).toEqual({
      status: 201,
      trips: 2,
    });
    expect(await measured('PUT', `${w.path}/roles/members/${b.username}`, w.account)).toEqual({
      status: 201,
      trips: 2,
    });
  });

  it('a send or a test send of an e-mail costs at most three round trips, whatever variables and authors its content shows', async () => {
    const u = await makeUser({ email: `${unique('s')}@example.com`, email_verified: true });
    const other = await makeUser({ profile_public: true });
    await call('GET', '/v1/whoami', { token: u.token });
    for (const [who, doc] of [
      [u, 'mine'],
      [other, 'theirs'],
    ] as const) {
      expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: who.token })).status).toBe(201);
      expect((await call('PUT', `/v1/vis/docs/${doc}/vars/g`, { token: who.token })).status).toBe(201);
    }
    expect((await call('PUT', '/v1/vis/docs/theirs/shared/public', { token: other.token })).status).toBe(201);
    const content =
      `Growth {/u/${u.username}/d/mine/v/g}, theirs {/u/${other.username}/d/theirs/v/g}, none {/u/nosuch${Date.now()}/d/x/v/g}\n\n` +
      `{{ author\n  username: ${other.username}\n}}\n{{ /author }}`;
    expect((await call('PUT', '/v1/vis/mails/s', { token: u.token })).status).toBe(201);
    expect((await call('POST', '/v1/vis/mails/s/content', { token: u.token, text: content })).status).toBe(204);
    expect(
      (await call('POST', '/v1/vis/mails/s/recipients/to', { token: u.token, text: 'a@example.com me' })).status,
    ).toBe(204);
    expect((await measured('POST', '/v1/vis/mails/s/status', u, { text: 'test' })).trips).toBeLessThanOrEqual(3);
    for (
      let i = 0;
      i < 500 && (await (await call('GET', '/v1/vis/mails/s/status', { token: u.token })).text()) !== 'ready';
      i++
    )
      await new Promise((r) => setTimeout(r, 20));
    const sent = await measured('POST', '/v1/vis/mails/s/status', u, { text: 'sent' });
    expect(sent.status).toBe(202);
    expect(sent.trips).toBeLessThanOrEqual(3);
  });

  it('writing or clearing a recipient list costs at most three round trips, users and groups checked together', async () => {
    const u = await makeUser({ email: `${unique('r')}@example.com`, email_verified: true });
    const other = await makeUser();
    await call('GET', '/v1/whoami', { token: u.token });
    const slug = unique('g').slice(0, 30);
    expect((await call('PUT', `/v1/admin/groups/${slug}`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', '/v1/vis/mails/m', { token: u.token })).status).toBe(201);
    expect(
      (await call('POST', '/v1/vis/mails/m/recipients/cc', { token: u.token, text: 'b@example.com' })).status,
    ).toBe(204);
    const list = `a@example.com @${other.username} @${u.username}~${slug}`;
    expect(await measured('POST', '/v1/vis/mails/m/recipients/to', u, { text: list })).toEqual({
      status: 204,
      trips: 3,
    });
    expect(await measured('POST', '/v1/vis/mails/m/recipients/bcc', u, { text: 'c@example.com' })).toEqual({
      status: 204,
      trips: 2,
    });
    expect(await measured('DELETE', '/v1/vis/mails/m/recipients/to', u)).toEqual({ status: 204, trips: 2 });
    // A rejected list stores nothing, in as many.
    expect(await measured('POST', '/v1/vis/mails/m/recipients/to', u, { text: `@nosuch${Date.now()}` })).toEqual({
      status: 400,
      trips: 2,
    });
  });

  it("writing or clearing a job's schedule or enabled flag costs at most three round trips, its schedule index row in the write's batch", async () => {
    const u = await makeUser();
    await call('GET', '/v1/whoami', { token: u.token });
    expect((await call('PUT', '/v1/code/jobs/sj', { token: u.token })).status).toBe(201);
    for (const [method, path, text] of [
      ['POST', 'config/schedule', '*/5 * * * *'],
      ['POST', 'config/enabled', 'false'],
      ['DELETE', 'config/enabled', undefined],
      ['DELETE', 'config/schedule', undefined],
    ] as const) {
      const r = await measured(method, `/v1/code/jobs/sj/${path}`, u, text === undefined ? {} : { text });
      expect(r.status, `${method} ${path}`).toBe(204);
      expect(r.trips, `${method} ${path}`).toBeLessThanOrEqual(3);
    }
  });

  it('writing or clearing a grid layout or mapping costs at most three round trips, its parse stored in the same batch', async () => {
    const u = await makeUser();
    await call('GET', '/v1/whoami', { token: u.token });
    expect((await call('PUT', '/v1/vis/grids/lm', { token: u.token })).status).toBe(201);
    expect(await measured('POST', '/v1/vis/grids/lm/layout', u, { text: '+---+\n| A |\n+---+' })).toEqual({
      status: 204,
      trips: 3,
    });
    expect(await measured('POST', '/v1/vis/grids/lm/mapping', u, { text: 'A => /u/x/p/y' })).toEqual({
      status: 204,
      trips: 3,
    });
    expect(await measured('DELETE', '/v1/vis/grids/lm/mapping', u)).toEqual({ status: 204, trips: 3 });
    expect(await measured('DELETE', '/v1/vis/grids/lm/layout', u)).toEqual({ status: 204, trips: 3 });
  });
  it('creating, changing or deleting an organisation or an organisation group costs at most three round trips', async () => {
    const w = await orgWorld();
    await call('GET', '/v1/whoami', { token: w.account.token });
    const at3 = async (method: string, path: string, status: number) => {
      const r = await measured(method, path, w.account);
      expect(r.status, `${method} ${path}`).toBe(status);
      expect(r.trips, `${method} ${path}`).toBeLessThanOrEqual(3);
    };
    await at3('PUT', `/v1/admin/orgs/${w.org}/groups/${unique('g').slice(0, 30)}`, 201);
    await at3('GET', `/v1/orgs/${w.org}/groups/${w.group}`, 200);
    // A second organisation of the account is refused (403), in as many.
    await at3('PUT', `/v1/admin/orgs/${unique('org').slice(0, 30)}`, 403);
    await at3('DELETE', `/v1/admin/orgs/${w.org}`, 204);
    const fresh = await makeUser({ account: 'organisation', email: `${unique('o')}@example.com` }, 'o');
    await call('GET', '/v1/whoami', { token: fresh.token });
    const r = await measured('PUT', `/v1/admin/orgs/${unique('org').slice(0, 30)}`, fresh);
    expect(r.status).toBe(201);
    expect(r.trips).toBeLessThanOrEqual(3);
  });

  it("deleting a group's thread or comment costs at most three round trips, on a user group, an organisation or an org group", async () => {
    const w = await orgWorld();
    const u = await userGroupWorld();
    for (const t of [w.account, u.founder]) await call('GET', '/v1/whoami', { token: t.token });
    for (const [base, who] of [
      [u.path, u.founder],
      [`/v1/admin/orgs/${w.org}`, w.account],
      [w.path, w.account],
    ] as const) {
      expect((await call('PUT', `${base}/threads/t`, { token: who.token })).status).toBe(201);
      const said = await call('POST', `${base}/threads/t`, { token: who.token, text: 'hi' });
      expect(said.status).toBe(201);
      const id = ((await said.json()) as { id: number }).id;
      const c = await measured('DELETE', `${base}/threads/t/${id}`, who);
      expect(c.status, base).toBe(204);
      expect(c.trips, base).toBeLessThanOrEqual(3);
      const t = await measured('DELETE', `${base}/threads/t`, who);
      expect(t.status, base).toBe(204);
      expect(t.trips, base).toBeLessThanOrEqual(3);
      const gone = await measured('GET', `${base}/threads/t`, who);
      expect(gone.status, base).toBe(404);
      expect(gone.trips, base).toBeLessThanOrEqual(3);
    }
  });

  it('deleting a document variable or one of its attributes costs at most three round trips', async () => {
    const u = await makeUser();
    await call('GET', '/v1/whoami', { token: u.token });
    expect((await call('PUT', '/v1/vis/docs/dv', { token: u.token })).status).toBe(201);
    expect((await call('PUT', '/v1/vis/docs/dv/vars/g', { token: u.token })).status).toBe(201);
    expect((await call('POST', '/v1/vis/docs/dv/vars/g/about', { token: u.token, text: 'x' })).status).toBe(204);
    expect((await measured('DELETE', '/v1/vis/docs/dv/vars/g/about', u)).trips).toBeLessThanOrEqual(3);
    const r = await measured('DELETE', '/v1/vis/docs/dv/vars/g', u);
    expect(r.status).toBe(204);
    expect(r.trips).toBeLessThanOrEqual(3);
  });
});
