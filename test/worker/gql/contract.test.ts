// The client contract's GraphQL (docs/areas/gql.md, "Client commands supported"):
// each query shape the platform's command line sends, with the same variable declarations,
// validates against the served schema and answers with the caller's visibility.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, makeUser, type TestUser } from '../helpers';
import { buildWorld, gql, ok, type World } from './fixtures';

const ITEM = `id name type summary url updated created public shared { id name type } tags { id name type } author { username } social { views }
  topics { num_comments num_likes num_dislikes } vars { id value format type threshold }`;
const JOB = `${ITEM} last_run_status last_run_time run_count job_steps current_step schedule triggers`;
const itemOf = (field: string) => (field === 'jobs' ? JOB : ITEM);

const USER = `username name type bio public relationship { orgs groups follower connected following ignoring } social { followers following connections }`;
const USERS = `query Users($limit: Int, $offset: Int) { users(limit: $limit, offset: $offset) { ${USER} plots { id } grids { id } mails { id } docs { id } repos { id } jobs { id } } }`;

const GROUP = `id name type description public is_open enable_subdomain allow_inbound_mail mail_verify_spf mail_verify_dkim created
  founders { ${USER} } admins { ${USER} } superusers { ${USER} } members { ${USER} }
  invited { admins { username } superusers { username } members { username } }
  groups { id name type } plots { id } repos { id }
  grids { id name author { username } } mails { id name author { username } } docs { id name author { username } } jobs { id name author { username } last_run_time }`;

const MENTIONS = 'mentions { nonce user { username } }';
const COMMENT_FIELDS = `comment_id slug message depth deleted edited num_replies likes dislikes my_reaction created updated creator { username } ${MENTIONS}`;
const TOPICS = `topics { topic_id slug message audience status num_comments likes dislikes my_reaction edited created updated creator { username } ${MENTIONS}
  comments { ${COMMENT_FIELDS} replies { ${COMMENT_FIELDS} replies { ${COMMENT_FIELDS} replies { ${COMMENT_FIELDS} } } } } }`;
const VARS = 'vars { id value format type threshold }';
const getTopics = (field: string) =>
  `query GetTopics($id: ID!, $author: String) { me { username } ${field}(id: $id, author: $author) { ${VARS} ${TOPICS} } }`;
const GET_GROUP_TOPICS = `query GetGroupTopics($name: String!, $type: GroupType!, $parent_group: String) { me { username } groups(name: $name, type: $type, parent_group: $parent_group) { ${TOPICS} } }`;

const RFC2822_UTC =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} UTC$/;
const FIELDS = ['docs', 'grids', 'mails', 'jobs'] as const;
const COLL = { docs: 'vis/docs', grids: 'vis/grids', mails: 'vis/mails', jobs: 'code/jobs' } as const;

type Row = Record<string, unknown>;
async function data(
  token: string | null,
  query: string,
  variables?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { status, body } = await gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data!;
}

const sql = (q: string, ...args: unknown[]) => env.DB.prepare(q).bind(...args);
const idOf = async (table: string, where: string, ...args: unknown[]) =>
  (await sql(`select id from ${table} where ${where}`, ...args).first<{ id: number }>())!.id;

