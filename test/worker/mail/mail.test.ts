// E-mails through the real Worker in workerd (real local D1, R2 and the MailObject):
// entries, recipient lists, the send validation order, the in-flight lock, the rate
// window, delivery, suppression, stats and log. Group recipients use core
// groups/members rows (docs-fixtures).
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setClockOffset } from '../../../src/core/clock';
import { groups, members, resources, users } from '../../../src/db/schema';
import { runJob } from '../../../src/mail/delivery';
import { mailObject } from '../../../src/mail/kind';
import type { InFlight } from '../../../src/mail/send-gate';
import { WINDOW_MS } from '../../../src/mail/rules';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';
import { burstProblems } from './burst';

// Sends wait for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

const db = () => drizzle(env.DB);

/** A 1x1 PNG. */
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));

const userId = async (username: string) => (await db().select({ id: users.id }).from(users).where(eq(users.username, username)).get())!.id;

/** A group (@owner~g, or +org~g) written straight into the core tables, owner as founder. */
async function makeGroup(owner: string, list: { username: string; state?: 'active' | 'pending' | 'declined' }[] = [], opts: { org?: string } = {}) {
  const now = new Date().toISOString();
  const slug = unique('g').slice(0, 30);
  const ownerId = await userId(owner);
  let parent: number | null = null;
  if (opts.org)
    parent = (
      await db()
        .insert(groups)
        .values({ kind: 'org', slug: opts.org, owner_id: ownerId, ref: `+${opts.org}`, created_on: now, last_modified: now })
        .returning()
        .get()
    ).id;
  const ref = opts.org ? `+${opts.org}~${slug}` : `@${owner}~${slug}`;
  const g = await db()
    .insert(groups)
    .values({ kind: opts.org ? 'org_group' : 'user_group', slug, owner_id: ownerId, parent_id: parent, ref, created_on: now, last_modified: now })
    .returning()
    .get();
  await addMember(g.id, owner, 'active', 'founders');
  for (const m of list) await addMember(g.id, m.username, m.state ?? 'active');
  return { ref, id: g.id };
}

async function addMember(groupId: number, username: string, state: 'active' | 'pending' | 'declined', role: 'founders' | 'members' = 'members') {
  const now = new Date().toISOString();
  await db()
    .insert(members)
    .values({ group_id: groupId, user_id: await userId(username), role, state, created_on: now, last_modified: now });
}

interface Outbound {
  kind: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content_type: string; size: number }[];
}

/** A user with a verified address of their own (the precondition of sending). */
/** Distinct fresh addresses: a list long enough to keep a send in flight for a while. */
const newsletter = (n: number) => Array.from({ length: n }, (_, i) => `${unique('n')}${i}@example.com`);

async function sender(fields: Record<string, unknown> = {}): Promise<TestUser & { email: string }> {
  const email = `${unique('m')}@example.com`;
  const u = await makeUser({ email, email_verified: true, ...fields });
  return { ...u, email };
}

async function newMail(u: TestUser, entries: Record<string, string> = {}): Promise<{ name: string; path: string; id: number }> {
  const name = unique('m');
  const path = `/v1/vis/mails/${name}`;
  expect((await call('PUT', path, { token: u.token })).status).toBe(201);
  for (const [k, v] of Object.entries(entries)) expect((await call('POST', `${path}/${k}`, { token: u.token, text: v })).status, k).toBe(204);
  const owner = await db().select().from(users).where(eq(users.username, u.username)).get();
  const row = await db()
    .select()
    .from(resources)
    .where(and(eq(resources.owner_id, owner!.id), eq(resources.name, name)))
    .get();
  return { name, path, id: row!.id };
}

const post = (u: TestUser, path: string, o: { text?: string; json?: unknown } = { text: 'sent' }) => call('POST', `${path}/status`, { token: u.token, ...o });
const statusOf = async (u: TestUser, path: string) => (await call('GET', `${path}/status`, { token: u.token })).text();

async function untilReady(u: TestUser, path: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    if ((await statusOf(u, path)) === 'ready') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${path} never went back to ready`);
}

/**
 * Holds `key` of the e-mail's in-flight lock (MailObject storage) as a send that never ends,
 * so a request is decided against a known lock whatever became of earlier sends; the
 * returned function releases it. Delivery never clears it: it releases only its own send id.
 */
async function holdInFlight(id: number, key: string): Promise<() => Promise<void>> {
  const HELD = 'held-by-test';
  const stub = mailObject(env, id);
  const update = (change: (inflight: InFlight) => void) =>
    runInDurableObject(stub, (_mail, state) => {
      const inflight = state.storage.kv.get<InFlight>('inflight') ?? {};
      change(inflight);
      state.storage.kv.put('inflight', inflight);
    });
  await update((inflight) => void (inflight[key] = HELD));
  return () => update((inflight) => void (inflight[key] === HELD && delete inflight[key]));
}

async function outboxTo(address: string): Promise<Outbound[]> {
  const all = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as Outbound[];
  return all.filter((m) => m.to.includes(address.toLowerCase()));
}

async function logOf(u: TestUser, path: string): Promise<string[]> {
  return ((await (await call('GET', `${path}/log`, { token: u.token, headers: { Accept: 'application/json' } })).json()) as { message: string }[]).map((e) => e.message);
}

/** The log once `ok` holds (rejections are logged just after the answer). */
async function logWhen(u: TestUser, path: string, ok: (log: string[]) => boolean): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const log = await logOf(u, path);
    if (ok(log)) return log;
    await new Promise((r) => setTimeout(r, 20));
  }
  return logOf(u, path);
}

async function runs(u: TestUser, path: string) {
  return (await (await call('GET', `${path}/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })).json()) as {
    status: string;
    action: string;
    delivered: number;
    suppressed: number;
    failed: number;
    duration: number;
    timestamp: string;
  }[];
}

