import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { handleInboundEmail } from '../../../src/jobs/inbound';
import { authRefusal, mailAuth } from '../../../src/jobs/mail-auth';
import { call, makeUser, OPS, type TestUser } from '../helpers';
import { makeJob, waitStatus } from './fixtures';
import { mailGroup as sharedMailGroup } from './mail-fixtures';

const J = '/v1/code/jobs';

describe('reading DKIM and SPF results (pure)', () => {
  const h = (...pairs: [string, string][]) => pairs.map(([key, value]) => ({ key, value }));
  it('reads dkim= and spf= of the first Authentication-Results header', () => {
    const a = mailAuth(h(['authentication-results', 'mx.cloudflare.net; dkim=pass header.d=example.com header.s=s1; dmarc=pass; spf=pass smtp.mailfrom=a@example.com']));
    expect(a).toMatchObject({ dkim: true, spf: true });
    const b = mailAuth(
      h(
        ['authentication-results', 'mx.cloudflare.net; dkim=fail (bad signature) header.d=x.com; spf=softfail smtp.mailfrom=x.com'],
        ['authentication-results', 'forged; dkim=pass; spf=pass'],
      ),
    );
    expect(b).toMatchObject({ dkim: false, spf: false, dkimResult: 'fail', spfResult: 'softfail' });
  });
  it('any passing signature passes DKIM; comments and the authserv-id are not results', () => {
    expect(mailAuth(h(['authentication-results', 'mx.cloudflare.net; dkim=fail header.d=a.com; dkim=pass header.d=b.com'])).dkim).toBe(true);
    expect(mailAuth(h(['authentication-results', 'mx.cloudflare.net; dkim=none (dkim=pass would be nice); spf=none'])).dkim).toBe(false);
    expect(mailAuth(h(['authentication-results', 'dkim=pass.example; spf=fail'])).dkim).toBe(false);
  });
  it('falls back to Received-SPF for SPF; missing headers do not pass', () => {
    expect(mailAuth(h(['received-spf', 'pass (mx.cloudflare.net: domain of a@b.c designates 1.2.3.4 as permitted sender) client-ip=1.2.3.4;'])).spf).toBe(true);
    expect(mailAuth(h(['received-spf', 'fail (no)'])).spfResult).toBe('fail');
    const none = mailAuth([]);
    expect(none).toMatchObject({ dkim: false, spf: false });
    expect(authRefusal(none, { dkim: true, spf: true })).toMatch(/DKIM did not pass.*SPF did not pass.*mail_verify_dkim, mail_verify_spf/);
    expect(authRefusal(none, { dkim: false, spf: false })).toBeNull();
  });
});

/** The shared fixture, plus the group's admin path where its mail options live. */
async function mailGroup() {
  const g = await sharedMailGroup();
  return { ...g, path: `/v1/admin/orgs/${g.org}/groups/sales` };
}

