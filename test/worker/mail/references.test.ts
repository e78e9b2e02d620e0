/**
 * A mail renders with its owner's rights: attached documents, variables and the owner's
 * profile are read as the owner, and go to every recipient. So a grantee with write access
 * may only add content naming what they can read, and may only add recipients (who would
 * receive it) when they can read everything the content names; a group they add needs
 * their own active membership. 400 naming the reference, nothing stored. Through the
 * real Worker (D1, R2, the MailObject and the outbox).
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';
import { makeGroup } from '../docs/fixtures';

// A send waits for delivery to end; a loaded machine makes that slow, never wrong.
vi.setConfig({ testTimeout: 120_000 });

type Sender = TestUser & { email: string };
async function sender(prefix: string): Promise<Sender> {
  const email = `${unique('m')}@example.com`;
  return { ...(await makeUser({ email, email_verified: true }, prefix)), email };
}

let alice: Sender; // owner of the mails and of the private document
let bob: Sender; // may write alice's mails, reads none of her documents
let dave: Sender; // may write alice's mails and read alice's shared document
let team: string; // alice's group bob is not in
let crew: string; // alice's group bob is in

const write = (u: TestUser, path: string, text: string) => call('POST', path, { token: u.token, text });
const attachment = (doc: string) =>
  `{{ attachment\n  ref: /u/${alice.username}/d/${doc}\n  name: ${doc}\n}}\n{{ /attachment }}`;

/** A fresh mail of alice's writable by bob and dave, with `entries` written by alice. */
async function mail(entries: Record<string, string> = {}): Promise<{ own: string; shared: string }> {
  const name = unique('m');
  const own = `/v1/vis/mails/${name}`;
  expect((await call('PUT', own, { token: alice.token })).status).toBe(201);
  expect((await call('PUT', `${own}/shared/${crew}~rw`, { token: alice.token })).status).toBe(201);
  for (const [k, v] of Object.entries(entries)) expect((await write(alice, `${own}/${k}`, v)).status, k).toBe(204);
  return { own, shared: `/v1/users/${alice.username}/vis/mails/${name}` };
}

/** The outbox messages with this subject, once delivery has recorded one. */
async function outboxWith(subject: string): Promise<{ to: string[]; subject: string; text: string }[]> {
  for (let i = 0; i < 1200; i++) {
    const all = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as {
      to: string[];
      subject: string;
      text: string;
    }[];
    const sent = all.filter((s) => s.subject === subject);
    if (sent.length) return sent;
    await new Promise((r) => setTimeout(r, 50));
  }
  return [];
}

async function expectRefused(u: TestUser, path: string, entry: string, text: string, reference: string, more = '') {
  const before = await (await call('GET', `${path}/${entry}`, { token: alice.token })).text();
  const res = await write(u, `${path}/${entry}`, text);
  expect(res.status).toBe(400);
  expect(((await res.json()) as { message: string }).message).toBe(
    `${entry}: ${reference} is not readable by ${u.username}${more}`,
  );
  expect(await (await call('GET', `${path}/${entry}`, { token: alice.token })).text()).toBe(before);
}

beforeAll(async () => {
  [alice, bob, dave] = await Promise.all([sender('al'), sender('bo'), sender('da')]);
  for (const doc of ['private', 'shared']) {
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: alice.token })).status).toBe(201);
    expect((await write(alice, `/v1/vis/docs/${doc}/content`, `# ${doc}`)).status).toBe(204);
    expect((await call('PUT', `/v1/vis/docs/${doc}/vars/secret`, { token: alice.token })).status).toBe(201);
    expect((await write(alice, `/v1/vis/docs/${doc}/vars/secret/value`, '424242')).status).toBe(204);
  }
  team = (await makeGroup(alice, [{ user: dave }])).ref;
  crew = (await makeGroup(alice, [{ user: bob }, { user: dave }])).ref;
  expect((await call('PUT', `/v1/vis/docs/shared/shared/${team}`, { token: alice.token })).status).toBe(201);
});

