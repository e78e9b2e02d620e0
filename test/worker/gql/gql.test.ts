// GraphQL read API at /gql: each root field against the REST visibility, through the real
// Worker (workerd, local D1/R2).
import { beforeAll, describe, expect, it } from 'vitest';
import { call, makeUser, type TestUser } from '../helpers';
import { buildWorld, COLLECTIONS, gql, ok, type Field, type World } from './fixtures';

let w: World;
beforeAll(async () => {
  w = await buildWorld();
}, 120_000);

type Caller = 'owner' | 'member' | 'orgAdmin' | 'salesMember' | 'stranger' | 'anonymous';
const CALLERS: Caller[] = ['owner', 'member', 'orgAdmin', 'salesMember', 'stranger', 'anonymous'];
const tokenOf = (c: Caller) => (c === 'anonymous' ? null : w[c].token);

/** Which of the owner's resources each caller sees (by visibility of the resource). */
const EXPECTED: Record<Caller, (keyof World['names'])[]> = {
  owner: ['priv', 'pub', 'sales', 'team'],
  member: ['pub', 'team'],
  orgAdmin: ['pub'], // org oversight is over groups, not over what is shared with them
  salesMember: ['pub', 'sales'],
  stranger: ['pub'],
  anonymous: ['pub'],
};

