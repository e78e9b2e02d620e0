// Deleting an account (DELETE /v1/admin/account, DELETE /v1/ops/users/<user>): everything it owned goes (D1 rows, R2
// blobs, Durable Object storage of its runs and mails, the user groups of its namespace), others' items stay, its name
// answers 404 on every GET route and can be taken again; groups it founded with others never block it, an organisation
// account's organisation does; a removal cut off between steps is finished by the tick.
import { env, runInDurableObject } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { platformApi } from '../../../src/app';
import { continueDeletion, markDeleted, resumeDeletions } from '../../../src/accounts/deletion';
import { dbFor } from '../../../src/core/context';
import { users } from '../../../src/db/schema';
import { call, makeUser, OPS, unique } from '../helpers';
import { makeGroup, makeOrg, newDoc, PNG, upload } from '../docs/fixtures';
import { makeJob, newestRun, trigger, waitStatus } from '../jobs/fixtures';
import { newMail, post, untilReady } from '../mail/fixtures';
import { gql } from '../gql/fixtures';

const T = { timeout: 60_000 };
const db = dbFor(env);
const J = '/v1/code/jobs';

const one = async <R>(q: string, ...args: unknown[]) =>
  (await env.DB.prepare(q)
    .bind(...args)
    .first()) as R | null;
const all = async <R>(q: string, ...args: unknown[]) =>
  (
    await env.DB.prepare(q)
      .bind(...args)
      .all()
  ).results as R[];
const idOf = async (username: string) =>
  (await one<{ id: number }>('select id from users where username = ?', username))?.id;

