// Every GraphQL request the platform's command line and python library send
// (client-queries.ts: their text exactly, their variables) validates against the served
// schema field by field, runs within the limits, and answers what the client reads.
import { parse, validate } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { gqlSchema } from '../../../src/gql/resolvers';
import {
  LIST_ORG_GROUP_MEMBERS_QUERY,
  LIST_ORG_GROUPS_QUERY,
  LIST_ORG_MEMBERS_QUERY,
  LIST_ORGS_QUERY,
  getGroupTopics,
  orgGroupVis,
} from './client-queries';
import { ALL_KINDS, clientRequests } from './client-requests';
import { call } from '../helpers';
import { buildWorld, gql, ok, type World } from './fixtures';

type Row = Record<string, unknown>;

let w: World;
beforeAll(async () => {
  w = await buildWorld();
}, 120_000);

const requests = () => clientRequests(w);

describe('every query the client sends validates against the served schema', () => {
  it('field by field (graphql-js validation of each query text against the schema)', () => {
    for (const [what, query] of requests()) {
      const errors = validate(gqlSchema(), parse(query)).map((e) => e.message);
      expect(errors, what).toEqual([]);
    }
  });

  it('and runs at /gql within the limits (depth, cost, tokens) with the variables the client sends', async () => {
    for (const [what, query, variables] of requests()) {
      const { status, body } = await gql(w.orgAccount.token, query, variables);
      expect(body.errors, `${what}: ${JSON.stringify(body.errors)}`).toBeUndefined();
      expect(status, what).toBe(200);
    }
  });
});

describe('plots and repos have every item field and stay empty', () => {
  it('novem -O -l: an org founder reads the organisation with its groups, items counted per kind by author/id', async () => {
    const { body } = await gql(w.orgAccount.token, LIST_ORGS_QUERY);
    const org = ((body.data!.me as Row).founder as Row[]).find((g) => g.type === 'org')!;
    const groups = org.groups as Row[];
    expect(groups).toHaveLength(2); // ops, sales
    const count = (kind: string) =>
      new Set(groups.flatMap((g) => (g[kind] as Row[]).map((i) => `${(i.author as Row).username}/${i.id}`))).size;
    expect(Object.fromEntries(ALL_KINDS.map((k) => [k, count(k)]))).toEqual({
      plots: 0,
      grids: 1,
      mails: 1,
      docs: 1,
      repos: 0,
      jobs: 1,
    });
    const members = ['founders', 'admins', 'superusers', 'members'].reduce((n, r) => n + (org[r] as Row[]).length, 0);
    expect(members).toBe(2);
  });

  it('novem -O <org> -u -l: the organisation named by its name ({"orgId": "<org>"}) with its members and what they shared with its groups', async () => {
    const { body } = await gql(w.orgAccount.token, LIST_ORG_MEMBERS_QUERY, { orgId: w.org });
    const [org] = body.data!.groups as Row[];
    expect(org, JSON.stringify(body)).toBeDefined();
    expect((org!.founders as Row[]).map((u) => u.username)).toEqual([w.orgAccount.username]);
    expect((org!.admins as Row[]).map((u) => u.username)).toEqual([w.orgAdmin.username]);
    const shared = (org!.groups as Row[]).flatMap((g) =>
      ALL_KINDS.flatMap((k) => (g[k] as Row[]).map((i) => `${k}:${(i.author as Row).username}/${i.id}`)),
    );
    expect(shared.sort()).toEqual(
      ['docs', 'grids', 'jobs', 'mails'].map((k) => `${k}:${w.owner.username}/${w.names.sales}`),
    );
  });

  it("novem -O <org> -G -l: the organisation's groups with rosters and counts; plots and repos answer []", async () => {
    const { body } = await gql(w.orgAccount.token, LIST_ORG_GROUPS_QUERY, { orgId: w.org });
    const groups = (body.data!.groups as Row[])[0]!.groups as Row[];
    expect(groups.map((g) => g.name)).toEqual(['ops', 'sales']);
    const sales = groups.find((g) => g.name === 'sales')!;
    expect(sales).toMatchObject({
      plots: [],
      repos: [],
      allow_inbound_mail: true,
      founders: [{ username: w.orgAccount.username }],
      members: [{ username: w.salesMember.username }],
    });
    expect(sales.docs).toEqual([{ id: w.names.sales, author: { username: w.owner.username } }]);
  });
});

