/**
 * Fixtures for the e-mail suites: senders with a verified address, e-mails with entries,
 * groups written straight into the core tables, sending and waiting for ready, and
 * reading the outbox, the log and the stats of runs.
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { expect } from 'vitest';
import { groups, members, resources, users } from '../../../src/db/schema';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';

export const db = () => drizzle(env.DB);

/** A 1x1 PNG. */
export const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

export const userId = async (username: string) =>
  (await db().select({ id: users.id }).from(users).where(eq(users.username, username)).get())!.id;

/** A group (@owner~g, or +org~g) written straight into the core tables, owner as founder. */
export async function makeGroup(
  owner: string,
  list: { username: string; state?: 'active' | 'pending' | 'declined' }[] = [],
  opts: { org?: string } = {},
) {
  const now = new Date().toISOString();
  const slug = unique('g').slice(0, 30);
  const ownerId = await userId(owner);
  let parent: number | null = null;
  if (opts.org)
    parent = (
      await db()
        .insert(groups)
        .values({
          kind: 'org',
          slug: opts.org,
          owner_id: ownerId,
          ref: `+${opts.org}`,
          created_on: now,
          last_modified: now,
        })
        .returning()
        .get()
    ).id;
  const ref = opts.org ? `+${opts.org}~${slug}` : `@${owner}~${slug}`;
  const g = await db()
    .insert(groups)
    .values({
      kind: opts.org ? 'org_group' : 'user_group',
      slug,
      owner_id: ownerId,
      parent_id: parent,
      ref,
      created_on: now,
      last_modified: now,
    })
    .returning()
    .get();
  await addMember(g.id, owner, 'active', 'founders');
  for (const m of list) await addMember(g.id, m.username, m.state ?? 'active');
  return { ref, id: g.id };
}

export async function addMember(
  groupId: number,
  username: string,
  state: 'active' | 'pending' | 'declined',
  role: 'founders' | 'members' = 'members',
) {
  const now = new Date().toISOString();
  await db()
    .insert(members)
    .values({ group_id: groupId, user_id: await userId(username), role, state, created_on: now, last_modified: now });
}

export interface Outbound {
  kind: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content_type: string; size: number }[];
}

/** Distinct fresh addresses: a list long enough to keep a send in flight for a while. */
export const newsletter = (n: number) => Array.from({ length: n }, (_, i) => `${unique('n')}${i}@example.com`);

/** A user with a verified address of their own (the precondition of sending). */
export async function sender(fields: Record<string, unknown> = {}): Promise<TestUser & { email: string }> {
  const email = `${unique('m')}@example.com`;
  const u = await makeUser({ email, email_verified: true, ...fields });
  return { ...u, email };
}

export async function newMail(
  u: TestUser,
  entries: Record<string, string> = {},
): Promise<{ name: string; path: string; id: number }> {
  const name = unique('m');
  const path = `/v1/vis/mails/${name}`;
  expect((await call('PUT', path, { token: u.token })).status).toBe(201);
  for (const [k, v] of Object.entries(entries))
    expect((await call('POST', `${path}/${k}`, { token: u.token, text: v })).status, k).toBe(204);
  const owner = await db().select().from(users).where(eq(users.username, u.username)).get();
  const row = await db()
    .select()
    .from(resources)
    .where(and(eq(resources.owner_id, owner!.id), eq(resources.name, name)))
    .get();
  return { name, path, id: row!.id };
}

export const post = (u: TestUser, path: string, o: { text?: string; json?: unknown } = { text: 'sent' }) =>
  call('POST', `${path}/status`, { token: u.token, ...o });

export const statusOf = async (u: TestUser, path: string) =>
  (await call('GET', `${path}/status`, { token: u.token })).text();

export async function untilReady(u: TestUser, path: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    if ((await statusOf(u, path)) === 'ready') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${path} never went back to ready`);
}

export async function outboxTo(address: string): Promise<Outbound[]> {
  const all = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as Outbound[];
  return all.filter((m) => m.to.includes(address.toLowerCase()));
}

export async function logOf(u: TestUser, path: string): Promise<string[]> {
  return (
    (await (await call('GET', `${path}/log`, { token: u.token, headers: { Accept: 'application/json' } })).json()) as {
      message: string;
    }[]
  ).map((e) => e.message);
}

/** The log once `ok` holds (rejections are logged just after the answer). */
export async function logWhen(u: TestUser, path: string, ok: (log: string[]) => boolean): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const log = await logOf(u, path);
    if (ok(log)) return log;
    await new Promise((r) => setTimeout(r, 20));
  }
  return logOf(u, path);
}

export async function runs(u: TestUser, path: string) {
  return (await (
    await call('GET', `${path}/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })
  ).json()) as {
    status: string;
    action: string;
    delivered: number;
    suppressed: number;
    failed: number;
    duration: number;
    timestamp: string;
    send_id: string;
  }[];
}