/** An account with one of everything, and another user around it. */
async function world() {
  const email = `${unique('m')}@example.com`;
  const a = await makeUser({ email, email_verified: true });
  const b = await makeUser();
  const aId = (await idOf(a.username))!;
  // b founds a group, a joins it; a's document (with an asset) is shared into it.
  const g = await makeGroup(b, [{ user: a }]);
  // a's own user group, with b as a co-founder, a picture, and b's document shared into it: it goes with a.
  const own = await makeGroup(a, [{ user: b }]);
  const ownPath = `/v1/admin/groups/${own.ref}`;
  expect((await call('PUT', `${ownPath}/roles/founders/${b.username}`, { token: a.token })).status).toBe(200);
  expect((await upload(a, `${ownPath}/profile/picture/image`, 'image/png', PNG)).status).toBeLessThan(300);
  const ownId = (await one<{ id: number }>('select id from groups where ref = ?', own.ref))!.id;
  const doc = await newDoc(a, '# mine');
  expect((await upload(a, `${doc.path}/assets/pic`, 'image/png', PNG)).status).toBe(201);
  expect((await call('PUT', `${doc.path}/shared/${g.ref}`, { token: a.token })).status).toBe(201);
  expect((await call('PUT', `${doc.path}/tags/fav`, { token: a.token })).status).toBe(201);
  // a grid, an e-mail with a test send, a job with a run
  const grid = unique('g');
  expect((await call('PUT', `/v1/vis/grids/${grid}`, { token: a.token })).status).toBe(201);
  const mail = await newMail(a, { content: 'hi', subject: 'S' });
  expect((await post(a, mail.path, { text: 'testing' })).status).toBe(202);
  await untilReady(a, mail.path);
  const job = unique('j');
  await makeJob(a, job, `export default { async run() { return 'ok' } }`);
  expect((await trigger(a.token, `${J}/${job}`)).status).toBeLessThan(300);
  const run = await newestRun(a.token, job);
  await waitStatus(a.token, `${J}/${job}`, run, (s) => s === 'success');
  // a thread a opened on its document, with b's comment in it
  const theirs = `/v1/users/${a.username}/vis/docs/${doc.name}`;
  expect((await call('PUT', `${doc.path}/threads/mine`, { token: a.token })).status).toBe(201);
  expect((await call('POST', `${theirs}/threads/mine`, { token: b.token, text: 'b says' })).status).toBe(201);
  // b's document shared into the group: a tags it, comments in b's thread and opens a thread of its own there
  const bDoc = await newDoc(b, '# theirs');
  expect((await call('PUT', `${bDoc.path}/shared/${g.ref}`, { token: b.token })).status).toBe(201);
  expect((await call('PUT', `${bDoc.path}/shared/${own.ref}`, { token: b.token })).status).toBe(201);
  const bPath = `/v1/users/${b.username}/vis/docs/${bDoc.name}`;
  expect((await call('PUT', `${bDoc.path}/threads/talk`, { token: b.token })).status).toBe(201);
  expect((await call('POST', `${bPath}/threads/talk`, { token: a.token, text: 'a says' })).status).toBe(201);
  expect((await call('PUT', `${bPath}/threads/aside`, { token: a.token })).status).toBe(201);
  expect(
    (await call('POST', `${bDoc.path}/threads/@${a.username}~aside`, { token: b.token, text: 'b replies' })).status,
  ).toBe(201);
  expect((await call('PUT', `${bPath}/tags/like`, { token: a.token })).status).toBe(201);
  // b's job shared with the group: a runs it
  const bJob = unique('j');
  await makeJob(b, bJob, `export default { async run() { return 'ok' } }`);
  expect((await call('PUT', `${J}/${bJob}/shared/${g.ref}~rx`, { token: b.token })).status).toBe(201);
  expect((await trigger(a.token, `/v1/users/${b.username}/code/jobs/${bJob}`)).status).toBeLessThan(300);
  const bRun = await newestRun(b.token, bJob);
  await waitStatus(b.token, `${J}/${bJob}`, bRun, (s) => s === 'success');
  // What names a before: its runs (of its job and b's), its test in the outbox.
  expect((await all('select 1 from job_runs where created_by = ?', a.username)).length).toBe(2);
  // The outbox rows name their account: its test is its own, the invitation to it is b's.
  const owners = (kind: string) =>
    all<{ owner_id: number | null }>(
      `select owner_id from outbox where kind = ? and recipients like ?`,
      kind,
      `%${email}%`,
    );
  expect((await owners('test')).map((r) => r.owner_id)).toEqual([aId]);
  expect((await owners('invite')).map((r) => r.owner_id)).toEqual([await idOf(b.username)]);
  // a second token
  const second = await call('POST', '/v1/token', {
    json: { username: a.username, password: a.password, token_name: 'two' },
  });
  expect(second.status).toBe(200);
  const resourceIds = (await all<{ id: number }>('select id from resources where owner_id = ?', aId)).map((r) => r.id);
  expect(resourceIds).toHaveLength(4);
  const runNames = (
    await all<{ name: string }>(
      `select name from job_runs where job_id in (select id from resources where owner_id = ?)`,
      aId,
    )
  ).map((r) => r.name);
  expect(runNames.length).toBeGreaterThan(0);
  return { a, b, aId, email, g, own, ownId, doc, grid, mail, job, run, runNames, resourceIds, bPath, bDoc, bJob, bRun };
}

/** The platform's own tables (not SQLite's, D1's or the migrations record). */
const appTables = () =>
  all<{ name: string }>(
    `select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name != 'd1_migrations'`,
  );

/** Every column of every table that names a user id (foreign keys to users, and the ones kept without one). */
async function userColumns(): Promise<[string, string][]> {
  const tables = await appTables();
  const cols: [string, string][] = [
    ['mail_suppressions', 'owner_id'],
    ['outbox', 'owner_id'],
    ['members', 'invited_by'],
    ['account_deletions', 'user_id'],
  ];
  for (const t of tables) {
    for (const fk of await all<{ table: string; from: string }>(`select * from pragma_foreign_key_list(?)`, t.name))
      if (fk.table === 'users') cols.push([t.name, fk.from]);
  }
  return cols;
}