let w: World;
let invitee: TestUser;
let topic: string;
beforeAll(async () => {
  w = await buildWorld();
  invitee = await makeUser();
  const now = new Date().toISOString();
  const ownerId = await idOf('users', 'username = ?', w.owner.username);
  // Profile text (the REST side is another area's; the storage is users.name / bio).
  await sql("update users set name = 'Olive Owner', bio = 'writes things' where id = ?", ownerId).run();
  // Entries the client reads: a grid summary and type, a document variable.
  const grid = await idOf('resources', "owner_id = ? and kind = 'grid' and name = ?", ownerId, w.names.team);
  await sql(
    "insert into entries (resource_id, path, value, size, created_on, last_modified) values (?1, 'summary', 'grid about', 10, ?2, ?2), (?1, 'config/type', 'board', 5, ?2, ?2)",
    grid,
    now,
  ).run();
  await ok(call('PUT', `/v1/vis/docs/${w.names.team}/vars/growth`, { token: w.owner.token }));
  await ok(call('POST', `/v1/vis/docs/${w.names.team}/vars/growth/value`, { token: w.owner.token, text: '12.5' }));
  // Two top-level runs of the team job (rows of the jobs area's table).
  const job = await idOf('resources', "owner_id = ? and kind = 'job' and name = ?", ownerId, w.names.team);
  for (const [i, status, trigger, at] of [
    [1, 'success', 'api', '2024-11-29T09:39:33.000Z'],
    [2, 'failed', 'email', '2024-11-30T10:00:00.000Z'],
  ] as const) {
    await sql(
      "insert into job_runs (name, shortname, job_id, top, root_job_id, status, trigger, source, created_by, started_on) values (?, ?, ?, 1, ?, ?, ?, 'test', 'test', ?)",
      `r${job}x${i}`,
      `s${job}x${i}`,
      job,
      job,
      status,
      trigger,
      at,
    ).run();
  }
  // A topic with a comment mentioning the owner, on the team document.
  topic = 'review';
  await ok(
    call('PUT', `/v1/users/${w.owner.username}/vis/docs/${w.names.team}/threads/${topic}`, { token: w.member.token }),
  );
  await ok(
    call('POST', `/v1/users/${w.owner.username}/vis/docs/${w.names.team}/threads/${topic}`, {
      token: w.member.token,
      text: `looks good @${w.owner.username} and @nobody_here`,
    }),
  );
  // The sales group: a thread, a pending invitee, the DKIM check on.
  const sales = await idOf('groups', 'ref = ?', `+${w.org}~sales`);
  await sql(
    "insert into threads (group_id, topic, created_by, created_on) values (?, 'plans', ?, ?)",
    sales,
    ownerId,
    now,
  ).run();
  await sql(
    "insert into members (group_id, user_id, role, state, created_on, last_modified) values (?, ?, 'members', 'pending', ?, ?)",
    sales,
    await idOf('users', 'username = ?', invitee.username),
    now,
    now,
  ).run();
  await sql(
    "insert into group_entries (group_id, path, value, size, created_on, last_modified) values (?, 'options/mail_verify_dkim', 'yes', 3, ?, ?)",
    sales,
    now,
    now,
  ).run();
}, 180_000);

