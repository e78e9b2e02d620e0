/**
 * Fixtures for the groups suites: users with verified addresses, and user groups and
 * organisations with a member in every role (made through the groups HTTP API), shared
 * by the tests of a file; the outbox as the groups suites read it.
 */
import { expect } from 'vitest';
import { call, makeUser, unique, type TestUser, OPS } from '../helpers';

/** A user with a verified address <username>@example.com. */
export async function person(prefix = 'u'): Promise<TestUser> {
  const name = unique(prefix);
  const u = await makeUser({ email: `${name}@example.com`, email_verified: true }, prefix);
  await call('PUT', `/v1/ops/users/${u.username}`, { token: OPS, json: { email: `${u.username}@example.com` } });
  return u;
}
export const json = async <T = any>(res: Response): Promise<T> => (await res.json()) as T;
export const accept = (u: TestUser, ref: string, answer = 'yes') =>
  call('POST', `/v1/admin/invites/${ref}/accept`, { token: u.token, text: answer });

/** Invites `u` into `role` of the group at `path` (as `by`) and accepts. */
export async function join(path: string, ref: string, by: TestUser, u: TestUser, role: string): Promise<void> {
  const inv = await call('PUT', `${path}/roles/${role}/${u.username}`, { token: by.token });
  expect(inv.status, await inv.clone().text()).toBe(201);
  const acc = await accept(u, ref);
  expect(acc.status, await acc.clone().text()).toBe(200);
}

export interface World {
  path: string;
  ref: string;
  founder: TestUser;
  admin: TestUser;
  superuser: TestUser;
  member: TestUser;
  pending: TestUser;
  stranger: TestUser;
}

export async function userGroupWorld(): Promise<World> {
  const [founder, admin, superuser, member, pending, stranger] = await Promise.all([
    person('f'),
    person('a'),
    person('s'),
    person('m'),
    person('p'),
    person('x'),
  ]);
  const slug = unique('g');
  const created = await call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token });
  expect(created.status).toBe(201);
  const path = `/v1/admin/groups/${slug}`;
  const ref = `@${founder.username}~${slug}`;
  await join(path, ref, founder, admin, 'admins');
  await join(path, ref, founder, superuser, 'superusers');
  await join(path, ref, founder, member, 'members');
  expect((await call('PUT', `${path}/roles/members/${pending.username}`, { token: founder.token })).status).toBe(201);
  return { path: `/v1/admin/groups/${ref}`, ref, founder, admin, superuser, member, pending, stranger };
}

export interface OrgWorld extends World {
  org: string;
  group: string;
  account: TestUser;
  orgAdmin: TestUser;
  orgMember: TestUser;
}

export async function orgWorld(plan: 'free' | 'premium' = 'free'): Promise<OrgWorld> {
  const account = await makeUser({ account: 'organisation', plan, email: `${unique('o')}@example.com` }, 'o');
  const org = unique('org');
  expect((await call('PUT', `/v1/admin/orgs/${org}`, { token: account.token })).status).toBe(201);
  const [orgAdmin, orgMember, admin, superuser, member, pending, stranger] = await Promise.all([
    person('oa'),
    person('om'),
    person('a'),
    person('s'),
    person('m'),
    person('p'),
    person('x'),
  ]);
  await join(`/v1/admin/orgs/${org}`, `+${org}`, account, orgAdmin, 'admins');
  await join(`/v1/admin/orgs/${org}`, `+${org}`, account, orgMember, 'members');
  const group = unique('g');
  expect((await call('PUT', `/v1/admin/orgs/${org}/groups/${group}`, { token: account.token })).status).toBe(201);
  const path = `/v1/admin/orgs/${org}/groups/${group}`;
  const ref = `+${org}~${group}`;
  await join(path, ref, account, admin, 'admins');
  await join(path, ref, account, superuser, 'superusers');
  await join(path, ref, account, member, 'members');
  expect((await call('PUT', `${path}/roles/members/${pending.username}`, { token: account.token })).status).toBe(201);
  return {
    path,
    ref,
    org,
    group,
    account,
    founder: account,
    orgAdmin,
    orgMember,
    admin,
    superuser,
    member,
    pending,
    stranger,
  };
}

/** A value made once per test file (creating users is slow: password hashing). */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => (p ??= make());
}

/** The first bytes of a PNG (enough for the type check). */
export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

/** An organisation account with its org and one group (no members yet). */
export async function orgLite(plan: 'free' | 'premium' = 'premium') {
  const account = await makeUser({ account: 'organisation', plan }, 'o');
  const org = unique('org');
  const group = unique('g');
  expect((await call('PUT', `/v1/admin/orgs/${org}`, { token: account.token })).status).toBe(201);
  expect((await call('PUT', `/v1/admin/orgs/${org}/groups/${group}`, { token: account.token })).status).toBe(201);
  return {
    account,
    org,
    group,
    path: `/v1/admin/orgs/${org}/groups/${group}`,
    stranger: (await sharedGroup()).stranger,
  };
}

/** Worlds shared by the tests of a file (each test file has its own module instance). */
export const sharedGroup = once(userGroupWorld);
export const sharedOrg = once(() => orgWorld('premium'));
export const T = { timeout: 180_000 };

export const outbox = async (to: string) =>
  (
    await json<{ kind: string; to: string[]; subject: string; text: string }[]>(
      await call('GET', '/v1/ops/outbox', { token: OPS }),
    )
  ).filter((m) => m.to.includes(to));
