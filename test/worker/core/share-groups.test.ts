/**
 * Shares into groups, for every resource kind (documents, grids, e-mails, jobs):
 * - sharing into a group needs an active role in it (the organisation itself for `+org`);
 *   an unknown group and one the owner holds no active role in get the same answer;
 * - a share into a group grants only while the owner still holds an active role in it.
 */
import { describe, expect, it } from 'vitest';
import { call, unique, withoutRequestId, type TestUser } from '../helpers';
import { accept, join, json, once, orgWorld, person, userGroupWorld } from '../groups/fixtures';
import { gql } from '../gql/fixtures';

const KINDS = [
  ['docs', 'vis/docs', 'd'],
  ['grids', 'vis/grids', 'g'],
  ['mails', 'vis/mails', 'm'],
  ['jobs', 'code/jobs', 'j'],
] as const;

const ug = once(userGroupWorld);
const og = once(() => orgWorld());

async function make(u: TestUser, collection: string): Promise<string> {
  const name = unique('r');
  expect((await call('PUT', `/v1/${collection}/${name}`, { token: u.token })).status).toBe(201);
  return name;
}

const share = (u: TestUser, collection: string, name: string, entry: string) =>
  call('PUT', `/v1/${collection}/${name}/shared/${entry}`, { token: u.token });

/** The answer with the reference taken out: what a caller learns besides the name they wrote. */
async function shape(res: Response, ref: string): Promise<{ status: number; body: unknown }> {
  const text = withoutRequestId(await res.text());
  return { status: res.status, body: JSON.parse(text.split(ref).join('<ref>')) };
}

const REFUSED = {
  status: 404,
  body: {
    status: 404,
    message: 'no such group: <ref> (sharing into a group needs an active role in it)',
    code: 'not_found',
  },
};

describe('sharing into a group needs an active role in it; an unknown group answers the same', () => {
  for (const [field, collection] of KINDS) {
    it(`${field}: a user group: stranger, pending and declined invitees get the unknown group's 404; active members of every role share`, async () => {
      const w = await ug();
      const declined = await person('d');
      expect(
        (await call('PUT', `${w.path}/roles/members/${declined.username}`, { token: w.founder.token })).status,
      ).toBe(201);
      expect((await accept(declined, w.ref, 'no')).status).toBe(200);
      const unknown = `@${w.founder.username}~${unique('none').slice(0, 20)}`;
      for (const who of [w.stranger, w.pending, declined]) {
        const name = await make(who, collection);
        expect(await shape(await share(who, collection, name, unknown), unknown), `${who.username} unknown`).toEqual(
          REFUSED,
        );
        expect(await shape(await share(who, collection, name, w.ref), w.ref), `${who.username} ${w.ref}`).toEqual(
          REFUSED,
        );
        expect(await shape(await share(who, collection, name, `${w.ref}~rw`), w.ref)).toEqual(REFUSED);
        expect(await json(await call('GET', `/v1/${collection}/${name}/shared`, { token: who.token }))).toEqual([]);
      }
      for (const who of [w.founder, w.admin, w.superuser, w.member]) {
        const name = await make(who, collection);
        expect((await share(who, collection, name, w.ref)).status, who.username).toBe(201);
      }
    });

    it(`${field}: organisation groups and the organisation: only an active role in that very group counts (oversight, the org's members elsewhere do not)`, async () => {
      const w = await og();
      const group = w.ref;
      const orgRef = `+${w.org}`;
      // the org's admin oversees the group without a role in it; an org member is in the org only
      for (const who of [w.stranger, w.pending, w.orgAdmin, w.orgMember]) {
        const name = await make(who, collection);
        expect(await shape(await share(who, collection, name, group), group), `${who.username} ${group}`).toEqual(
          REFUSED,
        );
      }
      // a member of the org group is not thereby in the organisation
      for (const who of [w.stranger, w.member]) {
        const name = await make(who, collection);
        expect(await shape(await share(who, collection, name, orgRef), orgRef), `${who.username} ${orgRef}`).toEqual(
          REFUSED,
        );
      }
      const unknownOrg = `+${unique('no').slice(0, 20)}`;
      const unknownGroup = `${orgRef}~${unique('none').slice(0, 20)}`;
      const name = await make(w.stranger, collection);
      expect(await shape(await share(w.stranger, collection, name, unknownOrg), unknownOrg)).toEqual(REFUSED);
      expect(await shape(await share(w.stranger, collection, name, unknownGroup), unknownGroup)).toEqual(REFUSED);
      const mine = await make(w.member, collection);
      expect((await share(w.member, collection, mine, group)).status).toBe(201);
      const orgs = await make(w.orgMember, collection);
      expect((await share(w.orgMember, collection, orgs, orgRef)).status).toBe(201);
    });
  }
});

