import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { handleInboundEmail } from '../../../src/jobs/inbound';
import { call, makeUser, OPS, type TestUser } from '../helpers';
import { makeJob, waitStatus } from './fixtures';
import { mailGroup as sharedMailGroup } from './mail-fixtures';

const J = '/v1/code/jobs';

/** The shared fixture, plus the group's admin path where its mail options live. */
async function mailGroup() {
  const g = await sharedMailGroup();
  return { ...g, path: `/v1/admin/orgs/${g.org}/groups/sales` };
}

function message(
  from: string,
  to: string,
  headers: string[],
): { msg: ForwardableEmailMessage; rejected: () => string } {
  const bytes = new TextEncoder().encode(
    [...headers, `From: ${from}`, `To: ${to}`, 'Subject: Numbers', 'Content-Type: text/plain', '', 'go', ''].join(
      '\r\n',
    ),
  );
  let rejected = '';
  const msg = {
    from,
    to,
    raw: new Response(bytes).body!,
    rawSize: bytes.byteLength,
    headers: new Headers(),
    setReject: (reason: string) => void (rejected = reason),
  } as unknown as ForwardableEmailMessage;
  return { msg, rejected: () => rejected };
}

const runsOf = async (u: TestUser, job: string) =>
  (await (await call('GET', `${J}/${job}/runs`, { token: u.token })).json()) as { name: string }[];

