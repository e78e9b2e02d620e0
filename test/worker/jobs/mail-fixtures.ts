/** Inbound-mail fixtures for the jobs suites: a mail-enabled org group with one verified member. */
import { env } from 'cloudflare:workers';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';

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

/**
 * What the platform's receiver (Cloudflare Email Routing, authserv-id mx.cloudflare.net)
 * prepends to a message whose DKIM signature and SPF check passed for the From domain.
 */
export const authResults = (from: string) => {
  const domain = from.slice(from.lastIndexOf('@') + 1);
  return `Authentication-Results: mx.cloudflare.net; dkim=pass header.d=${domain} header.s=s1; spf=pass smtp.mailfrom=${from}`;
};

/**
 * A small multipart message with a text part and one CSV attachment, authenticated (the
 * receiver's Authentication-Results for `from` on top) unless `headers` says otherwise.
 */
export const rawMail = (from: string, to: string, subject: string, headers: string[] = [authResults(from)]) =>
  new TextEncoder().encode(
    [
      ...headers,
      `From: ${from}`,
      `To: ${to}`,
      `Subject: ${subject}`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'please process',
      '--b',
      'Content-Type: text/csv',
      'Content-Disposition: attachment; filename="rows.csv"',
      '',
      'a,b',
      '--b--',
      '',
    ].join('\r\n'),
  ).buffer as ArrayBuffer;

export async function repliesTo(addr: string): Promise<Outbox[]> {
  const all = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as Outbox[];
  return all.filter((m) => m.kind === 'reply' && m.to.includes(addr));
}