async function resourceColumns(): Promise<[string, string][]> {
  const tables = await appTables();
  const cols: [string, string][] = [['job_runs', 'root_job_id']];
  for (const t of tables)
    for (const fk of await all<{ table: string; from: string }>(`select * from pragma_foreign_key_list(?)`, t.name))
      if (fk.table === 'resources') cols.push([t.name, fk.from]);
  return cols;
}

/** Nothing in D1, R2 or Durable Object storage is left of the account's own. */
async function expectNothingLeft(w: Awaited<ReturnType<typeof world>>) {
  for (const [table, col] of await userColumns())
    expect(await one(`select 1 from ${table} where ${col} = ?`, w.aId), `${table}.${col}`).toBeNull();
  expect(await one('select 1 from users where id = ?', w.aId)).toBeNull();
  for (const [table, col] of await resourceColumns())
    for (const id of w.resourceIds)
      expect(await one(`select 1 from ${table} where ${col} = ?`, id), `${table}.${col}`).toBeNull();
  for (const id of w.resourceIds)
    expect((await env.BLOBS.list({ prefix: `r/${id}/` })).objects, `r/${id}/`).toEqual([]);
  for (const name of w.runNames) {
    const stub = env.RUNS.get(env.RUNS.idFromName(name));
    const left = await runInDurableObject(stub, async (_i, s) => ({
      kv: (await s.storage.list()).size,
      // The instance may live on after its storage went (no log table then) or be built again (an empty one).
      log: s.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'log'").toArray().length
        ? s.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM log').one().n
        : 0,
      alarm: await s.storage.getAlarm(),
    }));
    expect(left, `run ${name}`).toEqual({ kv: 0, log: 0, alarm: null });
  }
  // Its user group went with its roles, pictures and b's share into it (b's document stays, shared with b's group).
  for (const table of ['groups', 'members', 'group_entries', 'threads'])
    expect(
      await one(`select 1 from ${table} where ${table === 'groups' ? 'id' : 'group_id'} = ?`, w.ownId),
      table,
    ).toBeNull();
  expect(await one('select 1 from shares where group_id = ?', w.ownId)).toBeNull();
  expect((await env.BLOBS.list({ prefix: `g/${w.ownId}/` })).objects).toEqual([]);
  expect(await one('select 1 from shares where entry = ?', w.g.ref)).not.toBeNull();
  const mailStub = env.MAILS.get(env.MAILS.idFromName(String(w.mail.id)));
  expect(await runInDurableObject(mailStub, async (_i, s) => (await s.storage.list()).size)).toBe(0);
  // Others' items stay: b's document and thread, a's comment there by "deleted user"; b's comment in a's thread went.
  const comments = (await (await call('GET', `${w.bDoc.path}/threads/talk`, { token: w.b.token })).json()) as {
    author: string;
    text: string;
  }[];
  expect(comments.map((c) => [c.author, c.text])).toEqual([['deleted user', 'a says']]);
  expect(await one('select 1 from thread_comments where text = ?', 'b says')).toBeNull();
  expect(await one('select 1 from thread_comments where text = ?', 'b replies')).toBeNull();
  expect((await call('GET', `${w.bDoc.path}/content`, { token: w.b.token })).status).toBe(200);
  // Its messages went (its tests, to its own address); b's invitation to it is b's.
  expect(await one(`select 1 from outbox where kind = 'test' and recipients like ?`, `%${w.email}%`)).toBeNull();
  expect(await one(`select 1 from outbox where kind = 'invite' and recipients like ?`, `%${w.email}%`)).not.toBeNull();
  // Its run of b's job stays, by "deleted user".
  const stats = await call('GET', `${J}/${w.bJob}/runs/${w.bRun}/stats`, {
    token: w.b.token,
    headers: { Accept: 'application/json' },
  });
  expect(((await stats.json()) as { created_by: string }).created_by).toBe('deleted user');
  expect(await one('select 1 from job_runs where created_by = ?', w.a.username)).toBeNull();
  // GraphQL names its comment in b's thread as REST does.
  const q = await gql(
    w.b.token,
    `query($id: ID!) { docs(id: $id) { topics { slug comments { message creator { username } } } } }`,
    {
      id: w.bDoc.name,
    },
  );
  expect(q.body.errors, JSON.stringify(q.body.errors)).toBeUndefined();
  const topics = (q.body.data as { docs: { topics: { slug: string; comments: unknown[] }[] }[] }).docs[0]!.topics;
  expect(topics.find((t) => t.slug === 'talk')!.comments).toEqual([
    { message: 'a says', creator: { username: 'deleted user' } },
  ]);
}