describe('org groups: mail_verify_dkim and mail_verify_spf (client contract)', () => {
  it('default no; yes or no only; org groups only; hidden from outsiders', async () => {
    const g = await mailGroup();
    for (const o of ['mail_verify_dkim', 'mail_verify_spf']) {
      expect(await (await call('GET', `${g.path}/profile/options/${o}`, { token: g.member.token })).text()).toBe('no');
      expect(
        (await call('POST', `${g.path}/profile/options/${o}`, { token: g.owner.token, text: 'maybe' })).status,
      ).toBe(400);
      expect(
        (await call('POST', `${g.path}/profile/options/${o}`, { token: g.member.token, text: 'yes' })).status,
      ).toBe(403);
      expect((await call('POST', `${g.path}/profile/options/${o}`, { token: g.owner.token, text: 'yes' })).status).toBe(
        204,
      );
      expect(await (await call('GET', `${g.path}/profile/options/${o}`, { token: g.member.token })).text()).toBe('yes');
      expect((await call('GET', `/v1/admin/orgs/${g.org}/profile/options/${o}`, { token: g.owner.token })).status).toBe(
        404,
      );
      const stranger = await makeUser();
      expect((await call('GET', `${g.path}/profile/options/${o}`, { token: stranger.token })).status).toBe(404);
    }
    const listed = (
      (await (await call('GET', `${g.path}/profile/options`, { token: g.member.token })).json()) as { name: string }[]
    ).map((i) => i.name);
    expect(listed).toEqual(expect.arrayContaining(['options/mail_verify_dkim', 'options/mail_verify_spf']));
  });

  it("with mail_verify_dkim yes, a member's mail without a passing DKIM result records a rejected run with the reason, and no reply", async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'dkimjob', `export default { async run() { return 'ran'; } }`);
    expect((await call('PUT', `${J}/dkimjob/shared/+${g.org}~sales`, { token: g.owner.token })).status).toBe(201);
    expect(
      (await call('POST', `${g.path}/profile/options/mail_verify_dkim`, { token: g.owner.token, text: 'yes' })).status,
    ).toBe(204);
    await call('DELETE', '/v1/ops/outbox', { token: OPS });
    const bad = message(g.email, g.address, [
      'Authentication-Results: mx.cloudflare.net; dkim=fail header.d=example.com; spf=pass smtp.mailfrom=example.com',
    ]);
    await handleInboundEmail(bad.msg, env, {} as ExecutionContext);
    const runs = await runsOf(g.owner, 'dkimjob');
    expect(runs).toHaveLength(1);
    expect(
      await (await call('GET', `${J}/dkimjob/runs/${runs[0]!.name}/status`, { token: g.owner.token })).text(),
    ).toBe('rejected');
    const log = await (await call('GET', `${J}/dkimjob/runs/${runs[0]!.name}/log`, { token: g.owner.token })).text();
    expect(log).toMatch(/DKIM did not pass \(fail\).*mail_verify_dkim/);
    const outbox = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as { to: string[] }[];
    expect(outbox.filter((m) => m.to.includes(g.email))).toEqual([]);
    // SPF is not checked unless asked: a passing DKIM runs the job
    const good = message(g.email, g.address, [
      'Authentication-Results: mx.cloudflare.net; dkim=pass header.d=example.com; spf=fail smtp.mailfrom=example.com',
    ]);
    await handleInboundEmail(good.msg, env, {} as ExecutionContext);
    const after = await runsOf(g.owner, 'dkimjob');
    expect(after).toHaveLength(2);
    const fresh = after.find((r) => r.name !== runs[0]!.name)!;
    expect(await waitStatus(g.owner.token, `${J}/dkimjob`, fresh.name, (s) => s === 'success')).toBe('success');
  });

  it("with mail_verify_spf yes, SPF must pass in the receiver's Authentication-Results (Received-SPF is not read)", async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'spfjob', `export default { async run() { return 'ran'; } }`);
    expect((await call('PUT', `${J}/spfjob/shared/+${g.org}~sales`, { token: g.owner.token })).status).toBe(201);
    expect(
      (await call('POST', `${g.path}/profile/options/mail_verify_spf`, { token: g.owner.token, text: 'yes' })).status,
    ).toBe(204);
    const softfail = `Authentication-Results: mx.cloudflare.net; dkim=none; spf=softfail (mx.cloudflare.net: domain does not designate 5.6.7.8) smtp.mailfrom=${g.email}`;
    const received = 'Received-SPF: pass (mx.cloudflare.net: domain designates 1.2.3.4 as permitted sender)';
    await handleInboundEmail(message(g.email, g.address, [softfail, received]).msg, env, {} as ExecutionContext);
    const runs = await runsOf(g.owner, 'spfjob');
    expect(runs).toHaveLength(1);
    expect(await (await call('GET', `${J}/spfjob/runs/${runs[0]!.name}/status`, { token: g.owner.token })).text()).toBe(
      'rejected',
    );
    expect(await (await call('GET', `${J}/spfjob/runs/${runs[0]!.name}/log`, { token: g.owner.token })).text()).toMatch(
      /SPF did not pass \(softfail\)/,
    );
    await handleInboundEmail(
      message(g.email, g.address, [
        `Authentication-Results: mx.cloudflare.net; spf=pass (mx.cloudflare.net: domain designates 1.2.3.4) smtp.mailfrom=${g.email}`,
      ]).msg,
      env,
      {} as ExecutionContext,
    );
    const after = await runsOf(g.owner, 'spfjob');
    expect(after).toHaveLength(2);
    const fresh = after.find((r) => r.name !== runs[0]!.name)!;
    expect(await waitStatus(g.owner.token, `${J}/spfjob`, fresh.name, (s) => s === 'success')).toBe('success');
  });

  it('with both options off, mail without any authentication headers runs, and its unauthenticated sender gets no reply', async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'plainjob', `export default { async run() { return 'ran'; } }`);
    expect((await call('PUT', `${J}/plainjob/shared/+${g.org}~sales`, { token: g.owner.token })).status).toBe(201);
    await handleInboundEmail(message(g.email, g.address, []).msg, env, {} as ExecutionContext);
    const runs = await runsOf(g.owner, 'plainjob');
    expect(runs).toHaveLength(1);
    expect(await waitStatus(g.owner.token, `${J}/plainjob`, runs[0]!.name, (s) => s === 'success')).toBe('success');
    const outbox = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as {
      kind: string;
      to: string[];
    }[];
    expect(outbox.filter((m) => m.kind === 'reply' && m.to.includes(g.email))).toEqual([]);
  });
});
