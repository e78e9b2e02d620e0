// A group's profile and options: who writes them, text read back exactly, images and their
// checks, yes/no options, the show_* options of a premium plan.
import { beforeAll, describe, expect, it } from 'vitest';
import { json, orgLite, person, PNG, sharedGroup, sharedOrg, T, type World } from './fixtures';
import { call, unique } from '../helpers';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70]);

describe('profiles and options', T, () => {
  let w: World;
  beforeAll(async () => {
    w = await sharedGroup();
  }, T.timeout);

  it('founders and admins write name, description and mask; text reads back byte for byte', async () => {
    const desc = '# Team\n\nWe *ship*.  \n';
    expect((await call('POST', `${w.path}/profile/name`, { token: w.founder.token, text: 'The Team' })).status).toBe(
      204,
    );
    expect((await call('POST', `${w.path}/profile/description`, { token: w.admin.token, text: desc })).status).toBe(
      204,
    );
    expect(
      (await call('POST', `${w.path}/profile/picture/mask`, { token: w.admin.token, text: '10,20,30' })).status,
    ).toBe(204);
    expect(await (await call('GET', `${w.path}/profile/name`, { token: w.member.token })).text()).toBe('The Team');
    expect(await (await call('GET', `${w.path}/profile/description`, { token: w.member.token })).text()).toBe(desc);
    expect(await (await call('GET', `${w.path}/profile/picture/mask`, { token: w.member.token })).text()).toBe(
      '10,20,30',
    );
    expect((await call('DELETE', `${w.path}/profile/picture/mask`, { token: w.founder.token })).status).toBe(204);
    expect(await (await call('GET', `${w.path}/profile/picture/mask`, { token: w.member.token })).text()).toBe('');
  });

  it('superusers, members and pending invitees may not write the profile (403); strangers get 404', async () => {
    for (const u of [w.superuser, w.member, w.pending])
      expect((await call('POST', `${w.path}/profile/name`, { token: u.token, text: 'x' })).status).toBe(403);
    expect((await call('POST', `${w.path}/profile/name`, { token: w.stranger.token, text: 'x' })).status).toBe(404);
    expect(
      (await call('POST', `${w.path}/profile/options/public`, { token: w.member.token, text: 'yes' })).status,
    ).toBe(403);
  });

  it('a bad mask answers 400 and keeps the old one', async () => {
    await call('POST', `${w.path}/profile/picture/mask`, { token: w.founder.token, text: '1,2,3' });
    for (const bad of ['1,2', 'a,b,c', '-1,2,3', '1,2,0'])
      expect(
        (await call('POST', `${w.path}/profile/picture/mask`, { token: w.founder.token, text: bad })).status,
        bad,
      ).toBe(400);
    expect(await (await call('GET', `${w.path}/profile/picture/mask`, { token: w.founder.token })).text()).toBe(
      '1,2,3',
    );
  });

  it('an oversized name answers 413 and keeps the old one', async () => {
    await call('POST', `${w.path}/profile/name`, { token: w.founder.token, text: 'Keep' });
    expect(
      (await call('POST', `${w.path}/profile/name`, { token: w.founder.token, text: 'x'.repeat(300) })).status,
    ).toBe(413);
    expect(await (await call('GET', `${w.path}/profile/name`, { token: w.founder.token })).text()).toBe('Keep');
  });

  it('images: PUT creates (409 when one exists), POST replaces, GET serves with its type, DELETE removes', async () => {
    const g = w;
    const put = await call('PUT', `${g.path}/profile/picture/image`, {
      token: g.founder.token,
      body: PNG,
      type: 'image/png',
    });
    expect(put.status).toBe(201);
    expect(
      (await call('PUT', `${g.path}/profile/picture/image`, { token: g.founder.token, body: PNG, type: 'image/png' }))
        .status,
    ).toBe(409);
    const got = await call('GET', `${g.path}/profile/picture/image`, { token: g.member.token });
    expect(got.headers.get('Content-Type')).toBe('image/png');
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(PNG);
    expect(
      (await call('POST', `${g.path}/profile/picture/image`, { token: g.admin.token, body: JPEG, type: 'image/jpeg' }))
        .status,
    ).toBe(204);
    expect(
      (await call('GET', `${g.path}/profile/picture/image`, { token: g.member.token })).headers.get('Content-Type'),
    ).toBe('image/jpeg');
    expect(
      (await call('POST', `${g.path}/profile/picture/banner`, { token: g.admin.token, body: PNG, type: 'image/png' }))
        .status,
    ).toBe(204);
    expect((await call('DELETE', `${g.path}/profile/picture/image`, { token: g.founder.token })).status).toBe(204);
    expect((await call('GET', `${g.path}/profile/picture/image`, { token: g.member.token })).status).toBe(404);
  });

  it('mistyped, unsupported, empty and oversized images answer 4xx and store nothing', async () => {
    const g = w;
    const p = `${g.path}/profile/picture/image`; // the test above removed it
    expect((await call('POST', p, { token: g.founder.token, body: JPEG, type: 'image/png' })).status).toBe(415);
    expect((await call('POST', p, { token: g.founder.token, body: 'hello', type: 'image/png' })).status).toBe(415);
    expect(
      (
        await call('POST', p, {
          token: g.founder.token,
          body: '<svg xmlns="http://www.w3.org/2000/svg"/>',
          type: 'image/svg+xml',
        })
      ).status,
    ).toBe(415);
    expect((await call('POST', p, { token: g.founder.token, body: new Uint8Array(), type: 'image/png' })).status).toBe(
      400,
    );
    const big = new Uint8Array(2 * 1024 * 1024 + 1);
    big.set(PNG);
    const tooBig = await call('POST', p, { token: g.founder.token, body: big, type: 'image/png' });
    expect(tooBig.status).toBe(413);
    expect((await json(tooBig)).message).toMatch(/MiB/);
    expect((await call('GET', p, { token: g.founder.token })).status).toBe(404);
    expect((await call('POST', p, { token: g.member.token, body: PNG, type: 'image/png' })).status).toBe(403);
  });

  it('options read no by default, take yes or no only, and unknown options are 404', async () => {
    const founder = await person();
    const slug = unique('g');
    await call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token });
    const g = { path: `/v1/admin/groups/${slug}`, founder, admin: founder, member: founder };
    for (const o of ['public', 'show_profile', 'show_description', 'show_members', 'is_open']) {
      expect(await (await call('GET', `${g.path}/profile/options/${o}`, { token: g.member.token })).text()).toBe('no');
    }
    expect(
      (await call('POST', `${g.path}/profile/options/public`, { token: g.admin.token, text: 'true' })).status,
    ).toBe(400);
    expect((await call('POST', `${g.path}/profile/options/public`, { token: g.admin.token, text: 'yes' })).status).toBe(
      204,
    );
    expect(await (await call('GET', `${g.path}/profile/options/public`, { token: g.member.token })).text()).toBe('yes');
    expect((await call('GET', `${g.path}/profile/options/bogus`, { token: g.member.token })).status).toBe(404);
    expect(
      (await call('POST', `${g.path}/profile/options/enable_subdomain`, { token: g.founder.token, text: 'yes' }))
        .status,
    ).toBe(404);
    const listing = await json(await call('GET', `${g.path}/profile/options`, { token: g.member.token }));
    expect(listing.map((i: { name: string }) => i.name)).toEqual([
      'options/public',
      'options/show_profile',
      'options/show_description',
      'options/show_members',
      'options/is_open',
    ]);
  });

  it('show_* options of organisations and org groups need a premium plan (403 otherwise)', async () => {
    const free = await orgLite('free');
    for (const p of [`/v1/admin/orgs/${free.org}`, free.path]) {
      const res = await call('POST', `${p}/profile/options/show_members`, { token: free.account.token, text: 'yes' });
      expect(res.status).toBe(403);
      expect((await json(res)).message).toMatch(/premium/);
      expect(
        (await call('POST', `${p}/profile/options/public`, { token: free.account.token, text: 'yes' })).status,
      ).toBe(204);
    }
    const premium = await sharedOrg();
    expect(
      (
        await call('POST', `${premium.path}/profile/options/show_members`, {
          token: premium.account.token,
          text: 'yes',
        })
      ).status,
    ).toBe(204);
    // user groups: on every plan
    expect(
      (await call('POST', `${w.path}/profile/options/show_members`, { token: w.founder.token, text: 'yes' })).status,
    ).toBe(204);
  });
});
