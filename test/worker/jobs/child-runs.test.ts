/**
 * Child runs are addressable under their own job (`<child job>/runs/<child>`) as well as
 * under the top-level run's job; readers of the top-level run and readers of the child's
 * job may read them there; they stay out of `runs/` and `stats/runs`; a caller who can
 * read neither gets the 404 of a job they cannot see.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, makeUser, type TestUser } from '../helpers';
import { groupWith, makeJob, trigger } from './fixtures';

let alice: TestUser, bob: TestUser, parentReader: TestUser, childReader: TestUser, stranger: TestUser;
let top: string, child: string, crossTop: string, crossChild: string;
const J = '/v1/code/jobs';
const json = { Accept: 'application/json' };

async function childOf(token: string, base: string, run: string): Promise<{ name: string; job: string }> {
  const stats = (await (await call('GET', `${base}/runs/${run}/stats`, { token, headers: json })).json()) as {
    children: { name: string; job: string }[];
  };
  return stats.children[0]!;
}

beforeAll(async () => {
  [alice, bob, parentReader, childReader, stranger] = await Promise.all([
    makeUser({ profile_public: true }),
    makeUser(),
    makeUser(),
    makeUser(),
    makeUser(),
  ]);
  // alice: parent -> worker (both hers); parent shared with parentReader's group, worker with childReader's group.
  await makeJob(alice, 'worker', `export default { async run(i, ctx) { ctx.log('worker ran'); return 'child out'; } }`);
  await makeJob(alice, 'parent', undefined, { 'config/chains': 'step <- worker\nstep' });
  const pref = await groupWith(alice, parentReader, 'members');
  const cref = await groupWith(alice, childReader, 'members');
  expect((await call('PUT', `${J}/parent/shared/${pref}`, { token: alice.token })).status).toBe(201);
  expect((await call('PUT', `${J}/worker/shared/${cref}`, { token: alice.token })).status).toBe(201);
  const res = await trigger(alice.token, `${J}/parent`);
  expect(res.status).toBe(200);
  top = res.headers.get('X-Run-Id')!;
  child = (await childOf(alice.token, `${J}/parent`, top)).name;
  // Across owners: alice's chain calls bob's tool (shared with her with execute access).
  await makeJob(bob, 'tool', `export default { async run() { return 'tool out'; } }`);
  const bref = await groupWith(bob, alice, 'admins');
  expect((await call('PUT', `${J}/tool/shared/${bref}`, { token: bob.token })).status).toBe(201);
  await makeJob(alice, 'cross', undefined, { 'config/chains': `t <- @${bob.username}/tool\nt` });
  const cross = await trigger(alice.token, `${J}/cross`);
  expect(cross.status).toBe(200);
  crossTop = cross.headers.get('X-Run-Id')!;
  crossChild = (await childOf(alice.token, `${J}/cross`, crossTop)).name;
});

/** The four entries and the run's listing answer as for a readable run. */
async function readable(token: string, at: string, output: string, logLine: string): Promise<void> {
  const listing = (await (await call('GET', at, { token })).json()) as { name: string; uri: string }[];
  expect(listing.map((e) => e.name)).toEqual(['log', 'output', 'stats', 'status']);
  expect(listing[0]!.uri).toBe(`${at}/log`);
  expect(await (await call('GET', `${at}/status`, { token })).text()).toBe('success');
  expect(await (await call('GET', `${at}/output`, { token })).text()).toBe(output);
  expect(await (await call('GET', `${at}/log`, { token })).text()).toContain(logLine);
  const stats = (await (await call('GET', `${at}/stats`, { token, headers: json })).json()) as Record<string, unknown>;
  expect(stats).toMatchObject({ status: 'success', has_output: true });
}

