// Every item's url is its page, the same shape for every kind: <PUBLIC_ORIGIN>/u/<user>/{d,g,m,j}/<name>
// in the REST url entry, the GraphQL listings the client sends and the items of a group; and the
// page opens for whoever may read the item (the grid's dashboard, the e-mail's web view, a
// read-only page of the job), 404 for anyone else (existence not revealed), with the
// document page's policy and headers.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { JOB_FIELDS, meList, orgGroupVis, rootList, VIS_FIELDS } from '../gql/client-queries';
import { buildWorld, gql, ok, type World } from '../gql/fixtures';
import { call, makeUser } from '../helpers';

type Row = Record<string, unknown>;
const KINDS = [
  { field: 'docs', coll: 'vis/docs', letter: 'd' },
  { field: 'grids', coll: 'vis/grids', letter: 'g' },
  { field: 'mails', coll: 'vis/mails', letter: 'm' },
  { field: 'jobs', coll: 'code/jobs', letter: 'j' },
] as const;

let w: World;
const urlOf = (letter: string, name: string) => `${env.PUBLIC_ORIGIN}/u/${w.owner.username}/${letter}/${name}`;
const page = (letter: string, name: string, token: string | null = null) =>
  call('GET', `/u/${w.owner.username}/${letter}/${name}`, { token });

beforeAll(async () => {
  w = await buildWorld();
  // What the pages show: a grid layout, an e-mail's content, a job's summary, schedule and runs.
  const base = (coll: string, name: string) => `/v1/${coll}/${name}`;
  await ok(
    call('POST', `${base('vis/mails', w.names.team)}/content`, {
      token: w.owner.token,
      text: '# Quarterly news\n\nHello **team**.',
    }),
  );
  await ok(
    call('POST', `${base('code/jobs', w.names.team)}/summary`, { token: w.owner.token, text: 'Nightly import' }),
  );
  await ok(
    call('POST', `${base('code/jobs', w.names.team)}/config/schedule`, { token: w.owner.token, text: '0 3 * * *' }),
  );
  const job = (await env.DB.prepare(
    "select r.id from resources r join users u on u.id = r.owner_id where u.username = ? and r.kind = 'job' and r.name = ?",
  )
    .bind(w.owner.username, w.names.team)
    .first<{ id: number }>())!.id;
  await env.DB.prepare(
    "insert into job_runs (name, shortname, job_id, top, root_job_id, status, trigger, source, created_by, started_on, completed_on) values (?, ?, ?, 1, ?, 'success', 'api', 'test', 'test', '2024-11-29T09:39:33.000Z', '2024-11-29T09:39:35.500Z')",
  )
    .bind(`r${job}p`, `s${job}p`, job, job)
    .run();
}, 120_000);

describe("an item's url is <PUBLIC_ORIGIN>/u/<user>/<d|g|m|j>/<name> everywhere", () => {
  for (const k of KINDS) {
    it(`${k.field}: the REST url entry, novem -${k.letter} -l (me), -u <user> (List) and an org group's items`, async () => {
      const want = urlOf(k.letter, w.names.team);
      expect(await (await call('GET', `/v1/${k.coll}/${w.names.team}/url`, { token: w.owner.token })).text()).toBe(
        want,
      );
      const fields = k.field === 'jobs' ? JOB_FIELDS : VIS_FIELDS;
      const mine = await gql(w.owner.token, meList(k.field, fields));
      expect(((mine.body.data!.me as Row)[k.field] as Row[]).find((i) => i.id === w.names.team)!.url).toBe(want);
      const theirs = await gql(w.member.token, rootList(k.field, fields), { author: w.owner.username });
      expect((theirs.body.data![k.field] as Row[]).find((i) => i.id === w.names.team)!.url).toBe(want);
      const shared = await gql(w.salesMember.token, orgGroupVis(k.field), { orgId: w.org });
      const sales = ((shared.body.data!.groups as Row[])[0]!.groups as Row[]).find((g) => g.id === 'sales')!;
      expect((sales[k.field] as Row[])[0]!.url).toBe(urlOf(k.letter, w.names.sales));
    });
  }
});

describe('the url opens the page for whoever may read the item, 404 for anyone else', () => {
  for (const k of KINDS) {
    it(`${k.field}: owner and share members 200; public items for anyone; strangers, anonymous and missing names 404 alike`, async () => {
      expect((await page(k.letter, w.names.team, w.owner.token)).status).toBe(200);
      expect((await page(k.letter, w.names.team, w.member.token)).status).toBe(200);
      expect((await page(k.letter, w.names.pub)).status).toBe(200);
      expect((await page(k.letter, w.names.pub, w.stranger.token)).status).toBe(200);
      const hidden = await page(k.letter, w.names.priv, w.stranger.token);
      const missing = await page(k.letter, 'no_such_item', w.stranger.token);
      expect([hidden.status, missing.status, (await page(k.letter, w.names.team)).status]).toEqual([404, 404, 404]);
      expect(Object.keys((await hidden.json()) as Row).sort()).toEqual(
        Object.keys((await missing.json()) as Row).sort(),
      );
    });

    it(`${k.field}: the page has the document page's policy and headers`, async () => {
      const res = await page(k.letter, w.names.team, w.owner.token);
      expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(res.headers.get('Referrer-Policy')).toBe('no-referrer');
      expect(res.headers.get('Cache-Control')).toMatch(/^private, no-(cache|store)$/);
      const csp = res.headers.get('Content-Security-Policy')!;
      for (const d of ["default-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"])
        expect(csp).toContain(d);
      expect(csp).not.toMatch(/script-src (?!'none')|unsafe-inline/);
      expect(await res.text()).not.toMatch(/<script/i);
    });
  }

  it("the grid's page is its dashboard (as the html entry)", async () => {
    const html = await (await page('g', w.names.team, w.owner.token)).text();
    const entry = await (await call('GET', `/v1/vis/grids/${w.names.team}/html`, { token: w.owner.token })).text();
    expect(html).toBe(entry);
  });

  it("the e-mail's page is the message as rendered for recipients, without their footer", async () => {
    const html = await (await page('m', w.names.team, w.member.token)).text();
    expect(html).toMatch(/<h1[^>]*>Quarterly news<\/h1>/);
    expect(html).toContain('<strong>team</strong>');
    expect(html).not.toMatch(/unsubscribe/i);
  });

  it("the job's page: name, summary, schedule and the last runs with status and time; runs hidden from a public-only reader", async () => {
    const html = await (await page('j', w.names.team, w.member.token)).text();
    expect(html).toContain(`<h1>${w.names.team}</h1>`);
    expect(html).toContain('Nightly import');
    expect(html).toContain('<code>0 3 * * *</code>');
    expect(html).toContain('2024-11-29 09:39:33 UTC');
    expect(html).toContain('>success<');
    expect(html).toContain('2.5 s');
    const pub = await (await page('j', w.names.pub, (await makeUser()).token)).text();
    expect(pub).toContain(
      'Its runs and their output are not public; to see them, or to run it, ask its owner to share it with you',
    );
    expect(pub).not.toContain('Runs are shown to the owner');
  });
});