describe('content a grantee writes into a mail', () => {
  it("an attachment block naming the owner's private document: refused for a grantee, the owner may", async () => {
    const m = await mail();
    await expectRefused(bob, m.shared, 'content', attachment('private'), `attachment /u/${alice.username}/d/private`);
    await expectRefused(dave, m.shared, 'content', attachment('private'), `attachment /u/${alice.username}/d/private`);
    expect((await write(dave, `${m.shared}/content`, attachment('shared'))).status).toBe(204);
    expect((await write(alice, `${m.own}/content`, attachment('private'))).status).toBe(204);
  });

  it('a variable reference: refused unless the grantee can read its document', async () => {
    const m = await mail();
    const secret = `{/u/${alice.username}/d/private/v/secret}`;
    await expectRefused(bob, m.shared, 'content', `Secret: ${secret}`, secret);
    const shared = `{/u/${alice.username}/d/shared/v/secret}`;
    await expectRefused(bob, m.shared, 'content', `Shared: ${shared}`, shared);
    expect((await write(dave, `${m.shared}/content`, `Shared: ${shared}`)).status).toBe(204);
    expect((await write(alice, `${m.own}/content`, `Secret: ${secret}`)).status).toBe(204);
  });

  it('an author block naming the owner, whose profile is private: refused for a grantee', async () => {
    const m = await mail();
    await expectRefused(
      bob,
      m.shared,
      'content',
      `{{ author\n  ${alice.username}\n}}\n{{ /author }}`,
      `author ${alice.username}`,
    );
  });
});

describe('recipients a grantee adds to a mail', () => {
  it("a grantee may not put themselves in bcc of a mail attaching the owner's private document", async () => {
    const m = await mail({ content: attachment('private') });
    await expectRefused(
      bob,
      m.shared,
      'recipients/bcc',
      bob.email,
      `attachment /u/${alice.username}/d/private (in the content)`,
    );
    await expectRefused(
      bob,
      m.shared,
      'recipients/to',
      `@${bob.username}`,
      `attachment /u/${alice.username}/d/private (in the content)`,
    );
    // The owner may add anyone.
    expect((await write(alice, `${m.own}/recipients/bcc`, bob.email)).status).toBe(204);
  });

  it('a grantee who can read everything the content names may add recipients', async () => {
    const m = await mail({ content: `${attachment('shared')}\n\n{/u/${alice.username}/d/shared/v/secret}` });
    await expectRefused(
      bob,
      m.shared,
      'recipients/bcc',
      bob.email,
      `{/u/${alice.username}/d/shared/v/secret} (in the content)`,
      ' (and 1 more)',
    );
    expect((await write(dave, `${m.shared}/recipients/bcc`, dave.email)).status).toBe(204);
  });

  it('recipients already on the lists stay: a grantee may remove or keep them, not add one', async () => {
    const m = await mail({
      content: attachment('private'),
      'recipients/to': `a@example.com ${alice.email}`,
      'recipients/cc': `@${alice.username}`,
    });
    expect((await write(bob, `${m.shared}/recipients/to`, 'A@example.com')).status).toBe(204);
    expect((await write(bob, `${m.shared}/recipients/bcc`, `@${alice.username} me`)).status).toBe(204);
    await expectRefused(
      bob,
      m.shared,
      'recipients/to',
      'a@example.com b@example.com',
      `attachment /u/${alice.username}/d/private (in the content)`,
    );
  });

  it("a group a grantee adds needs the grantee's own active membership, whatever the content", async () => {
    const m = await mail({ content: 'Hello' });
    await expectRefused(bob, m.shared, 'recipients/to', team, team);
    expect((await write(bob, `${m.shared}/recipients/to`, crew)).status).toBe(204);
    expect((await write(dave, `${m.shared}/recipients/cc`, team)).status).toBe(204);
    expect((await write(bob, `${m.shared}/recipients/bcc`, bob.email)).status).toBe(204);
  });

  it("the refused bcc reaches nobody: the owner's send goes to her recipients only", async () => {
    const secret = `{/u/${alice.username}/d/private/v/secret}`;
    const subject = unique('s');
    const m = await mail({ content: `Secret: ${secret}`, subject, 'recipients/to': alice.email });
    await expectRefused(bob, m.shared, 'recipients/bcc', bob.email, `${secret} (in the content)`);
    expect((await write(alice, `${m.own}/status`, 'sent')).status).toBe(202);
    const sent = await outboxWith(subject);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.to).toEqual([alice.email.toLowerCase()]);
    expect(sent[0]!.text).toContain('424242');
  });
});

describe("a grantee's copy of the owner's mail", () => {
  it("renders with the copier's rights: the owner's variables stay as written in what the copier sends", async () => {
    const secret = `{/u/${alice.username}/d/private/v/secret}`;
    const m = await mail({ content: `Secret: ${secret}` });
    const copy = unique('c');
    expect((await call('PATCH', m.shared, { token: bob.token, json: { name: copy, copy: true } })).status).toBe(201);
    const subject = unique('s');
    expect((await write(bob, `/v1/vis/mails/${copy}/subject`, subject)).status).toBe(204);
    expect((await write(bob, `/v1/vis/mails/${copy}/status`, 'test')).status).toBe(202);
    const sent = await outboxWith(subject);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toContain(secret);
    expect(sent[0]!.text).not.toContain('424242');
  });
});
