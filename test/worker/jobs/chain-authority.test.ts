/**
 * A chain step that names a job runs only if everyone whose authority the run uses may
 * execute that job: who triggered it (API caller, mailing member, the owner for a
 * schedule) and the owner of every job whose chain led to the step. A chain written by a
 * grantee names only jobs the grantee may execute (400 on write, naming the step).
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { dbFor } from '../../../src/core/context';
import { handleInbound } from '../../../src/jobs/inbound';
import { fireDue } from '../../../src/jobs/schedule';
import { jobSchedules } from '../../../src/jobs/schema';
import { resources, users } from '../../../src/db/schema';
import { call, makeUser, type TestUser } from '../helpers';
import { groupWith, makeJob, newestRun, trigger, waitStatus } from './fixtures';
import { mailGroup, rawMail, repliesTo } from './mail-fixtures';

const J = '/v1/code/jobs';
const SECRET = `export default { async run(i, ctx) { return 'secret ' + (ctx.env.KEY ?? ''); } }`;
const json = { Accept: 'application/json' };
const at = (owner: TestUser, job: string) => `/v1/users/${owner.username}/code/jobs/${job}`;

async function share(owner: TestUser, job: string, entry: string): Promise<void> {
  const res = await call('PUT', `${J}/${job}/shared/${entry}`, { token: owner.token });
  if (res.status !== 201) throw new Error(`share ${job} ${entry}: ${res.status} ${await res.text()}`);
}

/** The log of a run that failed (502) under `base`. */
async function failedLog(res: Response, token: string, base: string): Promise<string> {
  expect(res.status).toBe(502);
  const { run } = (await res.json()) as { run: string };
  return (await call('GET', `${base}/runs/${run}/log`, { token })).text();
}

const writeChain = (token: string, base: string, text: string) =>
  call('POST', `${base}/config/chains`, { token, text });

/** Bob with a job `shared` Carol may write (`~rw`) and a job `private` of his she cannot see. */
async function bobAndCarol() {
  const [bob, carol] = await Promise.all([makeUser(), makeUser()]);
  await makeJob(bob, 'shared', `export default { async run() { return 'shared ran'; } }`);
  await makeJob(bob, 'private', SECRET, { 'config/env/KEY': 'k-123' });
  const ref = await groupWith(bob, carol, 'members');
  await share(bob, 'shared', `${ref}~rw`);
  return { bob, carol, ref };
}

describe('a chain written by a grantee names only jobs the grantee may execute', () => {
  it("Carol (~rw on Bob's job) cannot name Bob's private job, bare or @user/job: 400 naming the step and the ref; nothing is stored", async () => {
    const { bob, carol } = await bobAndCarol();
    const base = at(bob, 'shared');
    for (const [text, step] of [
      ['p <- private\np', 'step p (private)'],
      [`q <- @${bob.username}/private\nq`, `step q (@${bob.username}/private)`],
      ['private', 'step private (private)'],
    ] as const) {
      const res = await writeChain(carol.token, base, text);
      expect(res.status, text).toBe(400);
      const { message } = (await res.json()) as { message: string };
      expect(message, text).toContain(step);
      expect(message, text).toContain('no such job');
    }
    expect(await (await call('GET', `${base}/config/chains`, { token: bob.token })).text()).toBe('');
  });

  it('a job she can read but not execute is refused naming her; her own jobs and jobs shared with her with execute access are accepted', async () => {
    const { bob, carol } = await bobAndCarol();
    const base = at(bob, 'shared');
    await share(bob, 'private', await groupWith(bob, carol, 'members'));
    const readOnly = await writeChain(carol.token, base, 'p <- private\np');
    expect(readOnly.status).toBe(400);
    expect(((await readOnly.json()) as { message: string }).message).toContain(
      `step p (private): ${carol.username} has no execute access to private`,
    );
    await makeJob(carol, 'mine', `export default { async run() { return 'mine'; } }`);
    expect((await writeChain(carol.token, base, `m <- @${carol.username}/mine\nm`)).status).toBe(204);
    await share(bob, 'private', `${await groupWith(bob, carol, 'members')}~x`);
    expect((await writeChain(carol.token, base, 'p <- private\np')).status).toBe(204);
  });

  it("the owner writing his own chain is not restricted on write (the run checks it): a dangling ref or another user's job is accepted", async () => {
    const { bob } = await bobAndCarol();
    const alice = await makeUser();
    await makeJob(alice, 'apriv', SECRET);
    expect(
      (await writeChain(bob.token, `${J}/shared`, `a <- @${alice.username}/apriv\nb <- ghost\na -> b`)).status,
    ).toBe(204);
  });
});

