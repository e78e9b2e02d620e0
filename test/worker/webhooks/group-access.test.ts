// A group's events reach an endpoint only while its owner is an active member of the group
// when the event is recorded; an organisation's endpoints (owned by the organisation's
// account) keep receiving its groups' events after the admin who created them leaves.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { until } from '../../client';
import { call, unique, type TestUser } from '../helpers';
import { join, orgWorld, person } from '../groups/fixtures';

const HOOK = 'https://steps.jobs.test/echo';
const json = async <T = any>(res: Response): Promise<T> => (await res.json()) as T;

interface Row {
  id: number;
  type: string;
}

async function endpoint(u: TestUser, path: string): Promise<void> {
  const res = await call('PUT', path, { token: u.token, json: { url: HOOK, events: ['*'] } });
  expect(res.status, await res.clone().text()).toBe(201);
}

const log = async (u: TestUser, path: string): Promise<Row[]> =>
  json(await call('GET', `${path}/deliveries`, { token: u.token }));

const usernames = async (u: TestUser, path: string, rows: Row[]): Promise<string[]> =>
  Promise.all(
    rows.map(
      async (d) =>
        JSON.parse((await json(await call('GET', `${path}/deliveries/${d.id}`, { token: u.token }))).request_body).data
          .username,
    ),
  );

describe('group events after access ends', () => {
  it('the endpoint of a member removed from a group gets no member.* event recorded after the removal', async () => {
    const [owner, cofounder, before, after] = await Promise.all([
      person('wf'),
      person('wc'),
      person('wb'),
      person('wa'),
    ]);
    const slug = unique('g');
    expect((await call('PUT', `/v1/admin/groups/${slug}`, { token: owner.token })).status).toBe(201);
    const ref = `@${owner.username}~${slug}`;
    const path = `/v1/admin/groups/${ref}`;
    await join(path, ref, owner, cofounder, 'founders');
    const hook = '/v1/admin/webhooks/group';
    await endpoint(owner, hook);
    // Positive control: while the owner is in the group, its endpoint gets the group's events.
    await join(path, ref, owner, before, 'members');
    await until('the events of the first join', async () => (await log(owner, hook)).length === 2);
    // Nobody may remove a user group's owner any more (groups/members.ts), so the owner's membership is ended in D1
    // directly: the record's own check must still hold. Everything from here on is after it ended.
    const removed = await call('DELETE', `${path}/roles/founders/${owner.username}`, { token: cofounder.token });
    expect(removed.status).toBe(403);
    await env.DB.prepare(
      "UPDATE members SET state = 'declined' WHERE user_id = (SELECT id FROM users WHERE username = ?) AND group_id = (SELECT id FROM groups WHERE ref = ?)",
    )
      .bind(owner.username, ref)
      .run();
    await join(path, ref, cofounder, after, 'members');
    const gone = await call('DELETE', `${path}/roles/members/${before.username}`, { token: cofounder.token });
    expect(gone.status).toBe(204);
    const rows = (await log(owner, hook)).reverse();
    expect(rows.map((d) => d.type)).toEqual(['member.invited', 'member.joined']);
    expect(await usernames(owner, hook, rows)).toEqual([before.username, before.username]);
  });

  it('an organisation endpoint keeps getting its groups’ events after the admin who created it leaves', async () => {
    const w = await orgWorld();
    const base = `/v1/admin/orgs/${w.org}/webhooks`;
    const hook = `${base}/${unique('h')}`;
    await endpoint(w.orgAdmin, hook);
    const created = await json(await call('GET', hook, { token: w.account.token }));
    expect(created.created_by).toBe(w.orgAdmin.username);
    // The admin who created it leaves the organisation.
    const left = await call('DELETE', `/v1/admin/orgs/${w.org}/roles/admins/${w.orgAdmin.username}`, {
      token: w.orgAdmin.token,
    });
    expect(left.status).toBe(204);
    const newcomer = await person('wn');
    await join(w.path, w.ref, w.account, newcomer, 'members');
    const rows = await until('the organisation’s events after the admin left', async () => {
      const r = (await log(w.account, hook)).reverse();
      return r.length >= 3 && r;
    });
    // member.left of the admin (about the organisation itself), then the newcomer's invitation and join.
    expect(rows.map((d) => d.type)).toEqual(['member.left', 'member.invited', 'member.joined']);
    expect(await usernames(w.account, hook, rows)).toEqual([w.orgAdmin.username, newcomer.username, newcomer.username]);
    // The remaining founders and admins manage it; it still names who created it.
    expect(await json(await call('GET', hook, { token: w.account.token }))).toMatchObject({
      created_by: w.orgAdmin.username,
      enabled: true,
    });
  });
});
