/**
 * Inbound mail acts only on what the platform's receiver authenticated: its own
 * Authentication-Results header (authserv-id MAIL_AUTHSERV_ID), DKIM and SPF aligned with
 * the From domain, the From address as the sender; replies only to authenticated senders;
 * and a job shared into the group runs only while its owner holds an active role there.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { handleInbound } from '../../../src/jobs/inbound';
import { call, unique, type TestUser } from '../helpers';
import { accept, join, person } from '../groups/fixtures';
import { makeJob, waitStatus } from './fixtures';
import { authResults, mailGroup, rawMail, repliesTo } from './mail-fixtures';

const J = '/v1/code/jobs';
const CF = 'Authentication-Results: mx.cloudflare.net;';

interface Run {
  name: string;
}
const runsOf = async (u: TestUser, job: string, owner?: string) =>
  (await (
    await call('GET', `${owner ? `/v1/users/${owner}/code/jobs` : J}/${job}/runs`, { token: u.token })
  ).json()) as Run[];
const statsOf = async (u: TestUser, job: string, run: string) =>
  (await (
    await call('GET', `${J}/${job}/runs/${run}/stats`, { token: u.token, headers: { Accept: 'application/json' } })
  ).json()) as Record<string, unknown>;
const logOf = async (u: TestUser, job: string, run: string) =>
  (await call('GET', `${J}/${job}/runs/${run}/log`, { token: u.token })).text();

/** The mail group with a job shared into it, and the group's checks set. */
async function setup(options: ('mail_verify_dkim' | 'mail_verify_spf')[] = []) {
  const g = await mailGroup();
  const job = unique('j').slice(0, 20);
  await makeJob(g.owner, job, `export default { async run(input) { return JSON.parse(await input[0].text()).from; } }`);
  expect((await call('PUT', `${J}/${job}/shared/+${g.org}~sales`, { token: g.owner.token })).status).toBe(201);
  for (const o of options) {
    expect(
      (
        await call('POST', `/v1/admin/orgs/${g.org}/groups/sales/profile/options/${o}`, {
          token: g.owner.token,
          text: 'yes',
        })
      ).status,
    ).toBe(204);
  }
  return { ...g, job };
}

describe("only the receiver's own Authentication-Results header counts (MAIL_AUTHSERV_ID)", () => {
  it('the var defaults to mx.cloudflare.net', () => {
    expect(env.MAIL_AUTHSERV_ID).toBe('mx.cloudflare.net');
  });

  it("a sender's forged Authentication-Results (another authserv-id, or below the receiver's) passes no check: rejected run, no reply", async () => {
    const g = await setup(['mail_verify_dkim']);
    const forgedOther = `Authentication-Results: mail.attacker.example; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=${g.email}`;
    expect(await handleInbound(env, rawMail(g.email, g.address, 'Forged', [forgedOther]), g.email, g.address)).toBe(
      'rejected',
    );
    const forgedBelow = `${CF} dkim=pass header.d=example.com; spf=pass smtp.mailfrom=${g.email}`;
    const receivers = `${CF} dkim=none; spf=none smtp.mailfrom=${g.email}`;
    expect(
      await handleInbound(env, rawMail(g.email, g.address, 'Forged', [receivers, forgedBelow]), g.email, g.address),
    ).toBe('rejected');
    const runs = await runsOf(g.owner, g.job);
    expect(runs).toHaveLength(2);
    for (const r of runs) {
      expect((await statsOf(g.owner, g.job, r.name)).status).toBe('rejected');
      expect(await logOf(g.owner, g.job, r.name)).toMatch(/DKIM did not pass/);
    }
    expect(await repliesTo(g.email)).toEqual([]);
  });
});