describe('a chain step runs only if the trigger and the chain job owner may both execute it', () => {
  it("Bob's chain naming his private job: Carol's POST data fails the step (the log does not reveal the job), Bob's succeeds", async () => {
    // Carol may run `shared` (~rw carries execute for jobs)
    const { bob, carol } = await bobAndCarol();
    for (const chain of ['p <- private\np', `p <- @${bob.username}/private\np`]) {
      expect((await writeChain(bob.token, `${J}/shared`, chain)).status).toBe(204);
      const base = at(bob, 'shared');
      const denied = await trigger(carol.token, base);
      const log = await failedLog(denied, carol.token, base);
      expect(log, chain).toMatch(/step p: no such job: (@\S+\/)?private/);
      expect(log).not.toContain('secret');
      const ok = await trigger(bob.token, `${J}/shared`);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe('secret k-123');
    }
  });

  it('a triggerer who can read the job but not execute it is named in the log', async () => {
    const { bob, carol } = await bobAndCarol();
    await share(bob, 'private', await groupWith(bob, carol, 'members'));
    await writeChain(bob.token, `${J}/shared`, 'p <- private\np');
    const log = await failedLog(await trigger(carol.token, at(bob, 'shared')), carol.token, at(bob, 'shared'));
    expect(log).toContain(`step p: ${carol.username} has no execute access to private`);
  });

  it("the chain job's owner needs execute access too: a caller's own rights never reach through someone else's chain", async () => {
    // Mallory's chain names Alice's job; Alice may execute Mallory's job and triggers it.
    const [alice, mallory] = await Promise.all([makeUser(), makeUser()]);
    await makeJob(alice, 'ajob', SECRET, { 'config/env/KEY': 'alice-key' });
    await makeJob(mallory, 'spy', undefined, { 'config/chains': `a <- @${alice.username}/ajob\na` });
    await share(mallory, 'spy', `${await groupWith(mallory, alice, 'members')}~x`);
    const base = at(mallory, 'spy');
    const log = await failedLog(await trigger(alice.token, base), mallory.token, `${J}/spy`);
    expect(log).toContain(`step a: no such job: @${alice.username}/ajob`);
    // read access for Mallory: the log names her
    await share(alice, 'ajob', await groupWith(alice, mallory, 'members'));
    expect(await failedLog(await trigger(alice.token, base), mallory.token, `${J}/spy`)).toContain(
      `step a: ${mallory.username} has no execute access to @${alice.username}/ajob`,
    );
    // execute access for both: it runs
    await share(alice, 'ajob', `${await groupWith(alice, mallory, 'members')}~x`);
    const ok = await trigger(alice.token, base);
    expect(ok.status).toBe(200);
  });
});

