import { describe, expect, it } from 'vitest';
import { call, makeUser, unique, type TestUser } from '../helpers';

const text = async (res: Response) => {
  expect(res.status).toBe(200);
  return res.text();
};

async function make(u: TestUser, collection: string): Promise<string> {
  const name = unique('r');
  expect((await call('PUT', `/v1/${collection}/${name}`, { token: u.token })).status).toBe(201);
  return `/v1/${collection}/${name}`;
}

const KINDS = [
  {
    collection: 'vis/grids',
    rw: ['summary', 'config/theme', 'config/type'],
    urlPath: (o: string, n: string) => `/u/${o}/g/${n}`,
  },
  { collection: 'vis/mails', rw: ['summary', 'config/template'], urlPath: (o: string, n: string) => `/u/${o}/m/${n}` },
  { collection: 'code/jobs', rw: ['summary', 'config/type'], urlPath: (o: string, n: string) => `/u/${o}/j/${n}` },
];

/** A document to name in an e-mail's config/template (it must name one the writer may read). */
async function templateDoc(u: TestUser): Promise<string> {
  const doc = unique('weekly');
  expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: u.token })).status).toBe(201);
  return doc;
}

describe('grid, e-mail and job entries the clients read and write (client contract)', () => {
  for (const k of KINDS) {
    it(`${k.collection}: ${k.rw.join(', ')} read back byte for byte; url and shortname are read-only`, async () => {
      const u = await makeUser();
      const path = await make(u, k.collection);
      const name = path.split('/').pop()!;
      for (const entry of k.rw) {
        const value =
          entry === 'config/theme'
            ? 'dark'
            : entry === 'config/type'
              ? 'kpi_board'
              : entry === 'config/template'
                ? ` /u/${u.username}/d/${await templateDoc(u)} `
                : `Value of ${entry}  \r\n`;
        expect((await call('POST', `${path}/${entry}`, { token: u.token, text: value })).status, entry).toBe(204);
        expect(await text(await call('GET', `${path}/${entry}`, { token: u.token }))).toBe(value);
      }
      const shortname = await text(await call('GET', `${path}/shortname`, { token: u.token }));
      expect(shortname).toMatch(/^[a-z0-9]{6,}$/);
      const url = await text(await call('GET', `${path}/url`, { token: u.token }));
      expect(url.endsWith(k.urlPath(u.username, name))).toBe(true);
      // the url's path answers for the owner
      expect((await call('GET', new URL(url).pathname, { token: u.token })).status).toBe(200);
      expect((await call('POST', `${path}/url`, { token: u.token, text: 'x' })).status).toBe(405);
      expect((await call('POST', `${path}/shortname`, { token: u.token, text: 'x' })).status).toBe(405);
      const root = ((await (await call('GET', path, { token: u.token })).json()) as { name: string }[]).map(
        (i) => i.name,
      );
      for (const e of ['summary', 'shortname', 'url', 'config']) expect(root).toContain(e);
    });

    it(`${k.collection}: the entries are 404 for a caller who cannot read it`, async () => {
      const u = await makeUser();
      const other = await makeUser();
      const path = await make(u, k.collection);
      const theirs = `/v1/users/${u.username}/${path.slice(4)}`;
      for (const entry of [...k.rw, 'url', 'shortname']) {
        expect((await call('GET', `${theirs}/${entry}`, { token: other.token })).status, entry).toBe(404);
      }
      expect((await call('POST', `${theirs}/summary`, { token: other.token, text: 'x' })).status).toBe(404);
    });
  }

  it('defaults: grid theme as documents, grid type grid, job type job, mail template empty, summaries empty', async () => {
    const u = await makeUser();
    const grid = await make(u, 'vis/grids');
    const mail = await make(u, 'vis/mails');
    const job = await make(u, 'code/jobs');
    const doc = await make(u, 'vis/docs');
    expect(await text(await call('GET', `${grid}/config/theme`, { token: u.token }))).toBe(
      await text(await call('GET', `${doc}/config/theme`, { token: u.token })),
    );
    expect(await text(await call('GET', `${grid}/config/type`, { token: u.token }))).toBe('grid');
    expect(await text(await call('GET', `${job}/config/type`, { token: u.token }))).toBe('job');
    expect(await text(await call('GET', `${mail}/config/template`, { token: u.token }))).toBe('');
    for (const p of [grid, mail, job])
      expect(await text(await call('GET', `${p}/summary`, { token: u.token }))).toBe('');
  });

  it('bad values answer 400 (413 when too large) and keep the previous value', async () => {
    const u = await makeUser();
    const grid = await make(u, 'vis/grids');
    const mail = await make(u, 'vis/mails');
    const job = await make(u, 'code/jobs');
    const cases: [string, string, number][] = [
      [`${grid}/config/theme`, 'no-such-theme', 400],
      [`${grid}/config/theme`, '+no_such_org_xyz/brand', 400],
      [`${grid}/config/type`, 'Two Words', 400],
      [`${grid}/config/type`, '', 400],
      [`${job}/config/type`, 'x'.repeat(33), 400],
      [`${mail}/config/template`, 'two\nlines', 400],
      [`${mail}/config/template`, 'x'.repeat(129), 400],
      [`${grid}/summary`, 's'.repeat(4097), 413],
      [`${job}/summary`, 's'.repeat(4097), 413],
    ];
    for (const [path, value, status] of cases) {
      const before = await text(await call('GET', path, { token: u.token }));
      const res = await call('POST', path, { token: u.token, text: value });
      expect(res.status, `${path} ${value.slice(0, 20)}`).toBe(status);
      expect(await text(await call('GET', path, { token: u.token }))).toBe(before);
    }
    expect(
      (await call('POST', `${grid}/summary`, { token: u.token, text: 'x', type: 'application/json' })).status,
    ).toBe(415);
  });
});
