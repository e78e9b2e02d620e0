/** Inbound-mail fixtures for the jobs suites: a mail-enabled org group with one verified member. */
import { env } from 'cloudflare:workers';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';

export { authResults, rawMail } from './raw-mail';

export interface Outbox {
  kind: string;
  to: string[];
  subject: string;
  text: string;
  attachments: { filename: string; content_type: string; size: number }[];
}

export async function mailGroup(): Promise<{
  org: string;
  owner: TestUser;
  member: TestUser;
  address: string;
  email: string;
}> {
  const owner = await makeUser({ account: 'organisation' });
  const org = unique('o').slice(0, 20);
  const ok = async (r: Promise<Response>) => {
    const res = await r;
    if (res.status >= 300) throw new Error(`${res.status} ${await res.text()}`);
  };
  await ok(call('PUT', `/v1/admin/orgs/${org}`, { token: owner.token }));
  await ok(call('PUT', `/v1/admin/orgs/${org}/groups/sales`, { token: owner.token }));
  await ok(call('POST', `/v1/admin/orgs/${org}/profile/options/enable_subdomain`, { token: owner.token, text: 'yes' }));
  await ok(
    call('POST', `/v1/admin/orgs/${org}/groups/sales/profile/options/allow_inbound_mail`, {
      token: owner.token,
      text: 'yes',
    }),
  );
  const email = `${unique('m')}@example.com`;
  const member = await makeUser({ email, email_verified: true });
  await ok(call('PUT', `/v1/admin/orgs/${org}/groups/sales/roles/members/${member.username}`, { token: owner.token }));
  await ok(call('POST', `/v1/admin/invites/+${org}~sales/accept`, { token: member.token, text: 'yes' }));
  return { org, owner, member, address: `sales@${org}.${env.ORG_MAIL_DOMAIN}`, email };
}

export async function repliesTo(addr: string): Promise<Outbox[]> {
  const all = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as Outbox[];
  return all.filter((m) => m.kind === 'reply' && m.to.includes(addr));
}