describe('the rule holds at every depth', () => {
  it("a nested chain never lends its owner's rights to the triggerer: Bob runs Alice's job whose chain names her private job", async () => {
    const [alice, bob] = await Promise.all([makeUser(), makeUser()]);
    await makeJob(alice, 'apriv', SECRET, { 'config/env/KEY': 'alice-key' });
    await makeJob(alice, 'mid', undefined, { 'config/chains': 'p <- apriv\np' });
    await share(alice, 'mid', `${await groupWith(alice, bob, 'members')}~x`);
    await makeJob(bob, 'outer', undefined, { 'config/chains': `m <- @${alice.username}/mid\nm` });
    const res = await trigger(bob.token, `${J}/outer`);
    expect(res.status).toBe(502);
    const { run } = (await res.json()) as { run: string };
    const stats = (await (
      await call('GET', `${J}/outer/runs/${run}/stats`, { token: bob.token, headers: json })
    ).json()) as { children: { name: string; job: string }[] };
    expect(stats.children.map((c) => c.job)).toEqual(['mid']);
    expect(
      await (await call('GET', `${J}/outer/runs/${stats.children[0]!.name}/log`, { token: bob.token })).text(),
    ).toContain('step p: no such job: apriv');
    // Alice running her own job directly: it runs.
    expect((await trigger(alice.token, `${J}/mid`)).status).toBe(200);
  });

  it("an outer chain's owner's lack carries down: Alice runs Mallory's job, whose chain names Alice's job whose chain names Alice's private one", async () => {
    const [alice, mallory] = await Promise.all([makeUser(), makeUser()]);
    await makeJob(alice, 'apriv', SECRET, { 'config/env/KEY': 'alice-key' });
    await makeJob(alice, 'mid', undefined, { 'config/chains': 'p <- apriv\np' });
    await share(alice, 'mid', `${await groupWith(alice, mallory, 'members')}~x`);
    await makeJob(mallory, 'outer', undefined, { 'config/chains': `m <- @${alice.username}/mid\nm` });
    await share(mallory, 'outer', `${await groupWith(mallory, alice, 'members')}~x`);
    const res = await trigger(alice.token, at(mallory, 'outer'));
    expect(res.status).toBe(502);
    const { run } = (await res.json()) as { run: string };
    const stats = (await (
      await call('GET', `${J}/outer/runs/${run}/stats`, { token: mallory.token, headers: json })
    ).json()) as { children: { name: string }[] };
    // mid ran (both may execute it); apriv did not (Mallory may not)
    expect(stats.children).toHaveLength(1);
    const midLog = await (
      await call('GET', `${J}/outer/runs/${stats.children[0]!.name}/log`, { token: mallory.token })
    ).text();
    expect(midLog).toContain('step p: no such job: apriv');
    expect(midLog).not.toContain('secret');
  });

  it('fan-out children carry the same authority: each child of a fan-out fails where the triggerer lacks execute access', async () => {
    const { bob, carol, ref } = await bobAndCarol();
    await makeJob(
      bob,
      'split',
      `export default { async run() { return [new File(['a'], 'a.txt'), new File(['b'], 'b.txt')]; } }`,
    );
    await makeJob(bob, 'wrap', undefined, { 'config/chains': 'p <- private\np' });
    await makeJob(bob, 'fan', undefined, { 'config/chains': 'cut <- split\nw <- wrap\ncut -> .w' });
    for (const job of ['fan', 'split', 'wrap']) await share(bob, job, `${ref}~x`);
    const denied = await trigger(carol.token, at(bob, 'fan'));
    expect(denied.status).toBe(502);
    const { run } = (await denied.json()) as { run: string };
    const stats = (await (
      await call('GET', `${J}/fan/runs/${run}/stats`, { token: bob.token, headers: json })
    ).json()) as {
      children: { name: string; job: string; status: string }[];
    };
    const wraps = stats.children.filter((c) => c.job === 'wrap');
    expect(wraps.length).toBeGreaterThanOrEqual(1);
    // the first child to fail ends the step (its sibling may be torn down before it resolves the step)
    const logs = await Promise.all(
      wraps.map(async (c) => (await call('GET', `${J}/fan/runs/${c.name}/log`, { token: bob.token })).text()),
    );
    expect(logs.some((l) => l.includes('step p: no such job: private'))).toBe(true);
    expect(stats.children.some((c) => c.job === 'private')).toBe(false);
    // Bob runs it: both children reach his private job
    const ok = await trigger(bob.token, `${J}/fan`);
    expect(ok.status).toBe(200);
  });
});

