// The inbound e-mail address of an org group: when it exists and what it resolves to.
import { describe, expect, it } from 'vitest';
import { json, sharedOrg, T } from './fixtures';
import { call, unique, type TestUser } from '../helpers';

describe('inbound address of an org group', T, () => {
  it('is <group>@<org>.<ORG_MAIL_DOMAIN> only when the org subdomain and the group inbound mail are on', async () => {
    const w = await sharedOrg();
    const email = (u: TestUser) => call('GET', `/v1/orgs/${w.org}/groups/${w.group}/email`, { token: u.token });
    expect(await (await email(w.member)).text()).toBe('');
    expect(
      (
        await call('POST', `/v1/admin/orgs/${w.org}/profile/options/enable_subdomain`, {
          token: w.account.token,
          text: 'yes',
        })
      ).status,
    ).toBe(204);
    expect(await (await email(w.member)).text()).toBe('');
    expect(
      (await call('POST', `${w.path}/profile/options/allow_inbound_mail`, { token: w.admin.token, text: 'yes' }))
        .status,
    ).toBe(204);
    const address = `${w.group}@${w.org}.mail.localhost`;
    for (const u of [w.member, w.superuser, w.admin, w.account, w.orgAdmin])
      expect(await (await email(u)).text()).toBe(address);
    expect(
      (await json(await call('GET', `/v1/orgs/${w.org}/groups/${w.group}`, { token: w.member.token }))).email,
    ).toBe(address);
    expect((await email(w.pending)).status).toBe(403);
    expect((await email(w.stranger)).status).toBe(404);
    expect(
      (await call('POST', `${w.path}/profile/options/allow_inbound_mail`, { token: w.member.token, text: 'yes' }))
        .status,
    ).toBe(403);
  });

  it('groupForInboundAddress resolves only mail-enabled org groups', async () => {
    const { env } = await import('cloudflare:workers');
    const { dbFor } = await import('../../../src/core/context');
    const { groupForInboundAddress } = await import('../../../src/groups/inbound');
    const w = await sharedOrg();
    const db = dbFor(env as Env);
    const group = unique('g');
    await call('PUT', `/v1/admin/orgs/${w.org}/groups/${group}`, { token: w.account.token });
    const addr = `${group}@${w.org}.${(env as Env).ORG_MAIL_DOMAIN}`;
    expect(await groupForInboundAddress(env as Env, db, addr)).toBeNull();
    await call('POST', `/v1/admin/orgs/${w.org}/profile/options/enable_subdomain`, {
      token: w.account.token,
      text: 'yes',
    });
    expect(await groupForInboundAddress(env as Env, db, addr)).toBeNull();
    await call('POST', `/v1/admin/orgs/${w.org}/groups/${group}/profile/options/allow_inbound_mail`, {
      token: w.account.token,
      text: 'yes',
    });
    const hit = await groupForInboundAddress(env as Env, db, addr.toUpperCase());
    expect(hit?.group.ref).toBe(`+${w.org}~${group}`);
    expect(hit?.org.ref).toBe(`+${w.org}`);
    expect(await groupForInboundAddress(env as Env, db, `nosuch@${w.org}.${(env as Env).ORG_MAIL_DOMAIN}`)).toBeNull();
  });
});