/** Every GET route of the OpenAPI document with the deleted name as its user (or its document's shortname): 404. */
async function not404(w: Awaited<ReturnType<typeof world>>, shortname: string, renders = true): Promise<string[]> {
  const doc = platformApi().openApiDocument() as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  const fill: Record<string, string> = {
    user: w.a.username,
    owner: w.a.username,
    doc: w.doc.name,
    grid: w.grid,
    mail: w.mail.name,
    job: w.job,
    run: w.run,
    topic: 'mine',
    asset: 'pic',
    shortname,
  };
  const wrong: string[] = [];
  let checked = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!ops.get || !/\{(user|owner|shortname)\}/.test(path)) continue;
    // Rendered files (a browser, seconds each) are left out while the account still exists.
    if (!renders && /pdf|pptx|png|img|files|\/u\/|\/s\//.test(path)) continue;
    const url = path.replace(/\{(\w+)\}/g, (_m, p: string) => encodeURIComponent(fill[p] ?? 'x1'));
    const res = await call('GET', url, { token: w.b.token });
    checked++;
    if (res.status !== 404) wrong.push(`${url} ${res.status}`);
  }
  expect(checked).toBeGreaterThan(50);
  return wrong;
}

describe('deleting an account', T, () => {
  it('DELETE /v1/admin/account needs the password: 400 without, 403 wrong, 401 without a token', async () => {
    const u = await makeUser();
    expect((await call('DELETE', '/v1/admin/account', { token: u.token, json: {} })).status).toBe(400);
    expect((await call('DELETE', '/v1/admin/account', { token: u.token })).status).toBe(415); // no JSON body
    expect((await call('DELETE', '/v1/admin/account', { token: u.token, json: { password: 'nope' } })).status).toBe(
      403,
    );
    expect((await call('DELETE', '/v1/admin/account', { json: { password: u.password } })).status).toBe(401);
    expect((await call('GET', '/v1/whoami', { token: u.token })).status).toBe(200);
  });

  it('removes everything the account owned and nothing of others; its name 404s on every GET route', async () => {
    const w = await world();
    const shortname = (await one<{ shortname: string }>(
      'select shortname from resources where id = ?',
      w.resourceIds[0],
    ))!.shortname;
    // Before: b reads a's shared document and its threads through many of these routes.
    expect((await not404(w, shortname, false)).length).toBeGreaterThan(20);
    const res = await call('DELETE', '/v1/admin/account', { token: w.a.token, json: { password: w.a.password } });
    expect(res.status, await res.clone().text()).toBe(204);
    expect((await call('GET', '/v1/whoami', { token: w.a.token })).status).toBe(401);
    expect((await call('POST', '/v1/token', { json: { username: w.a.username, password: w.a.password } })).status).toBe(
      401,
    );
    await expectNothingLeft(w);
    expect(await not404(w, shortname)).toEqual([]);
    // b's group lost its member; its shares of a's document went with the document.
    expect(
      await one(
        'select 1 from members where group_id = (select id from groups where ref = ?) and user_id = ?',
        w.g.ref,
        w.aId,
      ),
    ).toBeNull();
  });

  it('the name can be taken again and inherits nothing', async () => {
    const w = await world();
    expect((await call('DELETE', `/v1/ops/users/${w.a.username}`, { token: OPS })).status).toBe(204);
    const again = await call('PUT', `/v1/ops/users/${w.a.username}`, { token: OPS, json: { password: 'new one' } });
    expect(again.status).toBe(201);
    const tok = await call('POST', '/v1/token', { json: { username: w.a.username, password: 'new one' } });
    const { token } = (await tok.json()) as { token: string };
    expect(((await (await call('GET', '/v1/vis/docs', { token })).json()) as unknown[]).length).toBe(0);
    expect((await call('GET', `/v1/vis/docs/${w.doc.name}`, { token })).status).toBe(404);
    expect((await call('GET', `/v1/code/jobs/${w.job}`, { token })).status).toBe(404);
    expect((await call('GET', `${w.bPath}/content`, { token })).status).toBe(404); // the group membership went
    expect(
      (
        (await (await call('GET', `${w.bDoc.path}/threads/talk`, { token: w.b.token })).json()) as { author: string }[]
      )[0]!.author,
    ).toBe('deleted user');
    expect((await call('GET', `/v1/users/${w.a.username}/groups`, { token: w.b.token })).status).toBe(200);
    expect(await one('select 1 from tags where user_id = ?', await idOf(w.a.username))).toBeNull();
  });

  it('an organisation account is refused with 409 naming its organisation, and deleted once it is gone', async () => {
    const u = await makeUser({ account: 'organisation' }, 'o');
    const org = unique('org').slice(0, 30);
    expect((await call('PUT', `/v1/admin/orgs/${org}`, { token: u.token })).status).toBe(201);
    const res = await call('DELETE', '/v1/admin/account', { token: u.token, json: { password: u.password } });
    expect(res.status).toBe(409);
    const body = (await res.json()) as { message: string; groups: string[] };
    expect(body.groups).toEqual([`+${org}`]);
    expect(body.message).toContain(`+${org}`);
    expect((await call('GET', '/v1/whoami', { token: u.token })).status).toBe(200);
    expect((await call('DELETE', `/v1/ops/users/${u.username}`, { token: OPS })).status).toBe(409);
    expect((await call('DELETE', `/v1/admin/orgs/${org}`, { token: u.token })).status).toBe(204);
    expect((await call('DELETE', '/v1/admin/account', { token: u.token, json: { password: u.password } })).status).toBe(
      204,
    );
  });

  it('only an active founder role counts: a founder invitation declined or never answered does not block', async () => {
    const [b, e, p] = await Promise.all([makeUser(), makeUser(), makeUser()]);
    const slug = unique('bg').slice(0, 30);
    const path = `/v1/admin/groups/${slug}`;
    const ref = `@${b.username}~${slug}`;
    expect((await call('PUT', path, { token: b.token })).status).toBe(201);
    expect((await call('PUT', `${path}/roles/founders/${e.username}`, { token: b.token })).status).toBe(201);
    expect((await call('PUT', `${path}/roles/founders/${p.username}`, { token: b.token })).status).toBe(201);
    expect((await call('POST', `/v1/admin/invites/${ref}/accept`, { token: e.token, text: 'no' })).status).toBe(200);
    const res = await call('DELETE', '/v1/admin/account', { token: e.token, json: { password: e.password } });
    expect(res.status, await res.clone().text()).toBe(204);
    expect((await call('DELETE', `/v1/ops/users/${p.username}`, { token: OPS })).status).toBe(204);
    const founders = (await (await call('GET', `${path}/roles/founders`, { token: b.token })).json()) as {
      name: string;
    }[];
    expect(founders.map((f) => f.name)).toEqual([b.username]);
  });

  it('its own user groups go with it, also beside other founders; their names are free from the mark on', async () => {
    const [u, v] = await Promise.all([makeUser(), makeUser()]);
    const g = await makeGroup(u, [{ user: v }]);
    const slug = g.ref.split('~')[1]!;
    const path = `/v1/admin/groups/${g.ref}`;
    expect((await call('PUT', `${path}/roles/founders/${v.username}`, { token: u.token })).status).toBe(200);
    const vDoc = await newDoc(v, '# v');
    expect((await call('PUT', `${vDoc.path}/shared/${g.ref}`, { token: v.token })).status).toBe(201);
    const id = (await one<{ id: number }>('select id from groups where ref = ?', g.ref))!.id;
    const uId = (await idOf(u.username))!;
    // Marked only (as if cut off right after the mark): the group already answers 404 and its name is free.
    await markDeleted(db, (await db.select().from(users).where(eq(users.id, uId)).get())!);
    expect((await call('GET', path, { token: v.token })).status).toBe(404);
    expect((await call('GET', `${path}/roles/founders`, { token: v.token })).status).toBe(404);
    expect(
      (await call('PUT', `/v1/ops/users/${u.username}`, { token: OPS, json: { password: 'new one' } })).status,
    ).toBe(201);
    const tok = await call('POST', '/v1/token', { json: { username: u.username, password: 'new one' } });
    const again = (await tok.json()) as { token: string };
    expect((await call('PUT', `/v1/admin/groups/${slug}`, { token: again.token })).status).toBe(201);
    for (let i = 0; i < 100 && (await continueDeletion(env, db, uId, 1)).done === false; i++);
    expect(await one('select 1 from groups where id = ?', id)).toBeNull();
    expect(await one('select 1 from shares where group_id = ?', id)).toBeNull();
    expect((await call('GET', `${vDoc.path}/content`, { token: v.token })).status).toBe(200); // v's document stays
    // The new account's group of that name is its own, untouched.
    expect(await (await call('GET', `/v1/admin/groups/${slug}/role`, { token: again.token })).text()).toBe('founders');
  });

  it('a group of another namespace or an organisation it co-founded keeps its other founders; its role just goes', async () => {
    const [b, u] = await Promise.all([makeUser(), makeUser()]);
    const bg = await makeGroup(b, [{ user: u }]);
    const bPath = `/v1/admin/groups/${bg.ref}`;
    expect((await call('PUT', `${bPath}/roles/founders/${u.username}`, { token: b.token })).status).toBe(200);
    const org = await makeOrg();
    const orgPath = `/v1/admin/orgs/${org.slug}`;
    const og = await makeGroup(org.owner, [], { org });
    const ogPath = `${orgPath}/groups/${og.ref.split('~')[1]}`;
    for (const [p, ref] of [
      [orgPath, `+${org.slug}`],
      [ogPath, og.ref],
    ] as const) {
      expect((await call('PUT', `${p}/roles/founders/${u.username}`, { token: org.owner.token })).status).toBe(201);
      expect((await call('POST', `/v1/admin/invites/${ref}/accept`, { token: u.token, text: 'yes' })).status).toBe(200);
    }
    const res = await call('DELETE', '/v1/admin/account', { token: u.token, json: { password: u.password } });
    expect(res.status, await res.clone().text()).toBe(204);
    for (const [p, owner] of [
      [bPath, b],
      [orgPath, org.owner],
      [ogPath, org.owner],
    ] as const) {
      const founders = (await (await call('GET', `${p}/roles/founders`, { token: owner.token })).json()) as {
        name: string;
      }[];
      expect(founders.map((f) => f.name)).toEqual([owner.username]);
    }
  });

  it("an organisation group it alone founded stays; the organisation's founders and admins claim it", async () => {
    const [org, u] = await Promise.all([makeOrg(), makeUser()]);
    const orgPath = `/v1/admin/orgs/${org.slug}`;
    expect((await call('PUT', `${orgPath}/roles/admins/${u.username}`, { token: org.owner.token })).status).toBe(201);
    expect((await call('POST', `/v1/admin/invites/+${org.slug}/accept`, { token: u.token, text: 'yes' })).status).toBe(
      200,
    );
    const slug = unique('og').slice(0, 30);
    const path = `${orgPath}/groups/${slug}`;
    expect((await call('PUT', path, { token: u.token })).status).toBe(201);
    const member = await makeUser();
    expect((await call('PUT', `${path}/roles/members/${member.username}`, { token: u.token })).status).toBe(201);
    expect(
      (await call('POST', `/v1/admin/invites/+${org.slug}~${slug}/accept`, { token: member.token, text: 'yes' }))
        .status,
    ).toBe(200);
    const res = await call('DELETE', `/v1/ops/users/${u.username}`, { token: OPS });
    expect(res.status, await res.clone().text()).toBe(204);
    // The group and its member stay; the organisation account (its founder) claims the founders role, then manages.
    expect(await (await call('GET', `${path}/role`, { token: member.token })).text()).toBe('members');
    const claim = await call('PUT', `${path}/roles/founders/${org.owner.username}`, { token: org.owner.token });
    expect(claim.status, await claim.clone().text()).toBe(201);
    expect((await call('DELETE', path, { token: org.owner.token })).status).toBe(204);
  });

  it('an invitation it sent stays pending and names "deleted user" as its inviter', async () => {
    const a = await makeUser();
    const c = await makeUser();
    const d = await makeUser();
    const slug = unique('g').slice(0, 30);
    expect((await call('PUT', `/v1/admin/groups/${slug}`, { token: d.token })).status).toBe(201);
    // As if a, an admin of d's group then, had invited c (written straight into the table).
    const now = new Date().toISOString();
    await env.DB.prepare(
      `insert into members (group_id, user_id, role, state, invited_by, created_on, last_modified)
       select id, ?, 'members', 'pending', ?, ?, ? from groups where ref = ?`,
    )
      .bind(await idOf(c.username), await idOf(a.username), now, now, `@${d.username}~${slug}`)
      .run();
    const inviter = async () =>
      ((await (await call('GET', '/v1/admin/invites', { token: c.token })).json()) as { invited_by: string }[]).map(
        (i) => i.invited_by,
      );
    expect(await inviter()).toEqual([a.username]);
    expect((await call('DELETE', `/v1/ops/users/${a.username}`, { token: OPS })).status).toBe(204);
    expect(await inviter()).toEqual(['deleted user']);
  });

  it('DELETE /v1/ops/users/<user> of an unknown user is 404', async () => {
    expect((await call('DELETE', `/v1/ops/users/${unique('nobody')}`, { token: OPS })).status).toBe(404);
  });

  it('resumable: marked, then cut off after every step, the scheduled ticks finish it', async () => {
    const w = await world();
    const user = (await db.select().from(users).where(eq(users.id, w.aId)).get())!;
    await markDeleted(db, user);
    // From the mark on: no sign-in, no token, 404 by name, the name is free.
    expect((await call('GET', '/v1/whoami', { token: w.a.token })).status).toBe(401);
    expect((await call('GET', `/v1/users/${w.a.username}/vis/docs/${w.doc.name}`, { token: w.b.token })).status).toBe(
      404,
    );
    expect(await idOf(w.a.username)).toBeUndefined();
    // One step per tick, as if each tick were killed after its step.
    let ticks = 0;
    for (; ticks < 200; ticks++) {
      const { done } = await continueDeletion(env, db, w.aId, 1);
      if (done) break;
    }
    expect(ticks).toBeGreaterThan(5); // it did take several steps
    expect(ticks).toBeLessThan(200);
    await expectNothingLeft(w);
  });

  it('the scheduled tick continues a marked account', async () => {
    const w = await world();
    const user = (await db.select().from(users).where(eq(users.id, w.aId)).get())!;
    await markDeleted(db, user);
    for (let i = 0; i < 50 && (await idOf(`deleted:${w.aId}`)); i++) await resumeDeletions(env, db, 2);
    await expectNothingLeft(w);
  });
});