describe('schedules and inbound mail act with their trigger’s rights only', () => {
  const db = dbFor(env);
  async function fire(u: TestUser, job: string): Promise<string> {
    const row = await db
      .select({ id: resources.id })
      .from(resources)
      .innerJoin(users, eq(users.id, resources.owner_id))
      .where(and(eq(resources.name, job), eq(users.username, u.username)))
      .get();
    const due = await db.select().from(jobSchedules).where(eq(jobSchedules.job_id, row!.id)).get();
    const waits: Promise<unknown>[] = [];
    expect(await fireDue(env, due!.next_fire, (p) => waits.push(p))).toContain(row!.id);
    await Promise.all(waits);
    const run = await newestRun(u.token, job);
    return waitStatus(u.token, `${J}/${job}`, run, (s) => s === 'success' || s === 'failed').then(
      async (s) => `${s}\n${await (await call('GET', `${J}/${job}/runs/${run}/log`, { token: u.token })).text()}`,
    );
  }

  it("a schedule of Bob's naming @alice/job runs with Bob's rights: read access through his group is not enough, execute access is; Carol cannot write it in", async () => {
    const [alice, bob, carol] = await Promise.all([makeUser(), makeUser(), makeUser()]);
    await makeJob(alice, 'ajob', SECRET, { 'config/env/KEY': 'alice-key' });
    await share(alice, 'ajob', await groupWith(alice, bob, 'members'));
    await makeJob(bob, 'nightly', undefined, { 'config/schedule': '* * * * *' });
    await share(bob, 'nightly', `${await groupWith(bob, carol, 'members')}~rw`);
    const chain = `a <- @${alice.username}/ajob\na`;
    const carolWrite = await writeChain(carol.token, at(bob, 'nightly'), chain);
    expect(carolWrite.status).toBe(400);
    expect(((await carolWrite.json()) as { message: string }).message).toContain(`step a (@${alice.username}/ajob)`);
    expect((await writeChain(bob.token, `${J}/nightly`, chain)).status).toBe(204);
    const denied = await fire(bob, 'nightly');
    expect(denied).toMatch(/^failed/);
    expect(denied).toContain(`step a: ${bob.username} has no execute access to @${alice.username}/ajob`);
    await share(alice, 'ajob', `${await groupWith(alice, bob, 'members')}~x`);
    expect(await fire(bob, 'nightly')).toMatch(/^success/);
  });

  it("only the owner sets config/schedule and config/enabled (a scheduled run acts with the owner's rights alone): a ~rw grantee gets 403 and nothing is stored", async () => {
    const { bob, carol } = await bobAndCarol();
    const base = at(bob, 'shared');
    for (const [path, text] of [
      ['config/schedule', '* * * * *'],
      ['config/enabled', 'false'],
    ] as const) {
      const res = await call('POST', `${base}/${path}`, { token: carol.token, text });
      expect(res.status, path).toBe(403);
      expect(((await res.json()) as { message: string }).message, path).toContain('only the owner');
    }
    expect(await (await call('GET', `${J}/shared/config/schedule`, { token: bob.token })).text()).toBe('');
    expect(await (await call('GET', `${J}/shared/config/enabled`, { token: bob.token })).text()).toBe('true');
    expect((await call('POST', `${J}/shared/config/schedule`, { token: bob.token, text: '* * * * *' })).status).toBe(
      204,
    );
  });

  it("a member's mail runs a job shared with the group with the member's and the job owner's rights together: the owner's chain cannot reach the member's jobs", async () => {
    const g = await mailGroup();
    // Mallory, a member of the group too, owns the job shared with it; the mailing member owns `mine`.
    const mallory = await makeUser();
    const ok = async (r: Promise<Response>) => expect((await r).status).toBeLessThan(300);
    await ok(
      call('PUT', `/v1/admin/orgs/${g.org}/groups/sales/roles/members/${mallory.username}`, { token: g.owner.token }),
    );
    await ok(call('POST', `/v1/admin/invites/+${g.org}~sales/accept`, { token: mallory.token, text: 'yes' }));
    const member = g.member;
    await makeJob(member, 'mine', SECRET, { 'config/env/KEY': 'member-key' });
    await makeJob(mallory, 'spy', undefined, { 'config/chains': `a <- @${member.username}/mine\na` });
    await share(mallory, 'spy', `+${g.org}~sales`);
    expect(await handleInbound(env, rawMail(g.email, g.address, 'Hello'), g.email, g.address)).toBe('accepted');
    const replies = await repliesTo(g.email);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.text).toContain('failed');
    expect(replies[0]!.attachments).toEqual([]);
    const run = await newestRun(mallory.token, 'spy');
    expect(await (await call('GET', `${J}/spy/runs/${run}/status`, { token: mallory.token })).text()).toBe('failed');
    const log = await (await call('GET', `${J}/spy/runs/${run}/log`, { token: mallory.token })).text();
    expect(log).toContain(`step a: no such job: @${member.username}/mine`);
    expect(await (await call('GET', `${J}/spy/runs/${run}/output`, { token: mallory.token })).text()).toBe('');
  });
});
