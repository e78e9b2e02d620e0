/**
 * Fixtures for the GraphQL suites: a resource owner with one resource of each kind per visibility
 * (private, public, shared with a user group, shared with an org group), a user group with
 * a member, an organisation with an admin and an org group with a member.
 */
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { expect } from 'vitest';
import { groups, members, users, type Group, type Role } from '../../../src/db/schema';
import { groupEntries } from '../../../src/groups/schema';
import { call, makeUser, unique, type TestUser } from '../helpers';

export const COLLECTIONS = { docs: 'vis/docs', grids: 'vis/grids', mails: 'vis/mails', jobs: 'code/jobs' } as const;
export type Field = keyof typeof COLLECTIONS;

export async function ok(res: Promise<Response>, ...codes: number[]): Promise<Response> {
  const r = await res;
  if (!(codes.length ? codes : [200, 201, 204]).includes(r.status)) {
    expect.fail(`${r.status} ${await r.text()}`);
  }
  return r;
}

export async function gql(token: string | null, query: string, variables?: Record<string, unknown>) {
  const res = await call('POST', '/gql', { token, json: { query, variables } });
  return {
    status: res.status,
    body: (await res.json()) as {
      data?: Record<string, unknown> | null;
      errors?: { message: string; extensions?: Record<string, unknown> }[];
    },
  };
}

const user = (prefix: string, fields: Record<string, unknown> = {}) =>
  makeUser({ email: `${unique(prefix)}@example.com`, email_verified: true, ...fields }, prefix);

const db = () => drizzle(env.DB);

async function userId(u: TestUser): Promise<number> {
  return (await db().select({ id: users.id }).from(users).where(eq(users.username, u.username)).get())!.id;
}

/**
 * Groups and memberships are written straight into the core tables (as the docs suites
 * do): the permission core and the groups area's visibility rules read exactly these.
 */
async function makeGroup(
  kind: Group['kind'],
  slug: string,
  ref: string,
  owner: TestUser,
  parentId: number | null,
  roster: [TestUser, Role][],
): Promise<number> {
  const now = new Date().toISOString();
  const g = await db()
    .insert(groups)
    .values({
      kind,
      slug,
      ref,
      owner_id: kind === 'org_group' ? null : await userId(owner),
      parent_id: parentId,
      created_on: now,
      last_modified: now,
    })
    .returning()
    .get();
  for (const [u, role] of roster) {
    await db()
      .insert(members)
      .values({ group_id: g.id, user_id: await userId(u), role, state: 'active', created_on: now, last_modified: now });
  }
  return g.id;
}

async function option(groupId: number, name: string): Promise<void> {
  const now = new Date().toISOString();
  await db()
    .insert(groupEntries)
    .values({ group_id: groupId, path: `options/${name}`, value: 'yes', size: 3, created_on: now, last_modified: now });
}

export interface World {
  owner: TestUser;
  member: TestUser;
  orgAccount: TestUser;
  orgAdmin: TestUser;
  salesMember: TestUser;
  stranger: TestUser;
  org: string;
  team: string;
  /** Resource names by visibility. */
  names: { priv: string; pub: string; team: string; sales: string };
}

export async function buildWorld(): Promise<World> {
  const [owner, member, orgAccount, orgAdmin, salesMember, stranger] = await Promise.all([
    user('own', { profile_public: true }),
    user('mem'),
    user('org', { account: 'organisation', plan: 'premium' }),
    user('adm'),
    user('sal'),
    user('str'),
  ]);
  const org = unique('acme').slice(0, 30);
  const teamSlug = 'team';
  const team = `@${owner.username}~${teamSlug}`;
  await makeGroup('user_group', teamSlug, team, owner, null, [
    [owner, 'founders'],
    [member, 'members'],
  ]);
  const orgId = await makeGroup('org', org, `+${org}`, orgAccount, null, [
    [orgAccount, 'founders'],
    [orgAdmin, 'admins'],
  ]);
  // The owner holds a role in sales: sharing into a group (and a share granting) needs one.
  const salesId = await makeGroup('org_group', 'sales', `+${org}~sales`, orgAccount, orgId, [
    [orgAccount, 'founders'],
    [owner, 'superusers'],
    [salesMember, 'members'],
  ]);
  await makeGroup('org_group', 'ops', `+${org}~ops`, orgAccount, orgId, [[orgAccount, 'founders']]);
  // Inbound mail: the org's subdomain and the sales group (not ops).
  await option(orgId, 'enable_subdomain');
  await option(salesId, 'allow_inbound_mail');

  const names = { priv: 'r_private', pub: 'r_public', team: 'r_team', sales: 'r_sales' };
  for (const coll of Object.values(COLLECTIONS)) {
    for (const n of Object.values(names)) await ok(call('PUT', `/v1/${coll}/${n}`, { token: owner.token }));
    await ok(call('PUT', `/v1/${coll}/${names.pub}/shared/public`, { token: owner.token }));
    await ok(call('PUT', `/v1/${coll}/${names.team}/shared/${team}`, { token: owner.token }));
    await ok(call('PUT', `/v1/${coll}/${names.sales}/shared/+${org}~sales`, { token: owner.token }));
  }
  return { owner, member, orgAccount, orgAdmin, salesMember, stranger, org, team, names };
}