describe('a share into a group grants only while its owner holds an active role in the group', () => {
  for (const [field, collection, section] of KINDS) {
    it(`${field}: the owner leaves → members read nothing (item, listings, group views, GraphQL); rejoins → read again`, async () => {
      const w = await og();
      const bob = await person('b');
      await join(w.path, w.ref, w.account, bob, 'members');
      const name = await make(bob, collection);
      expect((await share(bob, collection, name, w.ref)).status).toBe(201);
      const item = `/v1/users/${bob.username}/${collection}/${name}`;
      const listed = async (who: TestUser) =>
        (
          await json<{ name: string }[]>(
            await call('GET', `/v1/users/${bob.username}/${collection}`, { token: who.token }),
          )
        ).map((i) => i.name);
      const inGroup = async (who: TestUser) =>
        (await json<{ id: string }[]>(await call('GET', `/v1/o/${w.ref}/${section}`, { token: who.token }))).map(
          (i) => i.id,
        );
      const inInfo = async (who: TestUser) =>
        (
          await json<{ shared: { name: string }[] }>(
            await call('GET', `/v1/orgs/${w.org}/groups/${w.group}`, { token: who.token }),
          )
        ).shared.map((s) => s.name);
      const inGql = async (who: TestUser) => {
        const q = `query($a: String, $g: String, $o: String) { ${field}(author: $a) { id } groups(name: $g, type: org_group, parent_group: $o) { ${field} { id } } }`;
        const data = (await gql(who.token, q, { a: bob.username, g: w.group, o: w.org })).body.data as Record<
          string,
          unknown
        >;
        const mine = (data[field] as { id: string }[]).map((i) => i.id);
        const ofGroup = (data.groups as Record<string, { id: string }[]>[]).flatMap((g) => g[field]!.map((i) => i.id));
        return mine.includes(name) === ofGroup.includes(name) ? mine : ['(REST and GraphQL disagree)'];
      };
      const reads = async (who: TestUser) => ({
        item: (await call('GET', item, { token: who.token })).status,
        listed: (await listed(who)).includes(name),
        group: (await inGroup(who)).includes(name),
        info: (await inInfo(who)).includes(name),
        gql: (await inGql(who)).includes(name),
      });
      const can = { item: 200, listed: true, group: true, info: true, gql: true };
      const cannot = { item: 404, listed: false, group: false, info: false, gql: false };
      expect(await reads(w.member)).toEqual(can);

      // Bob leaves the group: the share stays listed for Bob, but grants nothing
      expect((await call('DELETE', `${w.path}/roles/members/${bob.username}`, { token: bob.token })).status).toBe(204);
      expect(await reads(w.member)).toEqual(cannot);
      expect(await reads(w.admin)).toEqual(cannot);
      expect(
        (
          await json<{ name: string }[]>(await call('GET', `/v1/${collection}/${name}/shared`, { token: bob.token }))
        ).map((i) => i.name),
      ).toEqual([w.ref]);

      // invited again: pending grants nothing yet; accepted, the share counts again
      expect((await call('PUT', `${w.path}/roles/members/${bob.username}`, { token: w.account.token })).status).toBe(
        201,
      );
      expect(await reads(w.member)).toEqual(cannot);
      expect((await accept(bob, w.ref)).status).toBe(200);
      expect(await reads(w.member)).toEqual(can);
    });
  }

  it('jobs: execute through a group share ends with the owner leaving (a superuser of the group can no longer trigger)', async () => {
    const w = await ug();
    const bob = await person('b');
    await join(w.path, w.ref, w.founder, bob, 'members');
    const name = await make(bob, 'code/jobs');
    expect(
      (
        await call('POST', `/v1/code/jobs/${name}/code/index.js`, {
          token: bob.token,
          body: `export default { async run() { return 'ok'; } }`,
          type: 'text/javascript',
        })
      ).status,
    ).toBe(204);
    expect((await share(bob, 'code/jobs', name, w.ref)).status).toBe(201);
    const trigger = () =>
      call('POST', `/v1/users/${bob.username}/code/jobs/${name}/data`, { token: w.superuser.token, json: {} });
    expect((await trigger()).status).toBe(200);
    expect((await call('DELETE', `${w.path}/roles/members/${bob.username}`, { token: w.founder.token })).status).toBe(
      204,
    );
    expect((await trigger()).status).toBe(404);
  });
});
