import { describe, expect, it } from 'vitest';
import { http, makeUser, opsToken, unique } from './harness';

describe('groups over HTTP: org account, org, group, invite, accept, rosters', () => {
  it('walks the whole flow and hides the private group from a stranger', async () => {
    const account = await makeUser({ account: 'organisation' }, 'eo');
    const invitee = await makeUser({}, 'ei');
    const stranger = await makeUser({}, 'es');
    const orgAdmin = await makeUser({}, 'ea');
    const email = `${invitee.username}@example.com`;
    await http('PUT', `/v1/ops/users/${invitee.username}`, {
      token: opsToken(),
      json: { email, email_verified: true },
    });
    const org = unique('eorg');
    const group = unique('eg');

    expect((await http('PUT', `/v1/admin/orgs/${org}`, { token: account.token })).status).toBe(201);
    expect((await http('PUT', `/v1/admin/orgs/${org}`, { token: stranger.token })).status).toBe(403);
    expect((await http('PUT', `/v1/admin/orgs/${org}/groups/${group}`, { token: account.token })).status).toBe(201);
    const base = `/v1/admin/orgs/${org}/groups/${group}`;

    // an org admin (invited into the org and accepted)
    expect(
      (await http('PUT', `/v1/admin/orgs/${org}/roles/admins/${orgAdmin.username}`, { token: account.token })).status,
    ).toBe(201);
    expect(
      (await http('POST', `/v1/admin/invites/+${org}/accept`, { token: orgAdmin.token, text: 'yes' })).status,
    ).toBe(200);

    // invite into the group: pending, I- prefix, e-mail of kind invite
    const inv = await http('PUT', `${base}/roles/members/${invitee.username}`, { token: account.token });
    expect(inv.status).toBe(201);
    const listed = (await (await http('GET', `${base}/roles/members`, { token: account.token })).json()) as {
      name: string;
    }[];
    expect(listed.map((i) => i.name)).toEqual([`I-${invitee.username}`]);
    const outbox = (await (await http('GET', '/v1/ops/outbox', { token: opsToken() })).json()) as {
      kind: string;
      to: string[];
    }[];
    expect(outbox.filter((m) => m.to.includes(email)).map((m) => m.kind)).toEqual(['invite']);
    const invites = (await (await http('GET', '/v1//admin/invites/', { token: invitee.token })).json()) as {
      name: string;
    }[];
    expect(invites.map((i) => i.name)).toEqual([`+${org}~${group}`]);

    // accept (+ and ~ arrive unencoded)
    const acc = await http('POST', `/v1/admin/invites/+${org}~${group}/accept`, { token: invitee.token, text: 'yes' });
    expect(acc.status).toBe(200);
    expect(await (await http('GET', `${base}/role`, { token: invitee.token })).text()).toBe('members');

    // the org admin reads the full roster, read-only
    const info = (await (await http('GET', `/v1/orgs/${org}/groups/${group}`, { token: orgAdmin.token })).json()) as {
      role: string;
      members: { username: string; role: string; state: string }[];
    };
    expect(info.role).toBe('');
    expect(info.members).toEqual(
      expect.arrayContaining([
        { username: account.username, role: 'founders', state: 'active' },
        { username: invitee.username, role: 'members', state: 'active' },
      ]),
    );
    expect((await http('DELETE', `${base}/roles/members/${invitee.username}`, { token: orgAdmin.token })).status).toBe(
      403,
    );

    // comment threads: the member opens one and comments; the org admin reads, read-only
    expect((await http('PUT', `${base}/threads/welcome`, { token: invitee.token })).status).toBe(201);
    const said = await http('POST', `${base}/threads/welcome`, { token: invitee.token, text: 'hello, team' });
    expect(said.status).toBe(201);
    const thread = (await (await http('GET', `${base}/threads/welcome`, { token: orgAdmin.token })).json()) as {
      author: string;
      text: string;
    }[];
    expect(thread.map((c) => [c.author, c.text])).toEqual([[invitee.username, 'hello, team']]);
    expect((await http('POST', `${base}/threads/welcome`, { token: orgAdmin.token, text: 'from above' })).status).toBe(
      403,
    );
    expect((await http('GET', `${base}/threads`, { token: stranger.token })).status).toBe(404);

    // a stranger learns nothing
    const hidden = await http('GET', `/v1/orgs/${org}/groups/${group}`, { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toMatchObject({ status: 404 });
    expect((await http('GET', `${base}/roles/members`, { token: stranger.token })).status).toBe(404);
    expect((await http('GET', `/v1/orgs/${org}/groups/${group}`)).status).toBe(404);
  });
});
