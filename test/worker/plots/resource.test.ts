/**
 * The plot resource through the Worker, as the clients speak to it: PUT creates (409 again),
 * GET lists entries, data read back byte for byte, config entries with their checks,
 * rename and copy, listing, sharing (a stranger gets 404), GraphQL `plots`.
 */
import { describe, expect, it } from 'vitest';
import { call, makeUser, unique } from '../helpers';
import { PANDAS_CSV } from './fixtures';

describe('the plot resource', () => {
  it('PUT creates (201, then 409), GET lists its entries, data reads back byte for byte', async () => {
    const u = await makeUser();
    const name = unique('p');
    const path = `/v1/vis/plots/${name}`;
    expect((await call('PUT', path, { token: u.token })).status).toBe(201);
    const again = await call('PUT', path, { token: u.token });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { message: string }).message).toBe(`plot '${name}' already exists`);
    expect((await call('POST', `${path}/data`, { token: u.token, text: PANDAS_CSV })).status).toBe(204);
    expect(await (await call('GET', `${path}/data`, { token: u.token })).text()).toBe(PANDAS_CSV);
    const listing = (await (await call('GET', path, { token: u.token })).json()) as { name: string }[];
    expect(listing.map((i) => i.name)).toEqual(
      expect.arrayContaining(['data', 'name', 'description', 'summary', 'url', 'shortname', 'config', 'files']),
    );
    expect(await (await call('GET', `${path}/url`, { token: u.token })).text()).toMatch(
      new RegExp(`/u/${u.username}/p/${name}$`),
    );
  });

  it('config/type takes the chart types and answers 400 listing them for anything else; it reads bar until written', async () => {
    const u = await makeUser();
    const path = `/v1/vis/plots/${unique('p')}`;
    await call('PUT', path, { token: u.token });
    expect(await (await call('GET', `${path}/config/type`, { token: u.token })).text()).toBe('bar');
    for (const t of ['line', 'area', 'bar', 'sbar', 'gbar', 'hbar', 'scatter', 'donut', 'table', 'mtable'])
      expect((await call('POST', `${path}/config/type`, { token: u.token, text: t })).status, t).toBe(204);
    const bad = await call('POST', `${path}/config/type`, { token: u.token, text: 'pie3d' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/pie3d.*line, area, bar, sbar, gbar, hbar/);
    expect(await (await call('GET', `${path}/config/type`, { token: u.token })).text()).toBe('mtable');
  });

  it('custom.js is stored and read back (never executed); listing, rename, copy; a stranger gets 404', async () => {
    const [u, stranger] = await Promise.all([makeUser(), makeUser()]);
    const name = unique('p');
    const path = `/v1/vis/plots/${name}`;
    await call('PUT', path, { token: u.token });
    const js = 'alert(document.cookie)';
    expect((await call('POST', `${path}/config/custom/custom.js`, { token: u.token, text: js })).status).toBe(204);
    expect(await (await call('GET', `${path}/config/custom/custom.js`, { token: u.token })).text()).toBe(js);
    const list = (await (await call('GET', '/v1/vis/plots', { token: u.token })).json()) as { name: string }[];
    expect(list.map((i) => i.name)).toContain(name);
    const copy = await call('PATCH', path, { token: u.token, json: { name: `${name}c`, copy: true } });
    expect(copy.status).toBe(201);
    expect(await (await call('GET', `/v1/vis/plots/${name}c/config/custom/custom.js`, { token: u.token })).text()).toBe(
      js,
    );
    for (const p of [path, `${path}/data`, `${path}/config/type`])
      expect(
        (await call('GET', p.replace('/v1/vis', `/v1/users/${u.username}/vis`), { token: stranger.token })).status,
      ).toBe(404);
  });

  it('GraphQL lists plots as the CLI asks (`novem -p -l`): id, name, type, url, shared', async () => {
    const u = await makeUser();
    const name = unique('p');
    await call('PUT', `/v1/vis/plots/${name}`, { token: u.token });
    await call('POST', `/v1/vis/plots/${name}/config/type`, { token: u.token, text: 'line' });
    const res = await call('POST', '/gql', {
      token: u.token,
      json: {
        query: `query List($author: String, $limit: Int, $offset: Int) { plots(author: $author, limit: $limit, offset: $offset) { id name type url public shared { __typename } } }`,
        variables: { author: null, limit: null, offset: null },
      },
    });
    const body = (await res.json()) as { data: { plots: { id: string; type: string; url: string }[] } };
    expect(body.data.plots.find((p) => p.id === name)).toMatchObject({
      type: 'line',
      url: expect.stringMatching(new RegExp(`/u/${u.username}/p/${name}$`)),
    });
  });
});