describe('a child run is addressable under its own job', () => {
  it('the owner reads status, stats, log and output at <child job>/runs/<child> (own and /v1/users paths), and still under the top-level job', async () => {
    await readable(alice.token, `${J}/worker/runs/${child}`, 'child out', 'worker ran');
    await readable(
      alice.token,
      `/v1/users/${alice.username}/code/jobs/worker/runs/${child}`,
      'child out',
      'worker ran',
    );
    await readable(alice.token, `${J}/parent/runs/${child}`, 'child out', 'worker ran');
    const stats = (await (
      await call('GET', `${J}/worker/runs/${child}/stats`, { token: alice.token, headers: json })
    ).json()) as { origin: string };
    expect(stats.origin).toBe('worker');
  });

  it('a cancel there answers 409: a nested child run cannot be canceled alone', async () => {
    for (const at of [
      `${J}/worker/runs/${child}`,
      `/v1/users/${alice.username}/code/jobs/worker/runs/${child}`,
      `${J}/parent/runs/${child}`,
    ]) {
      const res = await call('POST', `${at}/status`, { token: alice.token, text: 'canceled' });
      expect(res.status, at).toBe(409);
      expect(((await res.json()) as { message: string }).message).toContain(
        'a nested child run cannot be canceled alone',
      );
    }
  });

  it("child runs stay out of the child job's runs/ and stats/runs, and its log", async () => {
    expect(await (await call('GET', `${J}/worker/runs`, { token: alice.token })).json()).toEqual([]);
    expect(await (await call('GET', `${J}/worker/stats/runs`, { token: alice.token, headers: json })).json()).toEqual(
      [],
    );
    expect(await (await call('GET', `${J}/worker/log`, { token: alice.token })).text()).toBe('');
  });

  it("a reader of the top-level run (the parent job is shared with their group) reads the child under the child's job, which they cannot see", async () => {
    const at = `/v1/users/${alice.username}/code/jobs/worker/runs/${child}`;
    expect(
      (await call('GET', `/v1/users/${alice.username}/code/jobs/worker`, { token: parentReader.token })).status,
    ).toBe(404);
    await readable(parentReader.token, at, 'child out', 'worker ran');
    // a reader cannot cancel: that needs execute access
    expect((await call('POST', `${at}/status`, { token: parentReader.token, text: 'canceled' })).status).toBe(403);
    // ... nor read the child job's other runs or entries
    expect(
      (await call('GET', `/v1/users/${alice.username}/code/jobs/worker/runs`, { token: parentReader.token })).status,
    ).toBe(404);
  });

  it("a reader of the child's job reads the child there, though they cannot read the top-level run's job", async () => {
    await readable(
      childReader.token,
      `/v1/users/${alice.username}/code/jobs/worker/runs/${child}`,
      'child out',
      'worker ran',
    );
    expect(
      (await call('GET', `/v1/users/${alice.username}/code/jobs/parent/runs/${child}`, { token: childReader.token }))
        .status,
    ).toBe(404);
    expect(
      (await call('GET', `/v1/users/${alice.username}/code/jobs/parent/runs/${top}`, { token: childReader.token }))
        .status,
    ).toBe(404);
  });

  it("the owner of a job called by someone else's chain reads its child run under their own job", async () => {
    await readable(bob.token, `${J}/tool/runs/${crossChild}`, 'tool out', 'run success');
    // ... but not the top-level run of alice's job
    expect(
      (await call('GET', `/v1/users/${alice.username}/code/jobs/cross/runs/${crossTop}`, { token: bob.token })).status,
    ).toBe(404);
    await readable(
      alice.token,
      `/v1/users/${bob.username}/code/jobs/tool/runs/${crossChild}`,
      'tool out',
      'run success',
    );
  });

  it('someone who can read neither gets the 404 of a job they cannot see (no existence leak)', async () => {
    const missingJob = await call('GET', `/v1/users/${alice.username}/code/jobs/nosuchjob/runs/${child}/status`, {
      token: stranger.token,
    });
    for (const path of ['', '/status', '/stats', '/log', '/output']) {
      const res = await call('GET', `/v1/users/${alice.username}/code/jobs/worker/runs/${child}${path}`, {
        token: stranger.token,
      });
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { message: string }).message).toBe('no such job: worker');
    }
    expect(missingJob.status).toBe(404);
    const cancel = await call('POST', `/v1/users/${alice.username}/code/jobs/worker/runs/${child}/status`, {
      token: stranger.token,
      text: 'canceled',
    });
    expect(cancel.status).toBe(404);
    // a top-level run is never readable under another job
    expect((await call('GET', `${J}/worker/runs/${top}/status`, { token: alice.token })).status).toBe(404);
  });

  it('runs stay never public: a public-only reader of the child job gets 403 there', async () => {
    await makeJob(alice, 'pubworker', `export default { async run() { return 'p'; } }`);
    await makeJob(alice, 'pubparent', undefined, { 'config/chains': 'pubworker' });
    expect((await call('PUT', `${J}/pubworker/shared/public`, { token: alice.token })).status).toBe(201);
    const run = (await trigger(alice.token, `${J}/pubparent`)).headers.get('X-Run-Id')!;
    const c = (await childOf(alice.token, `${J}/pubparent`, run)).name;
    expect(
      (await call('GET', `/v1/users/${alice.username}/code/jobs/pubworker/runs/${c}/status`, { token: stranger.token }))
        .status,
    ).toBe(403);
    expect((await call('GET', `/v1/users/${alice.username}/code/jobs/pubworker/runs/${c}/status`)).status).toBe(401);
  });
});