describe('DKIM and SPF pass only when aligned with the From domain', () => {
  it('with mail_verify_dkim, a signature by another domain (dkim=pass header.d=evil) is rejected with the reason', async () => {
    const g = await setup(['mail_verify_dkim']);
    const misaligned = `${CF} dkim=pass header.d=attacker.example; spf=pass smtp.mailfrom=${g.email}`;
    expect(await handleInbound(env, rawMail(g.email, g.address, 'Hi', [misaligned]), g.email, g.address)).toBe(
      'rejected',
    );
    const [run] = await runsOf(g.owner, g.job);
    expect(await logOf(g.owner, g.job, run!.name)).toMatch(
      /DKIM did not pass \(pass for attacker\.example \(not aligned with the From domain example\.com\)\)/,
    );
    expect(await repliesTo(g.email)).toEqual([]);
  });

  it('with mail_verify_spf, spf=pass for an envelope domain not aligned with From is rejected', async () => {
    const g = await setup(['mail_verify_spf']);
    const misaligned = `${CF} dkim=none; spf=pass smtp.mailfrom=bounce@attacker.example`;
    expect(
      await handleInbound(env, rawMail(g.email, g.address, 'Hi', [misaligned]), 'bounce@attacker.example', g.address),
    ).toBe('rejected');
    const [run] = await runsOf(g.owner, g.job);
    expect(await logOf(g.owner, g.job, run!.name)).toMatch(/SPF did not pass \(pass for attacker\.example/);
  });

  it('an aligned signature of the From domain passes both checks and runs as the member, with a reply', async () => {
    const g = await setup(['mail_verify_dkim', 'mail_verify_spf']);
    expect(await handleInbound(env, rawMail(g.email, g.address, 'Ok'), g.email, g.address)).toBe('accepted');
    const [run] = await runsOf(g.owner, g.job);
    expect(await waitStatus(g.owner.token, `${J}/${g.job}`, run!.name, (s) => s === 'success')).toBe('success');
    expect(await statsOf(g.owner, g.job, run!.name)).toMatchObject({ created_by: g.member.username });
    expect(await repliesTo(g.email)).toHaveLength(1);
  });
});

describe('the sender is the From address the checks authenticated, never the envelope', () => {
  it("envelope Alice, From Mallory (Mallory's own aligned signature): Mallory is the sender, no job runs as Alice, Alice gets nothing", async () => {
    const g = await setup(['mail_verify_dkim']);
    const mallory = `${unique('mal')}@attacker.example`;
    const headers = [`${CF} dkim=pass header.d=attacker.example; spf=pass smtp.mailfrom=${mallory}`];
    expect(await handleInbound(env, rawMail(mallory, g.address, 'Pose', headers), g.email, g.address)).toBe('rejected');
    const [run] = await runsOf(g.owner, g.job);
    expect(await statsOf(g.owner, g.job, run!.name)).toMatchObject({ status: 'rejected', created_by: mallory });
    expect(await logOf(g.owner, g.job, run!.name)).toContain(`${mallory} is not an accepted member`);
    expect(await repliesTo(g.email)).toEqual([]);
    // Mallory did authenticate her own address: she is told, nobody else
    expect(await repliesTo(mallory)).toHaveLength(1);
  });

  it("envelope Mallory, From Alice (SPF passes for Mallory's domain only): not authenticated as Alice, rejected with the checks on", async () => {
    const g = await setup(['mail_verify_dkim', 'mail_verify_spf']);
    const mallory = `${unique('mal')}@attacker.example`;
    const headers = [`${CF} dkim=none; spf=pass smtp.mailfrom=${mallory}`];
    expect(await handleInbound(env, rawMail(g.email, g.address, 'Pose', headers), mallory, g.address)).toBe('rejected');
    const [run] = await runsOf(g.owner, g.job);
    expect((await statsOf(g.owner, g.job, run!.name)).status).toBe('rejected');
    expect(await repliesTo(g.email)).toEqual([]);
    expect(await repliesTo(mallory)).toEqual([]);
  });

  it('input.json `from` is the From address (lowercase), not the envelope', async () => {
    const g = await setup();
    const envelope = `${unique('env')}@bounces.example.com`;
    expect(
      await handleInbound(
        env,
        rawMail(g.email.toUpperCase(), g.address, 'Case', [authResults(g.email)]),
        envelope,
        g.address,
      ),
    ).toBe('accepted');
    const [run] = await runsOf(g.owner, g.job);
    expect(await waitStatus(g.owner.token, `${J}/${g.job}`, run!.name, (s) => s === 'success')).toBe('success');
    expect(await (await call('GET', `${J}/${g.job}/runs/${run!.name}/output`, { token: g.owner.token })).text()).toBe(
      g.email,
    );
  });
});

describe('no reply to an unauthenticated sender (backscatter), whatever the options', () => {
  it("checks off: a non-member's unauthenticated mail records a rejected run and gets no reply", async () => {
    const g = await setup();
    const forged = `${unique('victim')}@example.org`;
    expect(await handleInbound(env, rawMail(forged, g.address, 'Spam', []), forged, g.address)).toBe('rejected');
    const [run] = await runsOf(g.owner, g.job);
    expect((await statsOf(g.owner, g.job, run!.name)).status).toBe('rejected');
    expect(await repliesTo(forged)).toEqual([]);
  });

  it("checks off: a member's unauthenticated mail runs the job, and its output is mailed to nobody", async () => {
    const g = await setup();
    expect(await handleInbound(env, rawMail(g.email, g.address, 'Quiet', []), g.email, g.address)).toBe('accepted');
    const [run] = await runsOf(g.owner, g.job);
    expect(await waitStatus(g.owner.token, `${J}/${g.job}`, run!.name, (s) => s === 'success')).toBe('success');
    expect(await repliesTo(g.email)).toEqual([]);
  });

  it('failing DKIM (not aligned) with the checks off: no reply either', async () => {
    const g = await setup();
    const headers = [`${CF} dkim=pass header.d=attacker.example; spf=softfail smtp.mailfrom=${g.email}`];
    expect(await handleInbound(env, rawMail(g.email, g.address, 'Quiet', headers), g.email, g.address)).toBe(
      'accepted',
    );
    const [run] = await runsOf(g.owner, g.job);
    expect(await waitStatus(g.owner.token, `${J}/${g.job}`, run!.name, (s) => s === 'success')).toBe('success');
    expect(await repliesTo(g.email)).toEqual([]);
  });
});

describe("a job shared into the group runs on its mail only while the job's owner holds an active role in the group", () => {
  it('Bob shares a job into the group, leaves: it no longer runs on the group mail; Bob rejoins: it runs again', async () => {
    const g = await mailGroup();
    const path = `/v1/admin/orgs/${g.org}/groups/sales`;
    const ref = `+${g.org}~sales`;
    const bob = await person('bob');
    await join(path, ref, g.owner, bob, 'members');
    await makeJob(
      bob,
      'spy',
      `export default { async run(input) { return JSON.parse(await input[0].text()).subject; } }`,
    );
    expect((await call('PUT', `${J}/spy/shared/${ref}`, { token: bob.token })).status).toBe(201);
    expect(await handleInbound(env, rawMail(g.email, g.address, 'One'), g.email, g.address)).toBe('accepted');
    expect(await runsOf(bob, 'spy')).toHaveLength(1);

    expect((await call('DELETE', `${path}/roles/members/${bob.username}`, { token: bob.token })).status).toBe(204);
    expect(await handleInbound(env, rawMail(g.email, g.address, 'Two'), g.email, g.address)).toBe('accepted');
    expect(await runsOf(bob, 'spy')).toHaveLength(1);
    // the member is told nothing is shared with the group any more
    expect((await repliesTo(g.email)).map((r) => r.text)).toContain(`No job is shared with ${ref}: nothing ran.`);

    expect((await call('PUT', `${path}/roles/members/${bob.username}`, { token: g.owner.token })).status).toBe(201);
    expect((await accept(bob, ref)).status).toBe(200);
    expect(await handleInbound(env, rawMail(g.email, g.address, 'Three'), g.email, g.address)).toBe('accepted');
    const runs = await runsOf(bob, 'spy');
    expect(runs).toHaveLength(2);
  });
});