afterEach(() => setClockOffset(0));

describe('e-mails as resources', () => {
  it('PUT creates; the folder lists the spec entries; defaults read back', async () => {
    const u = await sender();
    const { path } = await newMail(u);
    const list = (await (await call('GET', path, { token: u.token })).json()) as { name: string; actions: string[] }[];
    expect(list.map((i) => i.name)).toEqual(
      ['assets', 'config', 'content', 'description', 'log', 'name', 'recipients', 'shared', 'shortname', 'stats', 'status', 'summary', 'tags', 'threads', 'url'].sort((a, b) =>
        a.localeCompare(b),
      ),
    );
    expect(list.find((i) => i.name === 'status')!.actions).toEqual(['GET', 'POST', 'DELETE']);
    const cfg = ((await (await call('GET', `${path}/config`, { token: u.token })).json()) as { name: string }[]).map((i) => i.name);
    expect(cfg).toEqual(['enabled', 'reply_to', 'size', 'subject', 'template', 'theme']);
    const rec = ((await (await call('GET', `${path}/recipients`, { token: u.token })).json()) as { name: string }[]).map((i) => i.name);
    expect(rec).toEqual(['bcc', 'cc', 'to']);
    expect(await (await call('GET', `${path}/config/enabled`, { token: u.token })).text()).toBe('true');
    expect(await (await call('GET', `${path}/config/size`, { token: u.token })).text()).toBe('m');
    expect(await statusOf(u, path)).toBe('ready');
    expect(((await (await call('GET', `${path}/stats`, { token: u.token })).json()) as { name: string }[]).map((i) => i.name)).toEqual(['runs']);
  });
  it('subject and config/subject are one entry, byte for byte', async () => {
    const u = await sender();
    const { path } = await newMail(u);
    expect((await call('POST', `${path}/subject`, { token: u.token, text: 'Hello  there ' })).status).toBe(204);
    expect(await (await call('GET', `${path}/config/subject`, { token: u.token })).text()).toBe('Hello  there ');
    expect((await call('POST', `${path}/config/subject`, { token: u.token, text: 'Again' })).status).toBe(204);
    expect(await (await call('GET', `${path}/subject`, { token: u.token })).text()).toBe('Again');
  });
  it('bad option values answer 400 and keep the old value', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'config/size': 's' });
    for (const [entry, bad] of [
      ['config/size', 'xl'],
      ['config/size', 'toString'],
      ['config/reply_to', 'not an address'],
      ['subject', 'two\nlines'],
    ]) {
      const res = await call('POST', `${path}/${entry}`, { token: u.token, text: bad });
      expect(res.status, `${entry} ${bad}`).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(entry);
    }
    expect(await (await call('GET', `${path}/config/size`, { token: u.token })).text()).toBe('s');
    expect((await call('POST', `${path}/content`, { token: u.token, text: 'x', type: 'application/x-www-form-urlencoded' })).status).toBe(415);
  });
  it('assets: upload, list, download, delete; at most 25 per e-mail', async () => {
    const u = await sender();
    const { path } = await newMail(u);
    const up = (n: string) => call('POST', `${path}/assets/${n}`, { token: u.token, body: PNG, headers: { 'Content-Type': 'image/png' } });
    expect((await up('a0.png')).status).toBe(201);
    expect((await up('a0.png')).status).toBe(204);
    expect((await call('POST', `${path}/assets/x.png`, { token: u.token, body: PNG, headers: { 'Content-Type': 'text/plain' } })).status).toBe(415);
    expect((await call('POST', `${path}/assets/Bad.png`, { token: u.token, body: PNG, headers: { 'Content-Type': 'image/png' } })).status).toBe(400);
    for (let i = 1; i < 25; i++) expect((await up(`a${i}.png`)).status).toBe(201);
    const full = await up('a25.png');
    expect(full.status).toBe(409);
    expect(((await full.json()) as { message: string }).message).toContain('25');
    const listed = (await (await call('GET', `${path}/assets`, { token: u.token })).json()) as unknown[];
    expect(listed).toHaveLength(25);
    const got = await call('GET', `${path}/assets/a0.png`, { token: u.token });
    expect(got.headers.get('Content-Type')).toBe('image/png');
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(PNG);
    expect((await call('DELETE', `${path}/assets/a0.png`, { token: u.token })).status).toBe(204);
    expect((await call('GET', `${path}/assets/a0.png`, { token: u.token })).status).toBe(404);
    expect((await up('a25.png')).status).toBe(201);
  });
});