describe('resource listings: the caller x resource visibility table matches REST', () => {
  const FIELDS = Object.keys(COLLECTIONS) as Field[];
  for (const field of FIELDS) {
    it.each(CALLERS)(
      `${field}(author): %s sees exactly what GET /v1/users/:owner/${COLLECTIONS[field]} lists`,
      async (c) => {
        const { status, body } = await gql(tokenOf(c), `query($a: String) { ${field}(author: $a) { id } }`, {
          a: w.owner.username,
        });
        expect(status).toBe(200);
        expect(body.errors).toBeUndefined();
        const ids = (body.data![field] as { id: string }[]).map((i) => i.id);
        const rest = await call('GET', `/v1/users/${w.owner.username}/${COLLECTIONS[field]}`, { token: tokenOf(c) });
        expect(rest.status).toBe(200);
        const restNames = ((await rest.json()) as { name: string }[]).map((i) => i.name);
        expect(ids).toEqual(restNames);
        expect(ids).toEqual(EXPECTED[c].map((k) => w.names[k]).sort());
      },
    );
  }

  it("without author a listing is the caller's own, as GET /v1/vis/docs", async () => {
    const { body } = await gql(w.owner.token, '{ docs { id } grids { id } mails { id } jobs { id } }');
    for (const f of FIELDS)
      expect((body.data![f] as { id: string }[]).map((i) => i.id)).toEqual(Object.values(w.names).sort());
    const other = await gql(w.member.token, '{ docs { id } }');
    expect(other.body.data!.docs).toEqual([]);
  });

  it('anonymous without author answers an UNAUTHENTICATED error, never a listing', async () => {
    const { status, body } = await gql(null, '{ docs { id } }');
    expect(status).toBe(200);
    expect(body.data).toBeNull();
    expect(body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  it('an unknown author is a NOT_FOUND error', async () => {
    const { body } = await gql(w.owner.token, '{ docs(author: "nobody_here_x") { id } }');
    expect(body.errors![0]!.message).toMatch(/no such user/);
    expect(body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  it('id filters one resource; limit and offset page in name order', async () => {
    const one = await gql(w.owner.token, `{ docs(id: "${w.names.team}") { id } }`);
    expect(one.body.data!.docs).toEqual([{ id: w.names.team }]);
    const hidden = await gql(w.stranger.token, `query($a: String) { docs(author: $a, id: "${w.names.priv}") { id } }`, {
      a: w.owner.username,
    });
    expect(hidden.body.data!.docs).toEqual([]);
    const paged = await gql(w.owner.token, '{ docs(limit: 2, offset: 1) { id } }');
    expect((paged.body.data!.docs as { id: string }[]).map((d) => d.id)).toEqual(
      Object.values(w.names).sort().slice(1, 3),
    );
  });

  it('limit above 1000 or a negative offset is a GraphQL error', async () => {
    for (const q of ['{ docs(limit: 1001) { id } }', '{ docs(offset: -1) { id } }', '{ docs(limit: -1) { id } }']) {
      const { status, body } = await gql(w.owner.token, q);
      expect(status).toBe(200);
      expect(body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    }
  });
});

describe('item fields', () => {
  it('a doc carries id name type summary url updated public shared tags', async () => {
    await ok(call('POST', `/v1/vis/docs/${w.names.team}/name`, { token: w.owner.token, text: 'Team notes' }));
    await ok(call('POST', `/v1/vis/docs/${w.names.team}/summary`, { token: w.owner.token, text: 'What we do' }));
    await ok(call('POST', `/v1/vis/docs/${w.names.team}/config/type`, { token: w.owner.token, text: 'pres' }));
    await ok(call('PUT', `/v1/vis/docs/${w.names.team}/tags/fav`, { token: w.owner.token }));
    await ok(call('PUT', `/v1/vis/docs/${w.names.team}/tags/+mine`, { token: w.owner.token }));
    // sharing with the organisation needs a role in it: the owner joins for this test and leaves at its end
    await ok(call('PUT', `/v1/admin/orgs/${w.org}/roles/members/${w.owner.username}`, { token: w.orgAccount.token }));
    await ok(call('POST', `/v1/admin/invites/+${w.org}/accept`, { token: w.owner.token, text: 'yes' }));
    await ok(call('PUT', `/v1/vis/docs/${w.names.team}/shared/+${w.org}`, { token: w.owner.token }));
    const { body } = await gql(
      w.owner.token,
      `{ docs(id: "${w.names.team}") { id name type summary url updated public shared { id name type } tags { id name type } } }`,
    );
    const [d] = body.data!.docs as Record<string, unknown>[];
    expect(d).toMatchObject({
      id: w.names.team,
      name: 'Team notes',
      type: 'pres',
      summary: 'What we do',
      url: `http://127.0.0.1:8787/u/${w.owner.username}/d/${w.names.team}`,
      public: false,
      shared: [
        { id: `+${w.org}`, name: w.org, type: 'org' },
        { id: w.team, name: 'team', type: 'user_group' },
      ],
      tags: [
        { id: '+mine', name: 'mine', type: 'user' },
        { id: 'fav', name: 'fav', type: 'system' },
      ],
    });
    expect(Date.parse(d!.updated as string)).not.toBeNaN();
    await ok(call('DELETE', `/v1/vis/docs/${w.names.team}/shared/+${w.org}`, { token: w.owner.token }));
    await ok(call('DELETE', `/v1/admin/orgs/${w.org}/roles/members/${w.owner.username}`, { token: w.owner.token }));
  });

  it('defaults: name is the id, type the kind default, summary empty; public and org_group shares show', async () => {
    const { body } = await gql(
      w.owner.token,
      '{ docs { id name type summary public shared { type } } grids { id type url } }',
    );
    const docs = body.data!.docs as Record<string, unknown>[];
    expect(docs.find((d) => d.id === w.names.priv)).toMatchObject({
      name: w.names.priv,
      type: 'doc',
      summary: '',
      public: false,
      shared: [],
    });
    expect(docs.find((d) => d.id === w.names.pub)).toMatchObject({ public: true, shared: [] });
    expect(docs.find((d) => d.id === w.names.sales)).toMatchObject({ shared: [{ type: 'org_group' }] });
    expect((body.data!.grids as Record<string, unknown>[])[0]).toMatchObject({ type: 'grid' });
  });

  it("tags are the caller's own: another reader sees none of the owner's tags", async () => {
    await ok(call('PUT', `/v1/vis/docs/${w.names.pub}/tags/wip`, { token: w.owner.token }));
    await ok(
      call('PUT', `/v1/users/${w.owner.username}/vis/docs/${w.names.pub}/tags/=finance`, { token: w.stranger.token }),
    );
    const q = `query($a: String) { docs(author: $a, id: "${w.names.pub}") { tags { id type } } }`;
    const mine = await gql(w.owner.token, q, { a: w.owner.username });
    expect((mine.body.data!.docs as { tags: unknown[] }[])[0]!.tags).toEqual([{ id: 'wip', type: 'system' }]);
    const theirs = await gql(w.stranger.token, q, { a: w.owner.username });
    expect((theirs.body.data!.docs as { tags: unknown[] }[])[0]!.tags).toEqual([{ id: '=finance', type: 'category' }]);
    const anon = await gql(null, q, { a: w.owner.username });
    expect((anon.body.data!.docs as { tags: unknown[] }[])[0]!.tags).toEqual([]);
  });

  it('jobs add schedule, enabled and last_run (null without runs)', async () => {
    await ok(
      call('POST', `/v1/code/jobs/${w.names.priv}/config/schedule`, { token: w.owner.token, text: '*/5 * * * *' }),
    );
    await ok(call('POST', `/v1/code/jobs/${w.names.priv}/config/enabled`, { token: w.owner.token, text: 'false' }));
    const { body } = await gql(
      w.owner.token,
      `{ jobs { id schedule enabled last_run { status started_on duration } } }`,
    );
    const jobs = body.data!.jobs as Record<string, unknown>[];
    expect(jobs.find((j) => j.id === w.names.priv)).toEqual({
      id: w.names.priv,
      schedule: '*/5 * * * *',
      enabled: false,
      last_run: null,
    });
    expect(jobs.find((j) => j.id === w.names.pub)).toEqual({
      id: w.names.pub,
      schedule: null,
      enabled: true,
      last_run: null,
    });
  });
});

describe('jobs: last_run', () => {
  it('shows the latest run to the owner and group grantees; never to public-only readers (runs are never public)', async () => {
    for (const job of [w.names.team, w.names.pub]) {
      const res = await call('POST', `/v1/code/jobs/${job}/data`, { token: w.owner.token, json: {} });
      expect(res.status).toBe(502); // no code/index.js: the run fails
    }
    const q = `query($a: String) { jobs(author: $a) { id last_run { status started_on duration } } }`;
    const runOf = async (c: Caller, job: string) =>
      ((await gql(tokenOf(c), q, { a: w.owner.username })).body.data!.jobs as { id: string; last_run: unknown }[]).find(
        (j) => j.id === job,
      )?.last_run;
    const own = (await runOf('owner', w.names.team)) as { status: string; started_on: string; duration: number };
    expect(own.status).toBe('failed');
    expect(Date.parse(own.started_on)).not.toBeNaN();
    expect(typeof own.duration).toBe('number');
    // The same run REST shows in stats/runs.
    const rest = await call('GET', `/v1/users/${w.owner.username}/code/jobs/${w.names.team}/runs`, {
      token: w.member.token,
    });
    expect(rest.status).toBe(200);
    expect(await runOf('member', w.names.team)).toEqual(own);
    for (const c of ['stranger', 'anonymous', 'member'] as Caller[]) expect(await runOf(c, w.names.pub), c).toBeNull();
    const restPublic = await call('GET', `/v1/users/${w.owner.username}/code/jobs/${w.names.pub}/runs`, {
      token: w.stranger.token,
    });
    expect(restPublic.status).toBe(403); // runs are never public
  });
});

describe('me', () => {
  it("username, timezone and the caller's groups by role", async () => {
    const q = '{ me { username timezone founder { id } admin { id } superuser { id } member { id } } }';
    const owner = await gql(w.owner.token, q);
    // the owner is a superuser of sales (the fixture: it shares into sales)
    const sales = [{ id: `+${w.org}~sales` }];
    expect(owner.body.data!.me).toEqual({
      username: w.owner.username,
      timezone: 'UTC',
      founder: [{ id: w.team }],
      admin: [],
      superuser: sales,
      member: [],
    });
    const admin = await gql(w.orgAdmin.token, q);
    // an organisation's id is its name (the clients' fixtures and -O commands), its groups' ids their references
    expect(admin.body.data!.me).toMatchObject({ founder: [], admin: [{ id: w.org }], member: [] });
    const org = await gql(w.orgAccount.token, q);
    expect((org.body.data!.me as { founder: { id: string }[] }).founder.map((g) => g.id).sort()).toEqual([
      `+${w.org}~ops`,
      `+${w.org}~sales`,
      w.org,
    ]);
    const member = await gql(w.member.token, q);
    expect(member.body.data!.me).toMatchObject({ member: [{ id: w.team }] });
  });

  it('is null for an anonymous caller', async () => {
    expect((await gql(null, '{ me { username } }')).body.data!.me).toBeNull();
  });
});

describe('users', () => {
  it('lists users with a public profile and the caller; a named user is found', async () => {
    const { body } = await gql(w.stranger.token, '{ users(limit: 1000) { username public } }');
    const names = (body.data!.users as { username: string; public: boolean }[]).map((u) => u.username);
    expect(names).toContain(w.owner.username); // public profile
    expect(names).toContain(w.stranger.username); // the caller
    expect(names).not.toContain(w.member.username); // private profile
    const one = await gql(null, `{ users(username: "${w.owner.username}") { username account public } }`);
    expect(one.body.data!.users).toEqual([{ username: w.owner.username, account: 'user', public: true }]);
  });

  describe("a private profile's name and bio: shown to its owner only, as in the listing", () => {
    const named = (u: TestUser) => `{ users(username: "${u.username}") { username name bio public } }`;
    beforeAll(async () => {
      await ok(call('POST', '/v1/admin/profile/name', { token: w.member.token, text: 'Mia Member' }));
      await ok(call('POST', '/v1/admin/profile/bio', { token: w.member.token, text: 'lives quietly' }));
    });

    it.each(['anonymous', 'stranger'] as const)(
      'users(username) of a private profile is empty for %s, like an unknown name',
      async (c) => {
        const res = await gql(c === 'anonymous' ? null : w.stranger.token, named(w.member));
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data!.users).toEqual([]);
        expect(
          (
            await gql(
              c === 'anonymous' ? null : w.stranger.token,
              `{ users(username: "no_such_${w.member.username}") { username } }`,
            )
          ).body.data!.users,
        ).toEqual([]);
      },
    );

    it('users(username) of a private profile is empty for a member of a group it shares', async () => {
      expect((await gql(w.owner.token, named(w.member))).body.data!.users).toEqual([]);
    });

    it('users(username) of the caller shows their own name and bio', async () => {
      expect((await gql(w.member.token, named(w.member))).body.data!.users).toEqual([
        { username: w.member.username, name: 'Mia Member', bio: 'lives quietly', public: false },
      ]);
    });

    it('a roster shows a private co-member by username only (no name, no bio)', async () => {
      const q = `query($id: ID) { groups(id: $id) { members { username name bio } } }`;
      const owner = await gql(w.owner.token, q, { id: w.team });
      expect(owner.body.data!.groups).toEqual([{ members: [{ username: w.member.username, name: '', bio: '' }] }]);
      const self = await gql(w.member.token, q, { id: w.team });
      expect(self.body.data!.groups).toEqual([
        { members: [{ username: w.member.username, name: 'Mia Member', bio: 'lives quietly' }] },
      ]);
    });
  });
});

describe('groups and orgs: the same rules as REST', () => {
  const q = `query($id: ID, $name: String, $type: GroupType, $parent: String) {
    groups(id: $id, name: $name, type: $type, parent_group: $parent) { id name type parent_group role member_count roster { username role pending } email } }`;

  it('a member sees their own groups with the roster; a stranger does not see a private group', async () => {
    const member = await gql(w.member.token, q);
    expect(member.body.data!.groups).toEqual([
      {
        id: w.team,
        name: 'team',
        type: 'user_group',
        parent_group: null,
        role: 'members',
        member_count: 2,
        roster: [
          { username: w.member.username, role: 'members', pending: false },
          { username: w.owner.username, role: 'founders', pending: false },
        ].sort((a, b) => a.username.localeCompare(b.username)),
        email: null,
      },
    ]);
    for (const c of ['stranger', 'anonymous'] as Caller[]) {
      const named = await gql(tokenOf(c), q, { id: w.team });
      expect(named.body.data!.groups).toEqual([]);
      expect((await gql(tokenOf(c), q)).body.data!.groups).toEqual([]);
    }
  });

  it('an org admin sees every group of the org with the full roster (as GET /v1/orgs/:org/groups/:group)', async () => {
    const { body } = await gql(w.orgAdmin.token, q, { parent: w.org });
    const groups = body.data!.groups as { id: string; role: string | null; roster: { username: string }[] | null }[];
    expect(groups.map((g) => g.id)).toEqual([`+${w.org}~ops`, `+${w.org}~sales`]);
    const sales = groups.find((g) => g.id.endsWith('~sales'))!;
    expect(sales.role).toBeNull(); // oversight is not membership
    const rest = await call('GET', `/v1/orgs/${w.org}/groups/sales`, { token: w.orgAdmin.token });
    const info = (await rest.json()) as { members: { username: string; role: string; state: string }[] };
    expect(sales.roster).toEqual(
      info.members.map((m) => ({ username: m.username, role: m.role, pending: m.state === 'pending' })),
    );
    // Without a filter, the admin lists the org (held role) and every group of it.
    const all = await gql(w.orgAdmin.token, q);
    expect((all.body.data!.groups as { id: string }[]).map((g) => g.id)).toEqual([
      w.org,
      `+${w.org}~ops`,
      `+${w.org}~sales`,
    ]);
  });

  it('a group member sees only their own group of the org; a stranger none', async () => {
    const sm = await gql(w.salesMember.token, q, { parent: w.org });
    expect((sm.body.data!.groups as { id: string }[]).map((g) => g.id)).toEqual([`+${w.org}~sales`]);
    const rest = await call('GET', `/v1/orgs/${w.org}/groups`, { token: w.salesMember.token });
    expect(((await rest.json()) as { name: string }[]).map((g) => g.name)).toEqual(['sales']);
    const st = await gql(w.stranger.token, q, { parent: w.org });
    expect(st.body.data!.groups).toEqual([]);
  });

  it('email is the inbound address exactly when REST has one, null when REST answers empty', async () => {
    const { body } = await gql(w.orgAdmin.token, q, { parent: w.org });
    const groups = body.data!.groups as { name: string; email: string | null }[];
    for (const g of groups) {
      const rest = await call('GET', `/v1/orgs/${w.org}/groups/${g.name}/email`, { token: w.orgAdmin.token });
      const text = await rest.text();
      expect(g.email).toBe(text === '' ? null : text);
    }
    expect(groups.find((g) => g.name === 'sales')!.email).toBe(`sales@${w.org}.mail.localhost`);
    expect(groups.find((g) => g.name === 'ops')!.email).toBeNull();
  });

  it('filters by name and type', async () => {
    const { body } = await gql(w.orgAdmin.token, q, { name: 'sales', type: 'org_group', parent: w.org });
    expect((body.data!.groups as { id: string }[]).map((g) => g.id)).toEqual([`+${w.org}~sales`]);
    const none = await gql(w.orgAdmin.token, q, { type: 'user_group' });
    expect(none.body.data!.groups).toEqual([]);
  });

  it('profile and options of a visible group', async () => {
    await ok(call('POST', `/v1/admin/groups/team/profile/name`, { token: w.owner.token, text: 'The Team' }));
    await ok(call('POST', `/v1/admin/groups/team/profile/description`, { token: w.owner.token, text: 'We *build*' }));
    await ok(call('POST', `/v1/admin/groups/team/profile/options/is_open`, { token: w.owner.token, text: 'yes' }));
    const { body } = await gql(
      w.member.token,
      `{ groups(id: "${w.team}") { description profile { name description } options { public show_profile show_description show_members is_open } } }`,
    );
    expect(body.data!.groups).toEqual([
      {
        description: 'We *build*',
        profile: { name: 'The Team', description: 'We *build*' },
        options: { public: false, show_profile: false, show_description: false, show_members: false, is_open: true },
      },
    ]);
  });

  it('orgs: members of the org or of one of its groups see it; strangers and anonymous do not', async () => {
    const qo = '{ orgs { id name type role } }';
    const ids = async (c: Caller) =>
      ((await gql(tokenOf(c), qo)).body.data!.orgs as { id: string }[]).map((o) => o.id).filter((id) => id === w.org);
    expect(await ids('orgAdmin')).toEqual([w.org]);
    expect(await ids('salesMember')).toEqual([w.org]);
    expect(await ids('stranger')).toEqual([]);
    expect(await ids('anonymous')).toEqual([]);
    const rest = await call('GET', '/v1/orgs', { token: w.salesMember.token });
    expect(((await rest.json()) as { name: string }[]).map((o) => o.name)).toContain(w.org);
  });
});

describe('protocol: errors are GraphQL errors, never 500', () => {
  // GraphQL over HTTP: a client that accepts application/graphql-response+json gets 400 for
  // a request that cannot execute; a legacy application/json client gets 200 with errors.
  const post = (body: BodyInit, type = 'application/json', token?: string) =>
    call('POST', '/gql', { body, type, token, headers: { Accept: 'application/graphql-response+json' } });

  it('with Accept: application/json, request errors answer 200 with errors (legacy clients)', async () => {
    const res = await call('POST', '/gql', {
      json: { query: '{ docs { id ' },
      headers: { Accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'GRAPHQL_PARSE_FAILED',
    );
  });

  it('a malformed query answers 400 with a syntax error', async () => {
    const res = await post(JSON.stringify({ query: '{ docs { id ' }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { message: string }[] };
    expect(body.errors[0]!.message).toMatch(/Syntax Error/);
  });

  it('an unknown field answers 400 with a validation error', async () => {
    const res = await post(JSON.stringify({ query: '{ docs { id secret } }' }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(
      /Cannot query field "secret"/,
    );
  });

  it('a body that is not JSON, or has no query, answers 400', async () => {
    for (const b of ['{nope', '{}', '[]', '{"query": 5}']) {
      const res = await post(b);
      expect(res.status, b).toBe(400);
      expect(((await res.json()) as { errors: unknown[] }).errors.length).toBeGreaterThan(0);
    }
  });

  it('variables of the wrong type answer 400', async () => {
    const res = await post(
      JSON.stringify({ query: 'query($l: Int) { docs(limit: $l) { id } }', variables: { l: 'ten' } }),
      'application/json',
      w.owner.token,
    );
    expect(res.status).toBe(400);
  });

  it('an over-deep query answers a depth error before running', async () => {
    let sel = 'name';
    for (let i = 0; i < 20; i++) sel = `ofType { ${sel} }`;
    const res = await post(JSON.stringify({ query: `{ __schema { types { fields { type { ${sel} } } } } }` }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(/depth/i);
  });

  it("a replies chain deeper than the reply bound answers a limit error; the client's 12 levels run", async () => {
    const chain = (levels: number) =>
      `{ docs { topics { comments { ${'slug replies { '.repeat(levels)}slug${' }'.repeat(levels)} } } } }`;
    const res = await post(JSON.stringify({ query: chain(17) }), 'application/json', w.owner.token);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(
      /replies depth limit of 16/,
    );
    const ok = await post(JSON.stringify({ query: chain(12) }), 'application/json', w.owner.token);
    expect(((await ok.json()) as { errors?: unknown }).errors).toBeUndefined();
  });

  it('the standard introspection query stays within the limits', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const res = await post(JSON.stringify({ query: getIntrospectionQuery() }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { __schema: unknown } }).data.__schema).toBeTruthy();
  });

  it('too many aliases answer an error', async () => {
    const q = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: users(limit: 1) { username }`).join(' ')} }`;
    const res = await post(JSON.stringify({ query: q }), 'application/json', w.owner.token);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(/alias/i);
  });

  it('a query with too many tokens answers an error', async () => {
    const q = `{ ${Array.from({ length: 3000 }, () => 'me { username }').join(' ')} }`;
    const res = await post(JSON.stringify({ query: q }), 'application/json', w.owner.token);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(/token/i);
  });

  /** A body of undeclared length (chunked): the size is counted while it is read. */
  const streamed = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    return new ReadableStream<Uint8Array>({
      start(c) {
        for (let at = 0; at < bytes.length; at += 8192) c.enqueue(bytes.slice(at, at + 8192));
        c.close();
      },
    });
  };
  const tooBig = JSON.stringify({ query: `{ me { username } } #${'x'.repeat(70_000)}` });

  it('a body above 64 KiB answers 413, whether its length is declared or not', async () => {
    expect((await post(tooBig)).status).toBe(413);
    const declared = await call('POST', '/gql', {
      body: tooBig,
      type: 'application/json',
      headers: { 'Content-Length': String(tooBig.length) },
    });
    expect(declared.status).toBe(413);
    expect((await post(streamed(tooBig))).status).toBe(413);
  });

  it('a body within the limit runs, whether its length is declared or not', async () => {
    const q = JSON.stringify({ query: '{ me { username } }' });
    for (const body of [q, streamed(q)]) {
      const res = await post(body, 'application/json', w.owner.token);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: { me: { username: w.owner.username } } });
    }
  });

  it('an unknown bearer token answers 401; no token is anonymous', async () => {
    const bad = await call('POST', '/gql', { token: 'not-a-token', json: { query: '{ me { username } }' } });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { message: string }).message).toMatch(/token/);
    const anon = await gql(null, '{ me { username } }');
    expect(anon.status).toBe(200);
  });

  it('the API is read-only: a mutation answers an error and runs nothing', async () => {
    const res = await post(JSON.stringify({ query: 'mutation { x }' }));
    expect(res.status).toBe(200); // graphql-js refuses the operation at execution
    const body = (await res.json()) as { data: unknown; errors: { message: string }[] };
    expect(body.data).toBeNull();
    expect(body.errors[0]!.message).toMatch(/not configured to execute mutation/);
  });

  it('a query whose static cost is over the limit answers an error', async () => {
    // Deep and wide, within the depth, alias and token limits (the cost limit leaves room
    // for the client contract's full Group selection under every role of me, ~2100).
    const group = 'id name type description created public is_open member_count roster { username role pending }';
    const me = `me { founder { groups { groups { groups { groups { groups { ${group} } } } } } } }`;
    const q = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: ${me}`).join(' ')} }`;
    const res = await post(JSON.stringify({ query: q }), 'application/json', w.owner.token);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(/cost/i);
  });
});

describe('GET /gql', () => {
  it('serves a self-contained explorer page (no external assets)', async () => {
    const res = await call('GET', '/gql', { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('<textarea id="query"');
    expect(html).not.toMatch(/(src|href)=["']?https?:/);
    expect(html).not.toMatch(/unpkg|jsdelivr|cdn/i);
  });

  it('runs a query given as ?query=', async () => {
    const u: TestUser = await makeUser();
    const res = await call('GET', `/gql?query=${encodeURIComponent('{ me { username } }')}`, {
      token: u.token,
      headers: { Accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { me: { username: u.username } } });
  });

  it('is declared in the OpenAPI document', async () => {
    const doc = (await (await call('GET', '/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/gql'] ?? {}).sort()).toEqual(['get', 'post']);
  });
});
