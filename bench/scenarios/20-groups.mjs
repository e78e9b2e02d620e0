// Groups: the reads every share check and browse page does, and the invite/accept cycle.
// Group reads have no target figure of their own. Each is 2-3 D1 round trips (group with its
// organisation, the caller's view in one batch, then the handler's read); compare them with
// a document read (docs: GET content, 2 round trips), not with the token check's bar.
export default async function groups(b) {
  const account = await b.makeUser({ account: 'organisation', plan: 'premium' });
  const admin = await b.makeUser();
  const org = `borg${Date.now().toString(36)}`;
  const group = 'team';
  await b.http('PUT', `/v1/admin/orgs/${org}`, { token: account.token });
  await b.http('PUT', `/v1/admin/orgs/${org}/groups/${group}`, { token: account.token });
  await b.http('PUT', `/v1/admin/orgs/${org}/roles/admins/${admin.username}`, { token: account.token });
  await b.http('POST', `/v1/admin/invites/+${org}/accept`, { token: admin.token, text: 'yes' });
  const members = [];
  for (let i = 0; i < 20; i++) {
    const m = await b.makeUser();
    await b.http('PUT', `/v1/admin/orgs/${org}/groups/${group}/roles/members/${m.username}`, { token: account.token });
    await b.http('POST', `/v1/admin/invites/+${org}~${group}/accept`, { token: m.token, text: 'yes' });
    members.push(m);
  }
  const auth = (u) => ({ headers: { Authorization: `Bearer ${u.token}` } });
  const target = 'no target (compare docs: GET content)';
  await b.measure('groups: GET group info (org admin oversight, 21 members)', `/v1/orgs/${org}/groups/${group}`, {
    ...auth(admin),
    target,
  });
  await b.measure('groups: GET role listing (member)', `/v1/admin/orgs/${org}/groups/${group}/roles/members`, {
    ...auth(members[0]),
    target,
  });
  await b.measure('groups: GET /v1/admin/groups (member)', '/v1/admin/groups', { ...auth(members[1]), target });
  await b.measure('groups: GET /v1/orgs/:org/groups/:group (org founder)', `/v1/orgs/${org}/groups/${group}`, {
    ...auth(account),
    target,
  });

  const invitees = [];
  for (let i = 0; i < 20; i++)
    invitees.push(await b.makeUser({ email: `bi${i}${Date.now().toString(36)}@example.com` }));
  let k = 0;
  await b.time(
    'groups: invite (PUT role, e-mail) + accept (POST yes)',
    async () => {
      const u = invitees[k++];
      const put = await b.http('PUT', `/v1/admin/orgs/${org}/groups/${group}/roles/members/${u.username}`, {
        token: account.token,
      });
      const acc = await b.http('POST', `/v1/admin/invites/+${org}~${group}/accept`, { token: u.token, text: 'yes' });
      if (put.status !== 201 || acc.status !== 200) throw new Error(`invite cycle: ${put.status} ${acc.status}`);
    },
    20,
    'no target',
  );
}