describe('recipient lists', () => {
  it("writing recipients before the caller's address is verified answers 424 and stores nothing", async () => {
    const u = await makeUser({ email: `${unique('x')}@example.com` });
    const { path } = await newMail(u);
    const res = await call('POST', `${path}/recipients/to`, { token: u.token, text: 'a@example.com' });
    expect(res.status).toBe(424);
    expect(await res.json()).toMatchObject({ status: 424, message: expect.stringContaining('verify') });
    expect(await (await call('GET', `${path}/recipients/to`, { token: u.token })).text()).toBe('');
  });
  it('a write is atomic: one bad line answers 400 naming it in rejected, and nothing changes', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'keep@example.com' });
    const res = await call('POST', `${path}/recipients/to`, { token: u.token, text: 'ok@example.com\nnot-an-address\n@nosuchuser_zz\n+acme~nosuch' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { rejected: { line: string; reason: string }[] };
    expect(body.rejected.map((r) => r.line)).toEqual(['not-an-address', '@nosuchuser_zz', '+acme~nosuch']);
    expect(body.rejected.every((r) => r.reason.length > 0)).toBe(true);
    expect(await (await call('GET', `${path}/recipients/to`, { token: u.token })).text()).toBe('keep@example.com');
  });
  it('accepts addresses, @user, @user~group, +org~group, me and self; a group needs the owner as active member', async () => {
    const u = await sender();
    const other = await sender();
    const mine = await makeGroup(u.username);
    const theirs = await makeGroup(other.username);
    const org = await makeGroup(u.username, [], { org: unique('o').slice(0, 20) });
    const { path } = await newMail(u);
    const list = `a@example.com @${other.username} ${mine.ref}\n${org.ref} me self`;
    expect((await call('POST', `${path}/recipients/cc`, { token: u.token, text: list })).status).toBe(204);
    expect(await (await call('GET', `${path}/recipients/cc`, { token: u.token })).text()).toBe(list);
    const res = await call('POST', `${path}/recipients/bcc`, { token: u.token, text: theirs.ref });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { rejected: { reason: string }[] }).rejected[0]!.reason).toContain('active role');
  });
  it('an unknown group and a group the owner holds no active role in are rejected with the same reason (no group is revealed)', async () => {
    const u = await sender();
    const other = await sender();
    const theirs = await makeGroup(other.username);
    const pendingIn = await makeGroup(other.username, [{ username: u.username, state: 'pending' }]);
    const unknown = `@${other.username}~${unique('none').slice(0, 20)}`;
    const { path } = await newMail(u);
    const reasons = async (ref: string) => {
      const res = await call('POST', `${path}/recipients/to`, { token: u.token, text: ref });
      expect(res.status, ref).toBe(400);
      return ((await res.json()) as { rejected: { line: string; reason: string }[] }).rejected.map((r) => ({ line: r.line, reason: r.reason.replace(ref, '<ref>') }));
    };
    const expected = [{ line: expect.any(String), reason: 'no such group: <ref> (a mail goes only to groups its owner holds an active role in)' }];
    expect(await reasons(unknown)).toEqual(expected);
    expect(await reasons(theirs.ref)).toEqual(expected);
    expect(await reasons(pendingIn.ref)).toEqual(expected);
  });
  it('direct addresses beyond the plan allowance (free: 10 across to, cc, bcc) are rejected', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': Array.from({ length: 6 }, (_, i) => `t${i}@example.com`).join(' ') });
    const res = await call('POST', `${path}/recipients/cc`, { token: u.token, text: Array.from({ length: 5 }, (_, i) => `c${i}@example.com`).join(' ') });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { rejected: { line: string }[] }).rejected.map((r) => r.line)).toEqual(['c4@example.com']);
    const p = await sender({ plan: 'premium' });
    const m = await newMail(p);
    expect((await call('POST', `${m.path}/recipients/to`, { token: p.token, text: Array.from({ length: 11 }, (_, i) => `t${i}@example.com`).join(' ') })).status).toBe(204);
  });
  it('recipient changes are logged', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com me' });
    expect((await call('DELETE', `${path}/recipients/to`, { token: u.token })).status).toBe(204);
    const log = await logOf(u, path);
    expect(log).toContain(`recipients/to set to 2 item(s): a@example.com me by ${u.username}`);
    expect(log).toContain(`recipients/to cleared by ${u.username}`);
  });
});

