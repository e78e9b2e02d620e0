// Deleting user groups and organisations: founders only, and what goes with them.
import { describe, expect, it } from 'vitest';
import { json, orgWorld, PNG, T, userGroupWorld } from './fixtures';
import { call, unique } from '../helpers';

describe('deleting groups and organisations (founders only)', T, () => {
  it('a user group: only a founder deletes it; roles, shares, threads and pictures go with it', async () => {
    const g = await userGroupWorld();
    const doc = `/v1/vis/docs/${unique('d')}`;
    expect((await call('PUT', doc, { token: g.founder.token })).status).toBe(201);
    expect((await call('PUT', `${doc}/shared/${g.ref}`, { token: g.founder.token })).status).toBe(201);
    const shared = `/v1/users/${g.founder.username}/vis/docs/${doc.split('/').pop()}`;
    expect((await call('GET', shared, { token: g.member.token })).status).toBe(200);
    expect(
      (await call('PUT', `${g.path}/profile/picture/image`, { token: g.founder.token, body: PNG, type: 'image/png' }))
        .status,
    ).toBe(201);
    expect((await call('PUT', `${g.path}/threads/plans`, { token: g.member.token })).status).toBe(201);
    // the pending invitee sees the group it is invited to, so it is refused, not kept in the dark
    for (const who of [g.admin, g.superuser, g.member, g.pending])
      expect((await call('DELETE', g.path, { token: who.token })).status).toBe(403);
    expect((await call('DELETE', g.path, { token: g.stranger.token })).status).toBe(404);
    expect((await call('DELETE', g.path, { token: null })).status).toBe(401);
    const { env } = await import('cloudflare:workers');
    const { id } = (await env.DB.prepare('select id from groups where ref = ?').bind(g.ref).first<{ id: number }>())!;
    expect(await env.BLOBS.head(`g/${id}/picture/image`)).not.toBeNull();
    expect((await call('DELETE', g.path, { token: g.founder.token })).status).toBe(204);
    expect(await env.BLOBS.head(`g/${id}/picture/image`)).toBeNull();
    expect(await env.DB.prepare('select count(*) as n from threads where group_id = ?').bind(id).first('n')).toBe(0);
    expect((await call('GET', g.path, { token: g.founder.token })).status).toBe(404);
    expect((await call('GET', shared, { token: g.member.token })).status).toBe(404); // the share went with the group
    expect(
      (await json<{ name: string }[]>(await call('GET', `${doc}/shared`, { token: g.founder.token }))).map(
        (s) => s.name,
      ),
    ).not.toContain(g.ref);
    expect(
      await json<Record<string, unknown>>(await call('GET', '/v1/admin/invites', { token: g.pending.token })),
    ).not.toHaveProperty(g.ref);
    const slug = g.ref.split('~')[1]!;
    expect((await call('PUT', `/v1/admin/groups/${slug}`, { token: g.founder.token })).status).toBe(201); // the slug is free again
  });
  it('an organisation takes its groups with it; its admins may not delete it', async () => {
    const o = await orgWorld();
    expect((await call('DELETE', `/v1/admin/orgs/${o.org}`, { token: o.orgAdmin.token })).status).toBe(403);
    // oversight is read-only: an org admin cannot delete a group of the org either
    expect((await call('DELETE', o.path, { token: o.orgAdmin.token })).status).toBe(403);
    expect((await call('DELETE', `/v1/admin/orgs/${o.org}`, { token: o.account.token })).status).toBe(204);
    expect((await call('GET', `/v1/orgs/${o.org}`, { token: o.account.token })).status).toBe(404);
    expect((await call('GET', o.path, { token: o.member.token })).status).toBe(404);
    expect((await call('PUT', `/v1/admin/orgs/${unique('org')}`, { token: o.account.token })).status).toBe(201); // one per account: free again
  });
});