describe('items shared with an organisation group are listed under it (its id is its own name)', () => {
  // What `novem -O <org> -G <group> -d -l` prints: the org group whose `id` is the -G argument, its items.
  const listed = async (token: string, kind: string, group: string) => {
    const { body } = await gql(token, orgGroupVis(kind), { orgId: w.org });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const [org] = body.data!.groups as Row[];
    const picked = ((org?.groups as Row[] | undefined) ?? []).find((g) => g.id === group);
    return ((picked?.[kind] as Row[] | undefined) ?? []).map((i) => ({
      username: (i.author as Row).username,
      id: i.id,
      name: i.name,
      type: i.type,
      uri: i.url,
      updated: i.updated,
      shared: (i.shared as Row[]).map((s) => s.type),
      ...(kind === 'jobs' ? { last_run_time: i.last_run_time } : {}),
    }));
  };

  it('novem -O <org> -G -l lists the groups by their own names', async () => {
    const { body } = await gql(w.salesMember.token, LIST_ORG_GROUPS_QUERY, { orgId: w.org });
    expect(((body.data!.groups as Row[])[0]!.groups as Row[]).map((g) => g.id)).toContain('sales');
  });

  it('novem -O <org> -G <group> -d -l prints the document shared +<org>~<group> that the caller can read', async () => {
    expect(await listed(w.salesMember.token, 'docs', 'sales')).toEqual([
      {
        username: w.owner.username,
        id: w.names.sales,
        name: w.names.sales,
        type: 'doc',
        uri: expect.stringMatching(new RegExp(`/u/${w.owner.username}/d/${w.names.sales}$`)),
        updated: expect.stringMatching(/ UTC$/),
        shared: ['org_group'],
      },
    ]);
  });

  it('novem -O <org> -G <group> -j -l prints the job with its last run time', async () => {
    const [job] = await listed(w.salesMember.token, 'jobs', 'sales');
    expect(job).toMatchObject({
      username: w.owner.username,
      id: w.names.sales,
      type: 'job',
      shared: ['org_group'],
      last_run_time: null,
    });
  });

  it('org oversight sees the group by its name but no item it may not read; -G <group -u -l finds the group too', async () => {
    expect(await listed(w.orgAdmin.token, 'docs', 'sales')).toEqual([]);
    const { body } = await gql(w.orgAdmin.token, LIST_ORG_GROUP_MEMBERS_QUERY, { orgId: w.org });
    const sales = ((body.data!.groups as Row[])[0]!.groups as Row[]).find((g) => g.id === 'sales')!;
    expect((sales.members as Row[]).map((u) => u.username)).toEqual([w.salesMember.username]);
  });
});

describe("a group's comments through groups(name, type, parent_group) { topics }", () => {
  it('novem -G team --comments ({"name": "team", "type": "user_group", "parent_group": "<caller>"}) shows the topic and its comment', async () => {
    await ok(call('PUT', '/v1/admin/groups/team/threads/t1', { token: w.owner.token }));
    await ok(call('POST', '/v1/admin/groups/team/threads/t1', { token: w.owner.token, text: 'first words' }));
    const { body } = await gql(w.owner.token, getGroupTopics(), {
      name: 'team',
      type: 'user_group',
      parent_group: w.owner.username,
    });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect((body.data!.me as Row).username).toBe(w.owner.username);
    const groups = body.data!.groups as Row[];
    expect(groups).toHaveLength(1);
    const [topic] = groups[0]!.topics as Row[];
    expect(topic).toMatchObject({ slug: 't1', creator: { username: w.owner.username }, num_comments: 1 });
    expect(topic!.comments).toMatchObject([
      { message: 'first words', creator: { username: w.owner.username }, depth: 0, replies: [] },
    ]);
  });

  it('parent_group names the owner of a user group: another user name finds nothing; an org group is named with its organisation', async () => {
    const other = await gql(w.owner.token, getGroupTopics(), {
      name: 'team',
      type: 'user_group',
      parent_group: w.member.username,
    });
    expect(other.body.data!.groups).toEqual([]);
    const org = await gql(w.salesMember.token, getGroupTopics(), {
      name: 'sales',
      type: 'org_group',
      parent_group: w.org,
    });
    expect(org.body.data!.groups).toHaveLength(1);
  });
});