describe('item fields and listings (contract: Listings)', () => {
  for (const field of FIELDS) {
    it(`query Me { me { username timezone ${field} { ITEM } } } lists exactly the caller's own ${field}`, async () => {
      const d = await data(w.owner.token, `query Me { me { username timezone ${field} { ${itemOf(field)} } } }`);
      const me = d.me as Row;
      expect(me).toMatchObject({ username: w.owner.username, timezone: 'UTC' });
      const items = me[field] as Row[];
      expect(items.map((i) => i.id)).toEqual(Object.values(w.names).sort());
      for (const i of items) {
        expect(i.updated).toMatch(RFC2822_UTC);
        expect(i.created).toMatch(RFC2822_UTC);
        expect(i.author).toEqual({ username: w.owner.username });
        expect(i.social).toEqual({ views: 0 });
        if (field !== 'docs') expect(i.vars).toEqual([]);
      }
      const team = items.find((i) => i.id === w.names.team)!;
      expect(team.shared).toEqual([{ id: w.team, name: 'team', type: 'user_group' }]);
      expect(items.find((i) => i.id === w.names.pub)!.public).toBe(true);
      // the same list as REST
      const rest = (await (await call('GET', `/v1/${COLL[field]}`, { token: w.owner.token })).json()) as {
        name: string;
      }[];
      expect(items.map((i) => i.id)).toEqual(rest.map((r) => r.name));
    });

    it(`query List($author, $limit, $offset) { ${field}(...) } lists another user's ${field} by the caller's visibility`, async () => {
      const q = `query List($author: String, $limit: Int, $offset: Int) { ${field}(author: $author, limit: $limit, offset: $offset) { ${itemOf(field)} } }`;
      const ids = async (u: TestUser | null) =>
        ((await data(u?.token ?? null, q, { author: w.owner.username, limit: 10, offset: 0 }))[field] as Row[]).map(
          (i) => i.id,
        );
      expect(await ids(w.member)).toEqual([w.names.pub, w.names.team]);
      expect(await ids(w.salesMember)).toEqual([w.names.pub, w.names.sales]);
      expect(await ids(w.orgAdmin)).toEqual([w.names.pub]); // oversight is over groups, not shares
      expect(await ids(w.stranger)).toEqual([w.names.pub]);
      expect(await ids(null)).toEqual([w.names.pub]);
      const paged = (await data(w.member.token, q, { author: w.owner.username, limit: 1, offset: 1 }))[field] as Row[];
      expect(paged.map((i) => i.id)).toEqual([w.names.team]);
    });
  }

  for (const field of ['docs', 'grids', 'mails'] as const) {
    it(`${field}(id: $id, author: $author) with $id: ID! validates and finds one item; an invisible one is not answered`, async () => {
      const q = `query One($id: ID!, $author: String) { ${field}(id: $id, author: $author) { ${ITEM} } }`;
      const found = (await data(w.member.token, q, { id: w.names.team, author: w.owner.username }))[field] as Row[];
      expect(found.map((i) => i.id)).toEqual([w.names.team]);
      const hidden = (await data(w.member.token, q, { id: w.names.priv, author: w.owner.username }))[field] as Row[];
      expect(hidden).toEqual([]);
    });
  }

  it('grid summary and type come from the summary and config/type entries; docs type defaults to doc; url is canonical', async () => {
    const d = await data(
      w.member.token,
      `query List($author: String) { grids(author: $author) { id summary type } docs(author: $author) { id type url } }`,
      {
        author: w.owner.username,
      },
    );
    expect((d.grids as Row[]).find((g) => g.id === w.names.team)).toMatchObject({
      summary: 'grid about',
      type: 'board',
    });
    expect((d.docs as Row[]).find((g) => g.id === w.names.team)).toMatchObject({
      type: 'doc',
      url: expect.stringContaining(`/u/${w.owner.username}/d/${w.names.team}`),
    });
  });

  it('document vars answer id value format type threshold', async () => {
    const d = await data(w.member.token, getTopics('docs'), { id: w.names.team, author: w.owner.username });
    expect((d.docs as Row[])[0]!.vars).toEqual([
      { id: 'growth', value: '12.5', format: '', type: 'number', threshold: '' },
    ]);
  });

  it('job fields: runs counted, the latest run status and time in RFC 2822, steps, triggers; runs hidden from a public-only reader', async () => {
    const q = `query List($author: String, $limit: Int, $offset: Int) { jobs(author: $author, limit: $limit, offset: $offset) { ${JOB} } }`;
    const team = ((await data(w.member.token, q, { author: w.owner.username }))['jobs'] as Row[]).find(
      (j) => j.id === w.names.team,
    )!;
    expect(team).toMatchObject({
      last_run_status: 'failed',
      last_run_time: 'Sat, 30 Nov 2024 10:00:00 UTC',
      run_count: 2,
      job_steps: 1,
      current_step: null,
      schedule: null,
      triggers: ['api', 'email'],
    });
    const pub = ((await data(w.stranger.token, q, { author: w.owner.username }))['jobs'] as Row[])[0]!;
    expect(pub).toMatchObject({
      id: w.names.pub,
      last_run_status: null,
      last_run_time: null,
      run_count: null,
      triggers: ['api'],
    });
  });

  it("Me.timezone is the account's timezone (users.timezone); a new account lists no items", async () => {
    const u = await makeUser();
    // Set before the token is first used (the token cache holds the account row briefly).
    await sql("update users set timezone = 'Europe/Oslo' where username = ?", u.username).run();
    const d = await data(u.token, `query Me { me { username timezone docs { ${ITEM} } jobs { ${JOB} } } }`);
    expect(d.me).toEqual({ username: u.username, timezone: 'Europe/Oslo', docs: [], jobs: [] });
  });

  it('anonymous me is null and an anonymous listing without author is UNAUTHENTICATED', async () => {
    const { body } = await gql(null, 'query Me { me { username timezone docs { id } } }');
    expect(body.data!.me).toBeNull();
    const list = await gql(
      null,
      'query List($author: String, $limit: Int, $offset: Int) { docs(author: $author, limit: $limit, offset: $offset) { id } }',
      {},
    );
    expect(list.body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  it('a String $id for an ID argument still validates (ID accepts strings); an Int $id is refused', async () => {
    const bad = await gql(w.owner.token, 'query One($id: Int!) { docs(id: $id) { id } }', { id: 1 });
    expect(bad.body.errors![0]!.message).toMatch(/Int!.*ID/);
  });
});

describe('users (contract: users(limit, offset))', () => {
  it('lists users with a public profile and the caller, with name, bio, type, relationship and social, and their readable items', async () => {
    const d = await data(w.member.token, USERS, { limit: 1000, offset: 0 });
    const list = d.users as Row[];
    const names = list.map((u) => u.username);
    expect(names).toContain(w.owner.username); // public profile
    expect(names).toContain(w.member.username); // the caller
    expect(names).not.toContain(w.stranger.username);
    const owner = list.find((u) => u.username === w.owner.username)!;
    expect(owner).toMatchObject({
      name: 'Olive Owner',
      bio: 'writes things',
      type: 'user',
      public: true,
      relationship: {
        orgs: false,
        groups: false,
        follower: false,
        connected: false,
        following: false,
        ignoring: false,
      },
      social: { followers: 0, following: 0, connections: 0 },
      plots: [],
      repos: [],
    });
    // what the member may read of the owner's
    for (const f of FIELDS) expect((owner[f] as Row[]).map((i) => i.id)).toEqual([w.names.pub, w.names.team]);
    const self = list.find((u) => u.username === w.member.username)!;
    expect(self.docs).toEqual([]);
  });
});

describe('groups and organisations (contract: Groups and organisations)', () => {
  it("me { founder admin superuser member } (singular) and the plural forms list the caller's groups by role", async () => {
    const d = await data(
      w.orgAccount.token,
      `query { me { founder { ${GROUP} } admin { id } superuser { id } member { id } founders { id } members { id } } }`,
    );
    const me = d.me as Row;
    const founded = (me.founder as Row[]).map((g) => g.id);
    expect(founded).toEqual([w.org, `+${w.org}~ops`, `+${w.org}~sales`]);
    expect((me.founders as Row[]).map((g) => g.id)).toEqual(founded);
    expect(me.member).toEqual([]);
  });

  it('groups(id, type: org) is the organisation: options as booleans, roster as users, its groups', async () => {
    const q = `query Org($id: ID, $type: GroupType) { groups(id: $id, type: $type) { ${GROUP} } }`;
    const org = ((await data(w.orgAdmin.token, q, { id: `+${w.org}`, type: 'org' })).groups as Row[])[0]!;
    expect(org).toMatchObject({
      id: w.org,
      name: w.org,
      type: 'org',
      enable_subdomain: true,
      public: false,
      mail_verify_dkim: false,
      created: expect.stringMatching(RFC2822_UTC),
    });
    expect((org.founders as Row[]).map((u) => u.username)).toEqual([w.orgAccount.username]);
    expect((org.admins as Row[]).map((u) => u.username)).toEqual([w.orgAdmin.username]);
    expect((org.founders as Row[])[0]).toMatchObject({ type: 'organisation', relationship: { follower: false } });
    expect((org.groups as Row[]).map((g) => g.id)).toEqual(['ops', 'sales']); // an org's groups by their own names
  });

  it('an org group: members and invitees for roster readers, shared items, mail_verify_dkim; strangers see nothing', async () => {
    const q = `query G($name: String, $type: GroupType, $parent_group: String) { groups(name: $name, type: $type, parent_group: $parent_group) { ${GROUP} } }`;
    const vars = { name: 'sales', type: 'org_group', parent_group: w.org };
    const sales = ((await data(w.salesMember.token, q, vars)).groups as Row[])[0]!;
    expect(sales).toMatchObject({
      id: `+${w.org}~sales`,
      allow_inbound_mail: true,
      mail_verify_dkim: true,
      mail_verify_spf: false,
    });
    expect((sales.members as Row[]).map((u) => u.username)).toEqual([w.salesMember.username]);
    expect(sales.invited).toEqual({ admins: [], superusers: [], members: [{ username: invitee.username }] });
    for (const f of FIELDS)
      expect(sales[f]).toEqual([
        {
          id: w.names.sales,
          name: w.names.sales,
          author: { username: w.owner.username },
          ...(f === 'jobs' ? { last_run_time: null } : {}),
        },
      ]);
    // org oversight sees the group and its roster, but reads no item only shared with it (as GET /v1/o/<group ref>/d)
    const overseen = ((await data(w.orgAdmin.token, q, vars)).groups as Row[])[0]!;
    expect((overseen.members as Row[]).map((u) => u.username)).toEqual([w.salesMember.username]);
    for (const f of FIELDS) expect(overseen[f]).toEqual([]);
    expect(await (await call('GET', `/v1/o/+${w.org}~sales/d`, { token: w.orgAdmin.token })).json()).toEqual([]);
    // a stranger does not see a private group at all
    expect((await data(w.stranger.token, q, vars)).groups).toEqual([]);
    // and the invitee (pending) sees neither roster nor shared items
    const [pending] = (await data(invitee.token, `${q.slice(0, -4)} topics { slug } } }`, vars)).groups as Row[];
    expect(pending).toMatchObject({
      id: `+${w.org}~sales`,
      docs: [],
      jobs: [],
      topics: [],
      members: [],
      invited: { admins: [], superusers: [], members: [] },
    });
  });
});

describe('topics (contract: Topics)', () => {
  for (const field of ['docs', 'grids', 'mails'] as const) {
    it(`GetTopics on ${field} validates (three levels of replies) and answers the item's threads`, async () => {
      const d = await data(w.member.token, getTopics(field), { id: w.names.team, author: w.owner.username });
      expect(d.me).toEqual({ username: w.member.username });
      const item = (d[field] as Row[])[0]!;
      if (field !== 'docs') {
        expect(item.topics).toEqual([]);
        return;
      }
      const [t] = item.topics as Row[];
      expect(t).toMatchObject({
        slug: topic,
        audience: 'readers',
        status: 'open',
        num_comments: 1,
        likes: 0,
        dislikes: 0,
        my_reaction: null,
        edited: false,
        creator: { username: w.member.username },
      });
      expect(t!.created).toMatch(RFC2822_UTC);
      const [c] = t!.comments as Row[];
      expect(c).toMatchObject({
        message: `looks good @${w.owner.username} and @nobody_here`,
        depth: 0,
        deleted: false,
        num_replies: 0,
        creator: { username: w.member.username },
        mentions: [{ nonce: `@${w.owner.username}`, user: { username: w.owner.username } }],
        replies: [],
      });
      expect(c!.slug).toBe(String(c!.comment_id));
    });
  }

  it('the listing reads num_comments on the list; a stranger does not get a hidden item or its topics', async () => {
    const q = `query List($author: String, $limit: Int, $offset: Int) { docs(author: $author, limit: $limit, offset: $offset) { ${ITEM} } }`;
    const docs = (await data(w.member.token, q, { author: w.owner.username })).docs as Row[];
    expect(docs.find((i) => i.id === w.names.team)!.topics).toEqual([
      { num_comments: 1, num_likes: 0, num_dislikes: 0 },
    ]);
    const none = (await data(w.stranger.token, getTopics('docs'), { id: w.names.team, author: w.owner.username })).docs;
    expect(none).toEqual([]);
  });

  it("GetGroupTopics answers a group's threads to members and org oversight, nothing to others", async () => {
    const vars = { name: 'sales', type: 'org_group', parent_group: w.org };
    const slugs = async (u: TestUser) =>
      ((await data(u.token, GET_GROUP_TOPICS, vars)).groups as Row[]).flatMap((g) =>
        (g.topics as Row[]).map((t) => t.slug),
      );
    expect(await slugs(w.salesMember)).toEqual(['plans']);
    expect(await slugs(w.orgAdmin)).toEqual(['plans']);
    expect(await slugs(w.stranger)).toEqual([]);
    const [t] = ((await data(w.salesMember.token, GET_GROUP_TOPICS, vars)).groups as Row[])[0]!.topics as Row[];
    expect(t).toMatchObject({
      audience: 'members',
      num_comments: 0,
      comments: [],
      creator: { username: w.owner.username },
    });
  });
});

describe("query limits leave room for the client's shapes", () => {
  it("me with every role's full Group selection, and GetTopics with vars, are within depth and cost limits", async () => {
    await data(
      w.orgAccount.token,
      `query { me { username founder { ${GROUP} topics { slug } } admin { ${GROUP} } superuser { ${GROUP} } member { ${GROUP} } } }`,
    );
    await data(w.member.token, getTopics('docs'), { id: w.names.team, author: w.owner.username });
    await data(
      w.member.token,
      `query { me { username timezone docs { ${ITEM} } grids { ${ITEM} } mails { ${ITEM} } jobs { ${JOB} } } }`,
    );
  });
});

describe('org oversight is read-only and over groups, not items', () => {
  it('an item shared with a group is listed with its topics to a member, not to an org admin who may not read the item', async () => {
    await ok(
      call('PUT', `/v1/users/${w.owner.username}/vis/docs/${w.names.sales}/threads/salesnote`, {
        token: w.salesMember.token,
      }),
    );
    const q = `query G($name: String, $type: GroupType, $parent_group: String) { groups(name: $name, type: $type, parent_group: $parent_group) { docs { id topics { slug } } } }`;
    const vars = { name: 'sales', type: 'org_group', parent_group: w.org };
    const docsOf = async (u: TestUser) => ((await data(u.token, q, vars)).groups as Row[])[0]!.docs as Row[];
    expect(await docsOf(w.salesMember)).toEqual([{ id: w.names.sales, topics: [{ slug: 'salesnote' }] }]);
    expect(await docsOf(w.orgAdmin)).toEqual([]);
    // REST agrees: the org admin may not read the item's threads
    expect(
      (
        await call('GET', `/v1/users/${w.owner.username}/vis/docs/${w.names.sales}/threads`, {
          token: w.orgAdmin.token,
        })
      ).status,
    ).toBe(404);
  });
});