function message(from: string, to: string, headers: string[]): { msg: ForwardableEmailMessage; rejected: () => string } {
  const bytes = new TextEncoder().encode([...headers, `From: ${from}`, `To: ${to}`, 'Subject: Numbers', 'Content-Type: text/plain', '', 'go', ''].join('\r\n'));
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

const runsOf = async (u: TestUser, job: string) => (await (await call('GET', `${J}/${job}/runs`, { token: u.token })).json()) as { name: string }[];

describe('org groups: mail_verify_dkim and mail_verify_spf (client contract)', () => {
  it('default no; yes or no only; org groups only; hidden from outsiders', async () => {
    const g = await mailGroup();
    for (const o of ['mail_verify_dkim', 'mail_verify_spf']) {
      expect(await (await call('GET', `${g.path}/profile/options/${o}`, { token: g.member.token })).text()).toBe('no');
      expect((await call('POST', `${g.path}/profile/options/${o}`, { token: g.owner.token, text: 'maybe' })).status).toBe(400);
      expect((await call('POST', `${g.path}/profile/options/${o}`, { token: g.member.token, text: 'yes' })).status).toBe(403);
      expect((await call('POST', `${g.path}/profile/options/${o}`, { token: g.owner.token, text: 'yes' })).status).toBe(204);
      expect(await (await call('GET', `${g.path}/profile/options/${o}`, { token: g.member.token })).text()).toBe('yes');
      expect((await call('GET', `/v1/admin/orgs/${g.org}/profile/options/${o}`, { token: g.owner.token })).status).toBe(404);
      const stranger = await makeUser();
      expect((await call('GET', `${g.path}/profile/options/${o}`, { token: stranger.token })).status).toBe(404);
    }
    const listed = ((await (await call('GET', `${g.path}/profile/options`, { token: g.member.token })).json()) as { name: string }[]).map((i) => i.name);
    expect(listed).toEqual(expect.arrayContaining(['options/mail_verify_dkim', 'options/mail_verify_spf']));
  });

  it("with mail_verify_dkim yes, a member's mail without a passing DKIM result records a rejected run with the reason, and no reply", async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'dkimjob', `export default { async run() { return 'ran'; } }`);
    expect((await call('PUT', `${J}/dkimjob/shared/+${g.org}~sales`, { token: g.owner.token })).status).toBe(201);
    expect((await call('POST', `${g.path}/profile/options/mail_verify_dkim`, { token: g.owner.token, text: 'yes' })).status).toBe(204);
    await call('DELETE', '/v1/ops/outbox', { token: OPS });
    const bad = message(g.email, g.address, ['Authentication-Results: mx.cloudflare.net; dkim=fail header.d=example.com; spf=pass smtp.mailfrom=example.com']);
    await handleInboundEmail(bad.msg, env, {} as ExecutionContext);
    const runs = await runsOf(g.owner, 'dkimjob');
    expect(runs).toHaveLength(1);
    expect(await (await call('GET', `${J}/dkimjob/runs/${runs[0]!.name}/status`, { token: g.owner.token })).text()).toBe('rejected');
    const log = await (await call('GET', `${J}/dkimjob/runs/${runs[0]!.name}/log`, { token: g.owner.token })).text();
    expect(log).toMatch(/DKIM did not pass \(fail\).*mail_verify_dkim/);
    const outbox = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as { to: string[] }[];
    expect(outbox.filter((m) => m.to.includes(g.email))).toEqual([]);
    // SPF is not checked unless asked: a passing DKIM runs the job
    const good = message(g.email, g.address, ['Authentication-Results: mx.cloudflare.net; dkim=pass header.d=example.com; spf=fail smtp.mailfrom=example.com']);
    await handleInboundEmail(good.msg, env, {} as ExecutionContext);
    const after = await runsOf(g.owner, 'dkimjob');
    expect(after).toHaveLength(2);
    const fresh = after.find((r) => r.name !== runs[0]!.name)!;
    expect(await waitStatus(g.owner.token, `${J}/dkimjob`, fresh.name, (s) => s === 'success')).toBe('success');
  });

  it('with mail_verify_spf yes, SPF must pass (Authentication-Results spf=, else Received-SPF)', async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'spfjob', `export default { async run() { return 'ran'; } }`);
    expect((await call('PUT', `${J}/spfjob/shared/+${g.org}~sales`, { token: g.owner.token })).status).toBe(201);
    expect((await call('POST', `${g.path}/profile/options/mail_verify_spf`, { token: g.owner.token, text: 'yes' })).status).toBe(204);
    await handleInboundEmail(message(g.email, g.address, ['Received-SPF: softfail (mx.cloudflare.net: domain does not designate 5.6.7.8)']).msg, env, {} as ExecutionContext);
    const runs = await runsOf(g.owner, 'spfjob');
    expect(runs).toHaveLength(1);
    expect(await (await call('GET', `${J}/spfjob/runs/${runs[0]!.name}/status`, { token: g.owner.token })).text()).toBe('rejected');
    expect(await (await call('GET', `${J}/spfjob/runs/${runs[0]!.name}/log`, { token: g.owner.token })).text()).toMatch(/SPF did not pass \(softfail\)/);
    await handleInboundEmail(
      message(g.email, g.address, ['Received-SPF: pass (mx.cloudflare.net: domain designates 1.2.3.4 as permitted sender)']).msg,
      env,
      {} as ExecutionContext,
    );
    const after = await runsOf(g.owner, 'spfjob');
    expect(after).toHaveLength(2);
    const fresh = after.find((r) => r.name !== runs[0]!.name)!;
    expect(await waitStatus(g.owner.token, `${J}/spfjob`, fresh.name, (s) => s === 'success')).toBe('success');
  });

  it('with both options off, mail without any authentication headers runs as before', async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'plainjob', `export default { async run() { return 'ran'; } }`);
    expect((await call('PUT', `${J}/plainjob/shared/+${g.org}~sales`, { token: g.owner.token })).status).toBe(201);
    await handleInboundEmail(message(g.email, g.address, []).msg, env, {} as ExecutionContext);
    const runs = await runsOf(g.owner, 'plainjob');
    expect(runs).toHaveLength(1);
    expect(await waitStatus(g.owner.token, `${J}/plainjob`, runs[0]!.name, (s) => s === 'success')).toBe('success');
  });
});