describe('the send validation order', () => {
  it('1: a non-owner gets 404, also with read (or write) access through a share', async () => {
    const u = await sender();
    const reader = await sender();
    const g = await makeGroup(u.username, [{ username: reader.username }]);
    const { path, name } = await newMail(u);
    expect((await call('PUT', `${path}/shared/${g.ref}~rw`, { token: u.token })).status).toBe(201);
    const shared = `/v1/users/${u.username}/vis/mails/${name}`;
    expect((await call('GET', `${shared}/status`, { token: reader.token })).status).toBe(200);
    for (const who of [reader, await sender()]) {
      const res = await call('POST', `${shared}/status`, { token: who.token, text: 'sent' });
      expect(res.status).toBe(404);
    }
  });
  it("2: the caller's own address unverified answers 403 (read fresh from D1, not the token cache)", async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com' });
    expect((await call('GET', '/v1/whoami', { token: u.token })).status).toBe(200); // caches the verified user
    await db().update(users).set({ email_verified: false }).where(eq(users.username, u.username)); // another isolate's change
    const res = await post(u, path);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain('verify');
  });
  it('3: a send in flight answers 425', async () => {
    const u = await sender({ plan: 'premium' });
    const { path } = await newMail(u, { 'recipients/to': newsletter(60).join('\n') });
    const [a, b] = await Promise.all([post(u, path), post(u, path)]);
    expect([a.status, b.status].sort()).toEqual([202, 425]);
    await untilReady(u, path);
  });
  it('4: more than 10 sends of the same content in 30 minutes answers 429 with retry_after_seconds', async () => {
    const u = await sender();
    const { path } = await newMail(u, { content: 'eleven', 'recipients/to': 'a@example.com' });
    for (let i = 0; i < 10; i++) {
      expect((await post(u, path)).status, `send ${i + 1}`).toBe(202);
      await untilReady(u, path);
    }
    const held = await post(u, path);
    expect(held.status).toBe(429);
    const body = (await held.json()) as { retry_after_seconds: number };
    expect(body.retry_after_seconds).toBeGreaterThan(0);
    expect(body.retry_after_seconds).toBeLessThanOrEqual(30 * 60);
    // The window slides: 30 minutes later the content may go again.
    setClockOffset(WINDOW_MS + 1000);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
  it('5: config/enabled falsy answers 403', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com', 'config/enabled': 'off' });
    const res = await post(u, path);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain('config/enabled');
    expect((await call('POST', `${path}/config/enabled`, { token: u.token, text: 'yes' })).status).toBe(204);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
  it('the order holds when several checks fail at once', async () => {
    const u = await sender();
    const { path, name, id } = await newMail(u, { content: 'order', 'recipients/to': 'a@example.com' });
    for (let i = 0; i < 10; i++) {
      expect((await post(u, path)).status).toBe(202);
      await untilReady(u, path);
    }
    expect((await call('POST', `${path}/config/enabled`, { token: u.token, text: 'no' })).status).toBe(204);
    // window full + disabled -> 429 (rate before enabled)
    expect((await post(u, path)).status).toBe(429);
    // in flight + window full + disabled -> 425: a test send holds the test key
    const t1 = await post(u, path, { text: 'test' });
    expect(t1.status).toBe(202);
    // Held until released, however fast t1 is delivered: the second test is decided while it is in flight.
    const release = await holdInFlight(id, 'test');
    const t2 = await post(u, path, { text: 'test' });
    expect(t2.status).toBe(425);
    await release();
    await untilReady(u, path);
    // unverified + window full + disabled -> 403 naming the address
    await db().update(users).set({ email_verified: false }).where(eq(users.username, u.username));
    const unverified = await post(u, path);
    expect(unverified.status).toBe(403);
    expect(((await unverified.json()) as { message: string }).message).toContain('verify');
    // non-owner + everything else failing -> 404
    const stranger = await sender();
    expect((await call('POST', `/v1/users/${u.username}/vis/mails/${name}/status`, { token: stranger.token, text: 'sent' })).status).toBe(404);
  });
  it('in flight is checked before the window and enabled: a held re-fire answers 425, not 429 or 403', async () => {
    const u = await sender({ plan: 'premium' });
    const { path } = await newMail(u, { content: 'inflight-order', 'recipients/to': 'a@example.com' });
    for (let i = 0; i < 9; i++) {
      expect((await post(u, path)).status).toBe(202);
      await untilReady(u, path);
    }
    // the 10th is accepted, the concurrent 11th is held by the lock, not the window
    // (a newsletter-sized list keeps the 10th in flight; recipients are not content)
    expect((await call('POST', `${path}/recipients/to`, { token: u.token, text: newsletter(60).join('\n') })).status).toBe(204);
    const codes = (await Promise.all([post(u, path), post(u, path)])).map((r) => r.status).sort();
    expect(codes).toEqual([202, 425]);
    await untilReady(u, path);
  });
  it('malformed bodies answer 400 and are logged; nothing is sent', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com' });
    const bad: unknown[] = ['[', { action: 'blast' }, { to: 'a@example.com' }, { to: [] }, { to: ['nope'] }, { to: ['a@example.com'], cc: ['b@example.com'] }, [1]];
    for (const b of bad) {
      const res = typeof b === 'string' ? await call('POST', `${path}/status`, { token: u.token, body: b, type: 'application/json' }) : await post(u, path, { json: b });
      expect(res.status, JSON.stringify(b)).toBe(400);
    }
    expect((await post(u, path, { text: '' })).status).toBe(400);
    expect((await call('POST', `${path}/status`, { token: u.token, text: 'sent', type: 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect(await runs(u, path)).toEqual([]);
    const rejected = (log: string[]) => log.filter((l) => l.includes('rejected (400)'));
    expect(rejected(await logWhen(u, path, (l) => rejected(l).length >= 8))).toHaveLength(8);
  });
});

describe('concurrency', () => {
  it('50 concurrent sends are decided exactly: never two in flight, the held ones answer 425', { timeout: 240_000 }, async () => {
    // A newsletter-sized list keeps the accepted send in flight while the burst is decided.
    const u = await sender({ plan: 'premium' });
    const { path } = await newMail(u, { 'recipients/to': newsletter(60).join('\n') });
    const codes = (await Promise.all(Array.from({ length: 50 }, () => post(u, path)))).map((r) => r.status);
    await untilReady(u, path);
    expect(burstProblems(codes, await runs(u, path), 60)).toEqual([]);
  });
  it('ad-hoc sends to different sets are independent; an identical re-fire in flight is held', async () => {
    const u = await sender({ plan: 'premium' });
    const { path } = await newMail(u);
    const a = `${unique('a')}@example.com`;
    const b = `${unique('b')}@example.com`;
    // newsletter-sized sets keep the sends in flight while the re-fire is decided
    const [toA, toB] = [
      [a, ...newsletter(40)],
      [b, ...newsletter(40)],
    ];
    const codes = (await Promise.all([post(u, path, { json: { to: toA } }), post(u, path, { json: { to: toB } }), post(u, path, { json: { to: toA } })])).map((r) => r.status);
    expect(codes.filter((c) => c === 202)).toHaveLength(2);
    expect(codes.filter((c) => c === 425)).toHaveLength(1);
    await untilReady(u, path);
    expect(await outboxTo(a)).toHaveLength(1);
    expect(await outboxTo(b)).toHaveLength(1);
  });
  it('ad-hoc sends count in the window per recipient set', async () => {
    const u = await sender();
    const { path } = await newMail(u, { content: 'per-set' });
    const a = `${unique('a')}@example.com`;
    for (let i = 0; i < 10; i++) {
      expect((await post(u, path, { json: { to: [a] } })).status).toBe(202);
      await untilReady(u, path);
    }
    expect((await post(u, path, { json: { to: [a.toUpperCase()] } })).status).toBe(429);
    expect((await post(u, path, { json: { to: [`${unique('b')}@example.com`] } })).status).toBe(202);
    await untilReady(u, path);
    // the stored-list window is its own as well
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
  it('editing the e-mail (or an embedded asset) resets the window', async () => {
    const u = await sender();
    const { path } = await newMail(u, { content: 'v1 ![l](assets/l.png)', 'recipients/to': 'a@example.com' });
    const upload = (bytes: Uint8Array<ArrayBuffer>) => call('POST', `${path}/assets/l.png`, { token: u.token, body: bytes, headers: { 'Content-Type': 'image/png' } });
    expect((await upload(PNG)).status).toBe(201);
    for (let i = 0; i < 10; i++) {
      expect((await post(u, path)).status).toBe(202);
      await untilReady(u, path);
    }
    expect((await post(u, path)).status).toBe(429);
    expect((await upload(PNG)).status).toBe(204); // the same bytes: the same content
    expect((await post(u, path)).status).toBe(429);
    expect((await upload(new Uint8Array([...PNG, 0]))).status).toBe(204); // the embedded asset changed
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect((await call('POST', `${path}/content`, { token: u.token, text: 'v2' })).status).toBe(204);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
});

describe('test sends', () => {
  it("go only to the caller's own verified address and bypass recipients, enabled and the window", async () => {
    const u = await sender();
    const { path } = await newMail(u, { content: 'testing', subject: 'T', 'config/enabled': 'false' });
    for (let i = 0; i < 12; i++) {
      const res = await post(u, path, i % 2 ? { text: 'testing' } : { json: { action: 'test' } });
      expect(res.status, `test ${i + 1}`).toBe(202);
      expect(await res.json()).toMatchObject({ status: 202, state: 'testing' });
      await untilReady(u, path);
    }
    const sent = await outboxTo(u.email);
    expect(sent).toHaveLength(12);
    expect(sent.every((m) => m.kind === 'test' && m.to.length === 1 && m.subject === 'T')).toBe(true);
    expect((await runs(u, path)).every((r) => r.action === 'test' && r.status === 'delivered')).toBe(true);
  });
  it('an unverified caller cannot test (403)', async () => {
    const u = await makeUser({ email: `${unique('x')}@example.com` });
    const { path } = await newMail(u);
    expect((await post(u, path, { text: 'test' })).status).toBe(403);
  });
});

describe('delivery', () => {
  it('status is sending on acceptance and back to ready when delivery ends', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com' });
    const res = await post(u, path);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ status: 202, state: 'sending' });
    await untilReady(u, path);
    expect(await statusOf(u, path)).toBe('ready');
  });
  it('resolves recipients at send time: addresses, verified users and group members, me; one message each', async () => {
    const u = await sender();
    const verified = await sender();
    const unverified = await makeUser({ email: `${unique('nv')}@example.com` });
    const member = await sender();
    const pending = await sender();
    const g = await makeGroup(u.username, [{ username: member.username }, { username: pending.username, state: 'pending' }]);
    const direct = `${unique('d')}@example.com`;
    const { path } = await newMail(u, {
      content: '# Hello\n\nBody text',
      subject: 'News',
      'recipients/to': `${direct} @${verified.username}`,
      'recipients/cc': `@${unverified.username} ${g.ref}`,
      'recipients/bcc': `me ${direct.toUpperCase()}`,
    });
    // the member joins later: resolution happens at send time
    const late = await sender();
    await addMember(g.id, late.username, 'active');
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    for (const a of [direct, verified.email, member.email, late.email, u.email]) {
      const got = await outboxTo(a);
      expect(got, a).toHaveLength(1);
      expect(got[0]).toMatchObject({ kind: 'mail', to: [a.toLowerCase()], subject: 'News' });
      expect(got[0]!.html).toContain('<h1>Hello</h1>');
      expect(got[0]!.text).toMatch(/Unsubscribe: http.*\/v1\/mail\/unsubscribe\//);
      expect(got[0]!.html).toContain('/v1/mail/unsubscribe/');
    }
    expect(await outboxTo(pending.email)).toHaveLength(0);
    const [run] = await runs(u, path);
    expect(run).toMatchObject({ status: 'delivered', action: 'send', delivered: 5 });
    expect((await logOf(u, path)).some((l) => l.includes(`@${unverified.username}: no verified address`))).toBe(true);
  });
  it("a group the mail's owner no longer holds an active role in reaches nobody at send time (the log says so)", async () => {
    const u = await sender();
    const other = await sender();
    const member = await sender();
    const g = await makeGroup(other.username, [{ username: u.username }, { username: member.username }]);
    const direct = `${unique('d')}@example.com`;
    const { path } = await newMail(u, { subject: 'Left', 'recipients/to': `${direct} ${g.ref}` });
    // the owner leaves after writing the list
    await db()
      .delete(members)
      .where(and(eq(members.group_id, g.id), eq(members.user_id, await userId(u.username))));
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(direct)).toHaveLength(1);
    expect(await outboxTo(member.email)).toHaveLength(0);
    expect((await logOf(u, path)).some((l) => l.includes(`no such group: ${g.ref}`))).toBe(true);
  });
  it('embedded assets travel as inline parts', async () => {
    const u = await sender();
    const to = `${unique('i')}@example.com`;
    const { path } = await newMail(u, { content: '![logo](assets/logo.png)' });
    expect((await call('POST', `${path}/assets/logo.png`, { token: u.token, body: PNG, headers: { 'Content-Type': 'image/png' } })).status).toBe(201);
    expect((await post(u, path, { json: { to: [to] } })).status).toBe(202);
    await untilReady(u, path);
    const [m] = await outboxTo(to);
    expect(m!.html).toContain('src="cid:logo.png"');
    expect(m!.attachments).toEqual([{ filename: 'logo.png', content_type: 'image/png', size: PNG.byteLength }]);
  });
  it('an ad-hoc to replaces the stored list for that send only', async () => {
    const u = await sender();
    const stored = `${unique('s')}@example.com`;
    const adhoc = `${unique('h')}@example.com`;
    const { path } = await newMail(u, { 'recipients/to': stored });
    expect((await post(u, path, { json: { action: 'send', to: [adhoc] } })).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(adhoc)).toHaveLength(1);
    expect(await outboxTo(stored)).toHaveLength(0);
    expect(await (await call('GET', `${path}/recipients/to`, { token: u.token })).text()).toBe(stored);
  });
  it("an ad-hoc to beyond the plan's direct-address allowance answers 400", async () => {
    const u = await sender();
    const { path } = await newMail(u);
    const res = await post(u, path, { json: { to: Array.from({ length: 11 }, (_, i) => `x${i}@example.com`) } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('allows 10');
  });
  it('no deliverable recipients: the run is failed, status back to ready', async () => {
    const u = await sender();
    const { path } = await newMail(u);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect((await runs(u, path))[0]).toMatchObject({ status: 'failed', delivered: 0 });
  });
  it('a transport failure marks the run partial or failed and keeps the record', async () => {
    const u = await sender();
    const ok = `${unique('ok')}@example.com`;
    const bad = `${unique('bad')}@example.com`;
    const { path, id } = await newMail(u, { 'recipients/to': `${ok} ${bad}` });
    const owner = (await db().select().from(users).where(eq(users.username, u.username)).get())!;
    const job = { id: 'j1', action: 'send' as const, key: 'list', resourceId: id, callerId: owner.id, callerName: u.username, acceptedOn: Date.now() };
    const failing = async (_e: Env, _d: unknown, m: { to: string[] }) => {
      if (m.to.includes(bad)) throw new Error('relay said no');
    };
    expect(await runJob(env, job, failing)).toBe('partial');
    expect(await runJob(env, { ...job, id: 'j2' }, async () => Promise.reject(new Error('down')))).toBe('failed');
    const rows = await runs(u, path);
    expect(rows.map((r) => [r.status, r.delivered, r.failed])).toEqual([
      ['partial', 1, 1],
      ['failed', 0, 2],
    ]);
    expect((await logOf(u, path)).some((l) => l.includes(`transport refused ${bad}: relay said no`))).toBe(true);
  });
});

describe('suppression', () => {
  it('GET on the unsubscribe link records the suppression; later sends skip the address', async () => {
    const u = await sender();
    const a = `${unique('a')}@example.com`;
    const b = `${unique('b')}@example.com`;
    const { path } = await newMail(u, { content: 'first', 'recipients/to': `${a} ${b}` });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const link = /Unsubscribe: (\S+)/.exec((await outboxTo(a))[0]!.text)![1]!;
    const res = await call('GET', new URL(link).pathname);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(a);
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(a)).toHaveLength(1);
    expect(await outboxTo(b)).toHaveLength(2);
    expect((await runs(u, path))[1]).toMatchObject({ status: 'delivered', delivered: 1, suppressed: 1 });
    expect(await logOf(u, path)).toContain(`${a} unsubscribed`);
    // ad-hoc recipients are suppressed alike
    expect((await post(u, path, { json: { to: [a] } })).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(a)).toHaveLength(1);
  });
  it('a forged or altered unsubscribe token answers 404 and records nothing', async () => {
    const u = await sender();
    const a = `${unique('a')}@example.com`;
    const { path } = await newMail(u, { 'recipients/to': a });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const token = /unsubscribe\/(\S+)/.exec((await outboxTo(a))[0]!.text)![1]!;
    const [data, sig] = token.split('.') as [string, string];
    const other = btoa(JSON.stringify([1, 1, 'victim@example.com']))
      .replace(/=+$/, '')
      .replace(/\+/g, '-')
      .replace(/\//g, '_');
    // Alter one character of the signature to a different one (never a no-op).
    const altered = `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    for (const t of [`${other}.${sig}`, `${data}.${altered}`, 'garbage', `${data}`]) {
      expect((await call('GET', `/v1/mail/unsubscribe/${t}`)).status, t).toBe(404);
    }
  });
  it('bounced addresses (recorded by the operator) are suppressed for every sender', async () => {
    const u = await sender();
    const a = `${unique('bounce')}@example.com`;
    expect((await call('PUT', `/v1/ops/mail/bounces/${a}`, { token: OPS })).status).toBe(204);
    expect((await call('PUT', '/v1/ops/mail/bounces/nope', { token: OPS })).status).toBe(400);
    const { path } = await newMail(u, { 'recipients/to': a });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect(await outboxTo(a)).toHaveLength(0);
    expect((await runs(u, path))[0]).toMatchObject({ status: 'failed', suppressed: 1 });
  });
});

describe('stats and log', () => {
  it('stats/runs has one row per send (timestamp, duration, status) in text and JSON', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': `${unique('s')}@example.com` });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect((await post(u, path, { text: 'test' })).status).toBe(202);
    await untilReady(u, path);
    const rows = await runs(u, path);
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(typeof r.duration).toBe('number');
      expect(r.status).toBe('delivered');
    }
    const text = await (await call('GET', `${path}/stats/runs`, { token: u.token })).text();
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^timestamp\s+duration\s+status/);
  });
  it('variable references in the content render as formatted values, coloured by threshold; a value change resets the window', async () => {
    const u = await sender();
    const doc = `/v1/vis/docs/${unique('d')}`;
    expect((await call('PUT', doc, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${doc}/vars/growth`, { token: u.token })).status).toBe(201);
    for (const [k, v] of [
      ['type', 'relative'],
      ['value', '-0.042'],
      ['format', '+.1%'],
    ])
      await call('POST', `${doc}/vars/growth/${k}`, { token: u.token, text: v });
    const other = await sender(); // another user's private document stays unresolved
    const hidden = `/v1/vis/docs/${unique('h')}`;
    await call('PUT', hidden, { token: other.token });
    await call('PUT', `${hidden}/vars/x`, { token: other.token });
    const a = `${unique('a')}@example.com`;
    const ref = `{/u/${u.username}/d/${doc.split('/').pop()}/v/growth}`;
    const secret = `{/u/${other.username}/d/${hidden.split('/').pop()}/v/x}`;
    const { path } = await newMail(u, { content: `Growth: ${ref} and ${secret}`, 'recipients/to': a });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const [m] = await outboxTo(a);
    expect(m!.text).toContain('Growth: ↓ \u22124.2%');
    expect(m!.text).toContain(secret);
    expect(m!.html).toMatch(/<style>\.var-c0\{color:#cf222e\}<\/style>/);
    expect(m!.html).toMatch(/<span class="var var-down var-c0"[^>]*>↓ \u22124.2%<\/span>/);
    // Fill the window, then change the value the mail embeds: the content is new.
    for (let i = 1; i < 10; i++) {
      expect((await post(u, path)).status).toBe(202);
      await untilReady(u, path);
    }
    expect((await post(u, path)).status).toBe(429);
    await call('POST', `${doc}/vars/growth/value`, { token: u.token, text: '0.05' });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
  });
  it('the log records triggers and rejected sends with their reasons', async () => {
    const u = await sender();
    const { path } = await newMail(u, { 'recipients/to': 'a@example.com', 'config/enabled': 'no' });
    expect((await post(u, path)).status).toBe(403);
    expect((await post(u, path, { text: 'test' })).status).toBe(202);
    await untilReady(u, path);
    const log = await logWhen(u, path, (l) => l.some((x) => x.includes('rejected (403)')));
    expect(log.some((l) => l.startsWith(`send by ${u.username} rejected (403): config/enabled is off`))).toBe(true);
    expect(log.some((l) => /^send \S+ triggered by .*: test to /.test(l))).toBe(true);
    expect(log.some((l) => /^send \S+ \(test\) delivered/.test(l))).toBe(true);
  });
});

describe('the log names recipients as written, never the address of an @user or a group member', () => {
  const leaks = (log: string[], ...emails: string[]) => log.filter((l) => emails.some((e) => l.toLowerCase().includes(e.toLowerCase())));

  it('a suppressed @user, group member and direct address: the suppression line names @user, the group and the address as written', async () => {
    const [u, carol, dave] = [await sender(), await sender(), await sender()];
    const group = await makeGroup(u.username, [{ username: dave.username }]);
    const direct = `${unique('d')}@example.com`;
    for (const a of [carol.email, dave.email, direct]) expect((await call('PUT', `/v1/ops/mail/bounces/${a}`, { token: OPS })).status).toBe(204);
    const { path } = await newMail(u, { 'recipients/to': `@${carol.username}\n${group.ref}\n${direct}` });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const log = await logOf(u, path);
    expect(leaks(log, carol.email, dave.email)).toEqual([]);
    const line = log.find((l) => l.includes('suppressed:'))!;
    expect(line).toContain(`@${carol.username}`);
    expect(line).toContain(group.ref);
    expect(line).toContain(direct);
  });

  it('a transport refusal names the @user, not their address', async () => {
    const [u, erin] = [await sender(), await sender()];
    const { path, id } = await newMail(u, { 'recipients/to': `@${erin.username}` });
    const owner = (await db().select().from(users).where(eq(users.username, u.username)).get())!;
    const job = { id: 'j1', action: 'send' as const, key: 'list', resourceId: id, callerId: owner.id, callerName: u.username, acceptedOn: Date.now() };
    expect(await runJob(env, job, async () => Promise.reject(new Error('relay said no')))).toBe('failed');
    const log = await logOf(u, path);
    expect(log.some((l) => l.includes(`transport refused @${erin.username}: relay said no`))).toBe(true);
    expect(leaks(log, erin.email)).toEqual([]);
  });

  it("an @user's unsubscribe is logged as @user; a test send's trigger line names no address", async () => {
    const [u, erin] = [await sender(), await sender()];
    const { path } = await newMail(u, { 'recipients/to': `@${erin.username}` });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    const link = /Unsubscribe: (\S+)/.exec((await outboxTo(erin.email))[0]!.text)![1]!;
    expect((await call('GET', new URL(link).pathname)).status).toBe(200);
    expect((await post(u, path, { text: 'test' })).status).toBe(202);
    await untilReady(u, path);
    const log = await logOf(u, path);
    expect(log).toContain(`@${erin.username} unsubscribed`);
    expect(log.some((l) => /^send \S+ triggered by .*: test to /.test(l))).toBe(true);
    expect(leaks(log, erin.email, u.email)).toEqual([]);
  });
});

describe('the MailObject and the clock', () => {
  it("runs in the test's isolate: it sees the clock offset the test sets", async () => {
    const u = await sender();
    const { id } = await newMail(u);
    setClockOffset(123_456);
    expect(await mailObject(env, id).clockOffset()).toBe(123_456);
  });
  it('deleting an e-mail clears its object state', async () => {
    const u = await sender();
    const { path, id } = await newMail(u, { 'recipients/to': 'a@example.com' });
    expect((await post(u, path)).status).toBe(202);
    await untilReady(u, path);
    expect((await call('DELETE', path, { token: u.token })).status).toBe(204);
    expect(await mailObject(env, id).status()).toBe('ready');
  });
});
