/**
 * A document's content renders with its owner's rights: another document's variables, an
 * attached document, the owner's own profile. So content written by someone other than
 * the owner (a grantee with write access) may only name what the writer could read: 400
 * naming the reference otherwise, and nothing stored. The owner writes freely, and the
 * page renders for its readers as before. Through the real Worker (D1, R2).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, makeUser, type TestUser } from '../helpers';
import { makeGroup } from './fixtures';

let alice: TestUser; // owner of report
let bob: TestUser; // may write alice's report, may not read carol's fin
let dave: TestUser; // may write alice's report and read carol's fin
let carol: TestUser; // owner of fin, shared with alice and dave
const report = () => `/v1/users/${alice.username}/vis/docs/report`;
const own = (path: string) => path.replace(`/users/${alice.username}`, '');

const write = (u: TestUser, path: string, text: string) => call('POST', path, { token: u.token, text });
const contentOf = async (path: string) => (await call('GET', `${own(path)}/content`, { token: alice.token })).text();
const page = async (u: TestUser) => (await call('GET', `/u/${alice.username}/d/report`, { token: u.token })).text();

async function expectRefused(u: TestUser, text: string, reference: string) {
  const before = await contentOf(report());
  const res = await write(u, `${report()}/content`, text);
  expect(res.status).toBe(400);
  const body = (await res.json()) as { status: number; message: string };
  expect(body.message).toBe(`content: ${reference} is not readable by ${u.username}`);
  expect(await contentOf(report())).toBe(before);
}

beforeAll(async () => {
  [alice, bob, dave, carol] = await Promise.all([
    makeUser({}, 'al'),
    makeUser({}, 'bo'),
    makeUser({}, 'da'),
    makeUser({}, 'ca'),
  ]);
  // carol's fin, with a variable, shared with alice and dave (not bob)
  expect((await call('PUT', '/v1/vis/docs/fin', { token: carol.token })).status).toBe(201);
  expect((await call('PUT', '/v1/vis/docs/fin/vars/revenue', { token: carol.token })).status).toBe(201);
  expect((await write(carol, '/v1/vis/docs/fin/vars/revenue/value', '987654')).status).toBe(204);
  expect((await call('PUT', '/v1/vis/docs/fin/vars/costs', { token: carol.token })).status).toBe(201);
  const finReaders = await makeGroup(carol, [{ user: alice }, { user: dave }]);
  expect((await call('PUT', `/v1/vis/docs/fin/shared/${finReaders.ref}`, { token: carol.token })).status).toBe(201);
  // alice's report (writable by bob and dave) and her private document
  for (const doc of ['report', 'private'])
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: alice.token })).status).toBe(201);
  const writers = await makeGroup(alice, [{ user: bob }, { user: dave }]);
  expect((await call('PUT', `/v1/vis/docs/report/shared/${writers.ref}~rw`, { token: alice.token })).status).toBe(201);
});

describe('variable references in a document written by a grantee', () => {
  it('a grantee may not name a variable of a document shared with the owner only: 400 naming it, nothing stored; the owner may, and the page shows it to readers as before', async () => {
    const ref = `{/u/${carol.username}/d/fin/v/revenue}`;
    expect((await write(alice, '/v1/vis/docs/report/content', 'before')).status).toBe(204);
    await expectRefused(bob, `Revenue: ${ref}`, ref);
    expect(await page(bob)).not.toContain('987,654');
    expect(await page(bob)).not.toContain('987654');
    // The owner writes it; readers (bob included) see the value the owner may read.
    expect((await write(alice, '/v1/vis/docs/report/content', `Revenue: ${ref}`)).status).toBe(204);
    expect(await page(bob)).toContain('>987654</span>');
  });

  it('a grantee who can read the named document may write the reference', async () => {
    const ref = `{/u/${carol.username}/d/fin/v/revenue}`;
    expect((await write(dave, `${report()}/content`, `Dave's: ${ref}`)).status).toBe(204);
    expect(await contentOf(report())).toBe(`Dave's: ${ref}`);
  });

  it('references the stored content already holds stay: a grantee edits around them, but adds no new one', async () => {
    const ref = `{/u/${carol.username}/d/fin/v/revenue}`;
    expect((await write(alice, '/v1/vis/docs/report/content', `Revenue: ${ref}`)).status).toBe(204);
    expect((await write(bob, `${report()}/content`, `# Q3\n\nRevenue, as Alice set it: ${ref}`)).status).toBe(204);
    const costs = `{/u/${carol.username}/d/fin/v/costs}`;
    await expectRefused(bob, `# Q3\n\nRevenue: ${ref}, costs: ${costs}`, costs);
  });

  it("the owner's private documents, and a document that does not exist, are refused alike", async () => {
    await expectRefused(bob, `{/u/${alice.username}/d/private/v/x}`, `{/u/${alice.username}/d/private/v/x}`);
    await expectRefused(bob, `{/u/${carol.username}/d/nosuch/v/x}`, `{/u/${carol.username}/d/nosuch/v/x}`);
    const nobody = `{/u/nosuchuser${Date.now()}/d/x/v/x}`;
    await expectRefused(bob, nobody, nobody);
  });

  it('a reference hidden from a whole-content lexer (a fence left open in a block) is still found', async () => {
    const ref = `{/u/${carol.username}/d/fin/v/revenue}`;
    expect((await write(alice, '/v1/vis/docs/report/content', 'plain')).status).toBe(204);
    await expectRefused(bob, `{{ callout\n}}\n\`\`\`\n{{ /callout }}\n${ref}\n`, ref);
  });

  it('references inside code are text, never read: a grantee may write them', async () => {
    expect((await write(bob, `${report()}/content`, `\`{/u/${carol.username}/d/fin/v/revenue}\``)).status).toBe(204);
  });
});

describe('attachment and author blocks in a document written by a grantee', () => {
  const attachment = (user: string, doc: string) => `{{ attachment\n  ref: /u/${user}/d/${doc}\n}}\n{{ /attachment }}`;
  const author = (user: string) => `{{ author\n  ${user}\n}}\n{{ /author }}`;

  it('an attachment block names a document: the owner may name any, a grantee only one they can read', async () => {
    expect((await write(alice, '/v1/vis/docs/report/content', attachment(alice.username, 'private'))).status).toBe(204);
    expect((await write(alice, '/v1/vis/docs/report/content', 'x')).status).toBe(204);
    await expectRefused(bob, attachment(alice.username, 'private'), `attachment /u/${alice.username}/d/private`);
    await expectRefused(bob, attachment(carol.username, 'fin'), `attachment /u/${carol.username}/d/fin`);
    expect((await write(dave, `${report()}/content`, attachment(carol.username, 'fin'))).status).toBe(204);
    expect((await write(bob, `${report()}/content`, attachment(alice.username, 'report'))).status).toBe(204);
  });

  it("an author block shows the owner's profile even when private: a grantee may name the owner only when the profile is public", async () => {
    expect((await write(alice, '/v1/admin/profile/name', 'Alice Private')).status).toBe(204);
    expect((await write(alice, '/v1/vis/docs/report/content', 'x')).status).toBe(204);
    await expectRefused(bob, author(alice.username), `author ${alice.username}`);
    expect(await page(bob)).not.toContain('Alice Private');
    // Other users' profiles show only when public, whoever writes: no check.
    expect(
      (await write(bob, `${report()}/content`, `${author(bob.username)}\n\n${author(carol.username)}`)).status,
    ).toBe(204);
    // The owner names herself freely; once public, so may the grantee.
    expect((await write(alice, '/v1/vis/docs/report/content', author(alice.username))).status).toBe(204);
    expect(await page(bob)).toContain('Alice Private');
    expect((await write(alice, '/v1/vis/docs/report/content', 'x')).status).toBe(204);
    expect((await write(alice, '/v1/admin/profile/public', 'yes')).status).toBe(204);
    expect((await write(bob, `${report()}/content`, author(alice.username))).status).toBe(204);
    expect((await write(alice, '/v1/admin/profile/public', 'no')).status).toBe(204);
  });
});

describe('a copy renders with its new owner', () => {
  it("a grantee's copy of a document holding the owner's reference does not show the value", async () => {
    const ref = `{/u/${carol.username}/d/fin/v/revenue}`;
    expect((await write(alice, '/v1/vis/docs/report/content', `Revenue: ${ref}`)).status).toBe(204);
    const res = await call('PATCH', report(), { token: bob.token, json: { name: 'mine', copy: true } });
    expect(res.status).toBe(201);
    const html = await (await call('GET', `/u/${bob.username}/d/mine`, { token: bob.token })).text();
    expect(html).toContain(`<span class="var var-missing">${ref}</span>`);
    expect(html).not.toContain('987654');
  });
});

describe('the check costs one D1 round trip, whatever the number of references', () => {
  const trips = (res: Response) =>
    Number(/d1;desc="(\d+) round trips"/.exec(res.headers.get('Server-Timing') ?? '')?.[1]);

  it('a grantee write naming nothing costs what any write costs; naming 250 documents one round trip more, refused or stored', async () => {
    expect((await write(alice, '/v1/vis/docs/report/content', 'x')).status).toBe(204);
    for (const u of [bob, dave]) await write(u, `${report()}/content`, 'warm the token cache');
    const plain = await write(bob, `${report()}/content`, 'plain words');
    expect([plain.status, trips(plain)]).toEqual([204, 2]);
    const many = Array.from({ length: 250 }, (_, i) => `{/u/${carol.username}/d/doc${i}/v/x}`).join('\n\n');
    const refused = await write(bob, `${report()}/content`, many);
    expect([refused.status, trips(refused)]).toEqual([400, 2]);
    expect(((await refused.json()) as { unreadable: string[] }).unreadable).toHaveLength(250);
    const readable = `${many.replaceAll(/\/doc\d+\//g, '/fin/')}\n\n{/u/${alice.username}/d/report/v/own}`;
    const stored = await write(dave, `${report()}/content`, readable);
    expect([stored.status, trips(stored)]).toEqual([204, 3]);
  });
});
