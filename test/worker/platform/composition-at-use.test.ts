/**
 * Authority at the moment of use, path by path. Every way content reaches other content is
 * named in COMPOSITION_PATHS (src/core/resource/paths.ts); this file has cells for each name,
 * and its last test fails when a name has none, or none where a writer without rights
 * tries: a grantee whose access ended after the write, a template's author, a forged
 * sender. Each such cell changes rights or content *after* the write check passed, then
 * uses the content (page, web view, send, run, tick) and asserts that nothing the writer
 * may not read is shown, sent or run; the owner's positive control sits beside it.
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { now, setClockOffset } from '../../../src/core/clock';
import { COMPOSITION_PATHS, type CompositionPath } from '../../../src/core/resource';
import { members } from '../../../src/db/schema';
import { handleInbound } from '../../../src/jobs/inbound';
import { fireDue } from '../../../src/jobs/schedule';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';
import { makeJob, trigger } from '../jobs/fixtures';
import { mailGroup, rawMail } from '../jobs/mail-fixtures';
import { db, makeGroup, sender, userId, type Outbound } from '../mail/fixtures';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

// ---------------------------------------------------------------------------------------
// The registry's cells
// ---------------------------------------------------------------------------------------

const covered = new Map<CompositionPath, { cells: number; writerWithoutRights: number }>();

/** A cell of `path`; `writer` marks one where a writer without rights (now) tries. */
function cell(path: CompositionPath, rule: string, fn: () => Promise<void>, writer = false): void {
  const c = covered.get(path) ?? { cells: 0, writerWithoutRights: 0 };
  covered.set(path, { cells: c.cells + 1, writerWithoutRights: c.writerWithoutRights + (writer ? 1 : 0) });
  it(`[${path}] ${rule}`, fn);
}

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

const ok = async (res: Promise<Response>, what: string): Promise<Response> => {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${await r.text()}`);
  return r;
};
const write = (u: TestUser, path: string, text: string) => ok(call('POST', path, { token: u.token, text }), path);
const put = (u: TestUser, path: string) => ok(call('PUT', path, { token: u.token }), `PUT ${path}`);
const secret = (what: string) => `${what}${unique('s').slice(-8)}`;

/** `u`'s document `name` with a number variable `var` of `value` (digits: shown as written with format `d`). */
async function varDoc(u: TestUser, name: string, variable: string, value: string): Promise<string> {
  await put(u, `/v1/vis/docs/${name}`);
  await put(u, `/v1/vis/docs/${name}/vars/${variable}`);
  await write(u, `/v1/vis/docs/${name}/vars/${variable}/type`, 'text');
  await write(u, `/v1/vis/docs/${name}/vars/${variable}/value`, value);
  return `{/u/${u.username}/d/${name}/v/${variable}}`;
}

/** Ends `username`'s membership of a group (as if they were removed): access through it ends with it. */
const leave = async (groupId: number, username: string) =>
  db()
    .update(members)
    .set({ state: 'declined' })
    .where(and(eq(members.group_id, groupId), eq(members.user_id, await userId(username))));

const anonPage = async (path: string) => (await call('GET', path)).text();

async function outbox(): Promise<Outbound[]> {
  return (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as Outbound[];
}

/** Sends the mail at `path` as its owner (ad-hoc `to` or its lists) and waits until it is done. */
async function sendMail(u: TestUser, path: string, to?: string): Promise<void> {
  const res = await call(
    'POST',
    `${path}/status`,
    to ? { token: u.token, json: { to: [to] } } : { token: u.token, text: 'sent' },
  );
  expect(res.status, await res.clone().text()).toBe(202);
  for (let i = 0; i < 3000; i++) {
    if ((await (await call('GET', `${path}/status`, { token: u.token })).text()) === 'ready') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${path} never went back to ready`);
}

const logOf = async (u: TestUser, path: string) => (await call('GET', `${path}/log`, { token: u.token })).text();

/** Triggers a job: the answer's status, its body (the output, or the error) and the run's log. */
async function runOf(u: TestUser, base: string): Promise<{ status: number; output: string; log: string }> {
  const res = await trigger(u.token, base);
  const output = await res.text();
  const run = res.headers.get('X-Run-Id')!;
  const log = await (await call('GET', `${base}/runs/${run}/log`, { token: u.token })).text();
  return { status: res.status, output, log };
}

// ---------------------------------------------------------------------------------------
// doc.content
// ---------------------------------------------------------------------------------------

describe('doc.content: a document page resolves with the owner and the content writer, now', () => {
  cell('doc.content', "the owner's own reference shows on the public page (positive control)", async () => {
    const a = await makeUser({ profile_public: true });
    const ref = await varDoc(a, 'secret', 'salary', secret('sal'));
    await put(a, '/v1/vis/docs/report');
    await write(a, '/v1/vis/docs/report/content', `Salary: ${ref}`);
    await put(a, '/v1/vis/docs/report/shared/public');
    const value = await (await call('GET', `/v1/vis/docs/secret/vars/salary/value`, { token: a.token })).text();
    expect(await anonPage(`/u/${a.username}/d/report`)).toContain(value);
  });

  cell(
    'doc.content',
    "a grantee's reference stops resolving once the grantee may no longer read its target, though the owner still may",
    async () => {
      const [a, g, x] = [await makeUser({ profile_public: true }), await makeUser(), await makeUser()];
      const value = secret('rev');
      const ref = await varDoc(x, 'fin', 'revenue', value);
      const readers = await makeGroup(x.username, [{ username: a.username }, { username: g.username }]);
      await put(x, `/v1/vis/docs/fin/shared/${readers.ref}`);
      const editors = await makeGroup(a.username, [{ username: g.username }]);
      await put(a, '/v1/vis/docs/report');
      await put(a, `/v1/vis/docs/report/shared/${editors.ref}~rw`);
      await put(a, '/v1/vis/docs/report/shared/public');
      await write(g, `/v1/users/${a.username}/vis/docs/report/content`, `Revenue: ${ref}`);
      expect(await anonPage(`/u/${a.username}/d/report`)).toContain(value);
      await leave(readers.id, g.username);
      const page = await anonPage(`/u/${a.username}/d/report`);
      expect(page).not.toContain(value);
      expect(page).toContain(ref);
      // The owner writing the same content vouches for it: it resolves with her rights again.
      await write(a, '/v1/vis/docs/report/content', `Revenue: ${ref}`);
      expect(await anonPage(`/u/${a.username}/d/report`)).toContain(value);
    },
    true,
  );

  cell(
    'doc.content',
    "a grantee edits around the owner's references: they keep the owner's rights, and the grantee adds none of their own",
    async () => {
      const [a, g] = [await makeUser({ profile_public: true }), await makeUser()];
      const value = secret('sal');
      const ref = await varDoc(a, 'secret', 'salary', value);
      const bonus = await varDoc(a, 'secret2', 'bonus', secret('bon'));
      const editors = await makeGroup(a.username, [{ username: g.username }]);
      await put(a, '/v1/vis/docs/report');
      await put(a, `/v1/vis/docs/report/shared/${editors.ref}~rw`);
      await put(a, '/v1/vis/docs/report/shared/public');
      await write(a, '/v1/vis/docs/report/content', `Salary: ${ref}`);
      await write(g, `/v1/users/${a.username}/vis/docs/report/content`, `# Edited by a grantee\n\nSalary: ${ref}`);
      expect(await anonPage(`/u/${a.username}/d/report`)).toContain(value);
      const refused = await call('POST', `/v1/users/${a.username}/vis/docs/report/content`, {
        token: g.token,
        text: `Salary: ${ref}, bonus: ${bonus}`,
      });
      expect(refused.status).toBe(400);
    },
    true,
  );
});

// ---------------------------------------------------------------------------------------
// mail.content, mail.template, mail.template-content, mail.recipients
// ---------------------------------------------------------------------------------------

describe('mail.*: a web view and a send resolve with everyone whose content led there, now', () => {
  cell('mail.content', "the owner's own variable shows in the public web view (positive control)", async () => {
    const a = await sender({ profile_public: true });
    const value = secret('sal');
    const ref = await varDoc(a, 'secret', 'salary', value);
    await put(a, '/v1/vis/mails/news');
    await write(a, '/v1/vis/mails/news/content', `Salary: ${ref}`);
    await put(a, '/v1/vis/mails/news/shared/public');
    expect(await anonPage(`/u/${a.username}/m/news`)).toContain(value);
  });

  cell(
    'mail.content',
    "a grantee's variable leaves the web view once the grantee may no longer read it",
    async () => {
      const [a, g, x] = [await sender({ profile_public: true }), await sender(), await makeUser()];
      const value = secret('rev');
      const ref = await varDoc(x, 'fin', 'revenue', value);
      const readers = await makeGroup(x.username, [{ username: a.username }, { username: g.username }]);
      await put(x, `/v1/vis/docs/fin/shared/${readers.ref}`);
      const editors = await makeGroup(a.username, [{ username: g.username }]);
      await put(a, '/v1/vis/mails/news');
      await put(a, `/v1/vis/mails/news/shared/${editors.ref}~rw`);
      await put(a, '/v1/vis/mails/news/shared/public');
      await write(g, `/v1/users/${a.username}/vis/mails/news/content`, `Revenue: ${ref}`);
      expect(await anonPage(`/u/${a.username}/m/news`)).toContain(value);
      await leave(readers.id, g.username);
      expect(await anonPage(`/u/${a.username}/m/news`)).not.toContain(value);
    },
    true,
  );

  cell('mail.template', "the owner's template wraps the mail (positive control)", async () => {
    const a = await sender({ profile_public: true });
    await put(a, '/v1/vis/docs/tpl');
    await write(a, '/v1/vis/docs/tpl/content', 'LETTERHEAD\n\n{{ content }}');
    await put(a, '/v1/vis/mails/news');
    await write(a, '/v1/vis/mails/news/config/template', 'tpl');
    await write(a, '/v1/vis/mails/news/content', 'Body');
    await put(a, '/v1/vis/mails/news/shared/public');
    expect(await anonPage(`/u/${a.username}/m/news`)).toContain('LETTERHEAD');
  });

  cell(
    'mail.template',
    'a template chosen by a grantee is dropped once the grantee may no longer read it',
    async () => {
      const [a, g, x] = [await sender({ profile_public: true }), await sender(), await makeUser()];
      await put(x, '/v1/vis/docs/tpl');
      await write(x, '/v1/vis/docs/tpl/content', 'LETTERHEAD\n\n{{ content }}');
      const readers = await makeGroup(x.username, [{ username: a.username }, { username: g.username }]);
      await put(x, `/v1/vis/docs/tpl/shared/${readers.ref}`);
      const editors = await makeGroup(a.username, [{ username: g.username }]);
      await put(a, '/v1/vis/mails/news');
      await put(a, `/v1/vis/mails/news/shared/${editors.ref}~rw`);
      await put(a, '/v1/vis/mails/news/shared/public');
      await write(a, '/v1/vis/mails/news/content', 'Body');
      await write(g, `/v1/users/${a.username}/vis/mails/news/config/template`, `/u/${x.username}/d/tpl`);
      expect(await anonPage(`/u/${a.username}/m/news`)).toContain('LETTERHEAD');
      await leave(readers.id, g.username);
      const page = await anonPage(`/u/${a.username}/m/news`);
      expect(page).not.toContain('LETTERHEAD');
      expect(page).toContain('Body');
    },
    true,
  );

  cell(
    'mail.template-content',
    "a template's author who edits their public template to name the mail owner's private data reads nothing of it: not in the web view, not in a send",
    async () => {
      const [a, b] = [await sender({ profile_public: true }), await sender({ profile_public: true })];
      const value = secret('sal');
      const ref = await varDoc(a, 'secret', 'salary', value);
      await write(a, '/v1/vis/docs/secret/content', '# Classified');
      await put(b, '/v1/vis/docs/tpl');
      await write(b, '/v1/vis/docs/tpl/content', 'TPL\n\n{{ content }}');
      await put(b, '/v1/vis/docs/tpl/shared/public');
      await put(a, '/v1/vis/mails/news');
      await write(a, '/v1/vis/mails/news/config/template', `/u/${b.username}/d/tpl`);
      await write(a, '/v1/vis/mails/news/content', 'Hello');
      await put(a, '/v1/vis/mails/news/shared/public');
      // B edits B's own template afterwards (no check applies to B's own document).
      await write(
        b,
        '/v1/vis/docs/tpl/content',
        `TPL ${ref}\n\n{{ attachment\n  /u/${a.username}/d/secret\n}}\n{{ /attachment }}\n\n{{ content }}`,
      );
      const page = await anonPage(`/u/${a.username}/m/news`);
      expect(page).toContain('TPL');
      expect(page).not.toContain(value);
      const to = `${unique('to')}@example.com`;
      await sendMail(a, '/v1/vis/mails/news', to);
      const sent = (await outbox()).filter((m) => m.to.includes(to));
      expect(sent).toHaveLength(1);
      expect(sent[0]!.text).not.toContain(value);
      expect(sent[0]!.html).not.toContain(value);
      expect(sent[0]!.attachments).toEqual([]);
      expect(await logOf(a, '/v1/vis/mails/news')).toContain('not readable by everyone whose content names it');
    },
    true,
  );

  cell(
    'mail.template-content',
    'a ~rw grantee who sets a benign template of their own and edits it afterwards reads nothing of the owner',
    async () => {
      const [a, g] = [await sender({ profile_public: true }), await sender({ profile_public: true })];
      const value = secret('sal');
      const ref = await varDoc(a, 'secret', 'salary', value);
      await put(g, '/v1/vis/docs/gtpl');
      await write(g, '/v1/vis/docs/gtpl/content', 'Benign {{ content }}');
      await put(g, '/v1/vis/docs/gtpl/shared/public');
      const editors = await makeGroup(a.username, [{ username: g.username }]);
      await put(a, '/v1/vis/mails/news');
      await put(a, `/v1/vis/mails/news/shared/${editors.ref}~rw`);
      await put(a, '/v1/vis/mails/news/shared/public');
      await write(a, '/v1/vis/mails/news/content', 'Hello');
      await write(g, `/v1/users/${a.username}/vis/mails/news/config/template`, `/u/${g.username}/d/gtpl`);
      await write(g, '/v1/vis/docs/gtpl/content', `Benign ${ref} {{ content }}`);
      const page = await anonPage(`/u/${a.username}/m/news`);
      expect(page).toContain('Benign');
      expect(page).not.toContain(value);
    },
    true,
  );

  cell('mail.template-content', "the owner's own template may name the owner's data (positive control)", async () => {
    const a = await sender({ profile_public: true });
    const value = secret('sal');
    const ref = await varDoc(a, 'secret', 'salary', value);
    await put(a, '/v1/vis/docs/tpl');
    await write(a, '/v1/vis/docs/tpl/content', `Salary ${ref}\n\n{{ content }}`);
    await put(a, '/v1/vis/mails/news');
    await write(a, '/v1/vis/mails/news/config/template', 'tpl');
    await put(a, '/v1/vis/mails/news/shared/public');
    expect(await anonPage(`/u/${a.username}/m/news`)).toContain(value);
  });

  cell(
    'mail.recipients',
    "a group a grantee wrote into the recipients reaches nobody once the grantee left it; the owner's own list reaches it",
    async () => {
      const [a, g, m, x] = [await sender(), await sender(), await sender(), await sender()];
      const team = await makeGroup(x.username, [
        { username: a.username },
        { username: g.username },
        { username: m.username },
      ]);
      const editors = await makeGroup(a.username, [{ username: g.username }]);
      await put(a, '/v1/vis/mails/news');
      await put(a, `/v1/vis/mails/news/shared/${editors.ref}~rw`);
      await write(a, '/v1/vis/mails/news/content', 'Hello team');
      await write(g, `/v1/users/${a.username}/vis/mails/news/recipients/to`, team.ref);
      await leave(team.id, g.username);
      await sendMail(a, '/v1/vis/mails/news');
      expect((await outbox()).filter((o) => o.to.includes(m.email))).toHaveLength(0);
      // The owner writes the same list: her own membership is what counts.
      await write(a, '/v1/vis/mails/news/recipients/to', team.ref);
      await sendMail(a, '/v1/vis/mails/news');
      expect((await outbox()).filter((o) => o.to.includes(m.email))).toHaveLength(1);
    },
    true,
  );

  cell(
    'mail.recipients',
    "a send to a list a grantee wrote carries nothing of the owner's the grantee may not read",
    async () => {
      const [a, g] = [await sender(), await sender()];
      const value = secret('sal');
      const ref = await varDoc(a, 'secret', 'salary', value);
      const editors = await makeGroup(a.username, [{ username: g.username }]);
      await put(a, '/v1/vis/mails/news');
      await put(a, `/v1/vis/mails/news/shared/${editors.ref}~rw`);
      await write(g, `/v1/users/${a.username}/vis/mails/news/recipients/bcc`, g.email);
      // The owner names her private data afterwards, then sends.
      await write(a, '/v1/vis/mails/news/content', `Salary: ${ref}`);
      await sendMail(a, '/v1/vis/mails/news');
      const got = (await outbox()).filter((o) => o.to.includes(g.email));
      expect(got).toHaveLength(1);
      expect(got[0]!.text).not.toContain(value);
      // An ad-hoc send of the owner's own: the value is there.
      const to = `${unique('to')}@example.com`;
      await sendMail(a, '/v1/vis/mails/news', to);
      expect((await outbox()).find((o) => o.to.includes(to))!.text).toContain(value);
    },
    true,
  );
});

// ---------------------------------------------------------------------------------------
// job.chain, job.code, job.inbound, job.schedule
// ---------------------------------------------------------------------------------------

const ECHO_ENV = `export default { async run(input, ctx) { return 'env:' + JSON.stringify(ctx.env); } }`;

// ---------------------------------------------------------------------------------------
// grid.plots, and plots in vis blocks
// ---------------------------------------------------------------------------------------

const SALES = ',north,south\nQ1,12,7\nQ2,15,9\n';

/** `u`'s plot `name` of SALES titled `title`. */
async function titledPlot(u: TestUser, name: string, title: string): Promise<string> {
  await put(u, `/v1/vis/plots/${name}`);
  await write(u, `/v1/vis/plots/${name}/data`, SALES);
  await write(u, `/v1/vis/plots/${name}/config/title`, title);
  return `/u/${u.username}/p/${name}`;
}

/** The text of the one cell of a one-box dashboard (what the box shows when it draws no plot). */
const cellText = (html: string) => /<div class="cell[^"]*"[^>]*>([\s\S]*?)<\/div><\/main>/.exec(html)?.[1] ?? '';

describe('grid.plots and vis blocks: a plot is drawn with the rights of everyone whose content names it, now', () => {
  const LAYOUT = '+-----+\n| {A} |\n+-----+';

  cell('grid.plots', "the owner's grid draws the owner's plot (positive control)", async () => {
    const a = await makeUser({ profile_public: true });
    const title = secret('t');
    const ref = await titledPlot(a, 'sales', title);
    await put(a, '/v1/vis/grids/board');
    await write(a, '/v1/vis/grids/board/layout', LAYOUT);
    await write(a, '/v1/vis/grids/board/mapping', `A => ${ref}`);
    await put(a, '/v1/vis/grids/board/shared/public');
    const page = await anonPage(`/u/${a.username}/g/board`);
    expect(page).toContain('<svg');
    expect(page).toContain(title);
  });

  /**
   * Owner a, grantee g and x, whose plot `kpi` (titled `title`) both a and g read through x's
   * group `readers`; a's group `editors` holds g, to share a's content with.
   */
  async function plotWorld() {
    const [a, g, x] = [await makeUser({ profile_public: true }), await makeUser(), await makeUser()];
    const title = secret('t');
    const ref = await titledPlot(x, 'kpi', title);
    const readers = await makeGroup(x.username, [{ username: a.username }, { username: g.username }]);
    await put(x, `/v1/vis/plots/kpi/shared/${readers.ref}`);
    const editors = await makeGroup(a.username, [{ username: g.username }]);
    return { a, g, x, title, ref, readers, editors };
  }

  cell(
    'grid.plots',
    "a plot a grantee's mapping names is no longer drawn once the grantee may not read it; it shows what a missing plot shows",
    async () => {
      const { a, g, x, title, ref, readers, editors } = await plotWorld();
      for (const board of ['board', 'nothing']) {
        await put(a, `/v1/vis/grids/${board}`);
        await write(a, `/v1/vis/grids/${board}/layout`, LAYOUT);
        await put(a, `/v1/vis/grids/${board}/shared/${editors.ref}~rw`);
        await put(a, `/v1/vis/grids/${board}/shared/public`);
      }
      await write(g, `/v1/users/${a.username}/vis/grids/board/mapping`, `A => ${ref}`);
      // A grantee may not name a plot they cannot read: 400, as for every reference.
      const refused = await call('POST', `/v1/users/${a.username}/vis/grids/nothing/mapping`, {
        token: g.token,
        text: `A => /u/${x.username}/p/none${unique('n')}`,
      });
      expect(refused.status).toBe(400);
      await write(a, '/v1/vis/grids/nothing/mapping', `A => /u/${x.username}/p/none${unique('n')}`);
      expect(await anonPage(`/u/${a.username}/g/board`)).toContain(title);
      await leave(readers.id, g.username);
      const page = await anonPage(`/u/${a.username}/g/board`);
      expect(page).not.toContain(title);
      expect(page).not.toContain('<svg');
      expect(cellText(page)).toBe(cellText(await anonPage(`/u/${a.username}/g/nothing`)));
    },
    true,
  );

  cell(
    'doc.content',
    "a vis block a grantee wrote stops drawing its plot once the grantee may not read it; the owner's own draws",
    async () => {
      const { a, g, title, ref, readers, editors } = await plotWorld();
      await put(a, '/v1/vis/docs/report');
      await put(a, `/v1/vis/docs/report/shared/${editors.ref}~rw`);
      await put(a, '/v1/vis/docs/report/shared/public');
      const block = `{{ vis\n  ${ref}\n}}\n{{ /vis }}`;
      await write(g, `/v1/users/${a.username}/vis/docs/report/content`, block);
      expect(await anonPage(`/u/${a.username}/d/report`)).toContain(title);
      await leave(readers.id, g.username);
      const page = await anonPage(`/u/${a.username}/d/report`);
      expect(page).not.toContain(title);
      expect(page).toContain(`Visual: ${ref}`);
      await write(a, '/v1/vis/docs/report/content', block);
      expect(await anonPage(`/u/${a.username}/d/report`)).toContain(title);
    },
    true,
  );
});

describe('job.*: a run uses the rights of everyone it acts for, decided when it runs', () => {
  cell(
    'job.chain',
    "a grantee's chain step stops running once the grantee may no longer execute it; the owner's same chain runs",
    async () => {
      const [a, g, x] = [await makeUser(), await makeUser(), await makeUser()];
      await makeJob(x, 'tool', `export default { async run() { return 'tool ran'; } }`);
      const runners = await makeGroup(x.username, [{ username: a.username }, { username: g.username }]);
      await put(x, `/v1/code/jobs/tool/shared/${runners.ref}~x`);
      await makeJob(a, 'pipe');
      const editors = await makeGroup(a.username, [{ username: g.username }]);
      await put(a, `/v1/code/jobs/pipe/shared/${editors.ref}~rw`);
      const chain = `t <- @${x.username}/tool\nt`;
      await write(g, `/v1/users/${a.username}/code/jobs/pipe/config/chains`, chain);
      await leave(runners.id, g.username);
      const refused = await runOf(a, '/v1/code/jobs/pipe');
      expect(refused.status).toBe(502);
      expect(refused.log).toContain(`step t: no such job: @${x.username}/tool`);
      await write(a, '/v1/code/jobs/pipe/config/chains', chain);
      const ran = await runOf(a, '/v1/code/jobs/pipe');
      expect(ran.status).toBe(200);
      expect(ran.output).toContain('tool ran');
    },
    true,
  );

  cell(
    'job.code',
    "code a ~rw grantee wrote runs without the owner's env values until the owner approves that version",
    async () => {
      const [a, g] = [await makeUser(), await makeUser()];
      const key = secret('sk-');
      await makeJob(a, 'job', ECHO_ENV, { 'config/env/API_KEY': key });
      expect((await runOf(a, '/v1/code/jobs/job')).output).toContain(key); // the owner's code: her env
      const editors = await makeGroup(a.username, [{ username: g.username }]);
      await put(a, `/v1/code/jobs/job/shared/${editors.ref}~rw`);
      const base = `/v1/users/${a.username}/code/jobs/job`;
      expect((await call('GET', `${base}/config/env/API_KEY`, { token: g.token })).status).toBe(403);
      const res = await call('POST', `${base}/code/index.js`, {
        token: g.token,
        body: ECHO_ENV,
        type: 'text/javascript',
      });
      expect(res.status).toBe(204);
      for (const u of [g, a]) {
        const run = await runOf(u, base);
        expect(run.output).toContain('env:{}');
        expect(run.output).not.toContain(key);
        expect(run.log).toMatch(/code version \w+ was last written by \S+, not the job's owner/);
      }
      const listing = await call('GET', `${base}/code`, { token: a.token });
      const version = listing.headers.get('X-NVM-Code-Version')!;
      expect(listing.headers.get('X-NVM-Code-Approved')).toBe('no');
      expect((await call('POST', `${base}/code/approve`, { token: g.token, text: version })).status).toBe(403);
      expect((await call('POST', `${base}/code/approve`, { token: a.token, text: 'not-it' })).status).toBe(409);
      expect((await call('POST', `${base}/code/approve`, { token: a.token, text: version })).status).toBe(204);
      expect((await runOf(g, base)).output).toContain(key);
      // A new write by the grantee needs a new approval.
      await call('POST', `${base}/code/index.js`, { token: g.token, body: `${ECHO_ENV}\n`, type: 'text/javascript' });
      expect((await runOf(a, base)).output).not.toContain(key);
    },
    true,
  );

  cell(
    'job.code',
    "a copy of someone else's job runs the copied code without the copier's env until the copier approves it",
    async () => {
      const [a, c] = [await makeUser(), await makeUser()];
      await makeJob(a, 'job', ECHO_ENV);
      const readers = await makeGroup(a.username, [{ username: c.username }]);
      await put(a, `/v1/code/jobs/job/shared/${readers.ref}`);
      await ok(
        call('PATCH', `/v1/users/${a.username}/code/jobs/job`, { token: c.token, json: { name: 'mine', copy: true } }),
        'copy',
      );
      const key = secret('ck-');
      await write(c, '/v1/code/jobs/mine/config/env/KEY', key);
      expect((await runOf(c, '/v1/code/jobs/mine')).output).not.toContain(key);
      const version = (await call('GET', '/v1/code/jobs/mine/code', { token: c.token })).headers.get(
        'X-NVM-Code-Version',
      )!;
      await write(c, '/v1/code/jobs/mine/code/approve', version);
      expect((await runOf(c, '/v1/code/jobs/mine')).output).toContain(key);
    },
    true,
  );

  cell(
    'job.inbound',
    "a message forging a member's From (checks off) runs the group's job acting for nobody: the member's rights are not lent; an authenticated one is",
    async () => {
      const grp = await mailGroup();
      const member = grp.member;
      // The member's own job, executable by the organisation's account too (so only the sender decides).
      await makeJob(member, 'mine', `export default { async run() { return 'member job ran'; } }`);
      const both = await makeGroup(member.username, [{ username: grp.owner.username }]);
      await put(member, `/v1/code/jobs/mine/shared/${both.ref}~x`);
      await makeJob(grp.owner, 'route', undefined, { 'config/chains': `m <- @${member.username}/mine\nm` });
      await put(grp.owner, `/v1/code/jobs/route/shared/+${grp.org}~sales`);
      const runs = async () =>
        (await (await call('GET', '/v1/code/jobs/route/runs', { token: grp.owner.token })).json()) as {
          name: string;
        }[];
      const stats = async (run: string) =>
        (await (
          await call('GET', `/v1/code/jobs/route/runs/${run}/stats`, {
            token: grp.owner.token,
            headers: { Accept: 'application/json' },
          })
        ).json()) as { status: string; created_by: string };
      // Forged: no Authentication-Results of the receiver.
      expect(await handleInbound(env, rawMail(grp.email, grp.address, 'Forged', []), grp.email, grp.address)).toBe(
        'accepted',
      );
      const [forged] = await runs();
      expect(await stats(forged!.name)).toMatchObject({ status: 'failed', created_by: `${grp.email} (unverified)` });
      const log = await (
        await call('GET', `/v1/code/jobs/route/runs/${forged!.name}/log`, { token: grp.owner.token })
      ).text();
      expect(log).toContain(`step m: no such job: @${member.username}/mine (the run acts for nobody:`);
      // Authenticated: the member's rights.
      expect(await handleInbound(env, rawMail(grp.email, grp.address, 'Real'), grp.email, grp.address)).toBe(
        'accepted',
      );
      const [real] = await runs();
      expect(await stats(real!.name)).toMatchObject({ status: 'success', created_by: member.username });
    },
    true,
  );

  describe('schedules', () => {
    afterAll(() => setClockOffset(0));
    /** Writes config/schedule as `by` 40 years back (so this job is the only one due then); answers when it is due. */
    async function schedule(by: TestUser, path: string): Promise<number> {
      setClockOffset(-40 * 365 * 86_400_000);
      try {
        await write(by, path, '* * * * *');
        return now() + 120_000;
      } finally {
        setClockOffset(0);
      }
    }
    async function tick(due: number): Promise<void> {
      const waits: Promise<unknown>[] = [];
      await fireDue(env, due, (p) => waits.push(p));
      await Promise.all(waits);
    }
    const runsOf = async (a: TestUser) =>
      (await (await call('GET', '/v1/code/jobs/tick/runs', { token: a.token })).json()) as { name: string }[];
    /** The run's output once it ended. */
    async function outputOf(a: TestUser, run: string): Promise<string> {
      for (let i = 0; i < 500; i++) {
        const s = await (await call('GET', `/v1/code/jobs/tick/runs/${run}/status`, { token: a.token })).text();
        if (!['pending', 'processing'].includes(s)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      return (await call('GET', `/v1/code/jobs/tick/runs/${run}/output`, { token: a.token })).text();
    }

    cell(
      'job.schedule',
      "a scheduled run acts for the owner alone: a grantee may not schedule the job, and a scheduled run of code the grantee wrote gets none of the owner's env",
      async () => {
        const [a, g] = [await makeUser(), await makeUser()];
        const key = secret('sk-');
        await makeJob(a, 'tick', ECHO_ENV, { 'config/env/API_KEY': key });
        const editors = await makeGroup(a.username, [{ username: g.username }]);
        await put(a, `/v1/code/jobs/tick/shared/${editors.ref}~rw`);
        const base = `/v1/users/${a.username}/code/jobs/tick`;
        expect((await call('POST', `${base}/config/schedule`, { token: g.token, text: '* * * * *' })).status).toBe(403);
        // The owner's schedule of her own code: her env (positive control).
        await tick(await schedule(a, '/v1/code/jobs/tick/config/schedule'));
        expect(await outputOf(a, (await runsOf(a))[0]!.name)).toContain(key);
        // The grantee writes the code; the owner's schedule fires it: no env.
        const res = await call('POST', `${base}/code/index.js`, {
          token: g.token,
          body: ECHO_ENV,
          type: 'text/javascript',
        });
        expect(res.status).toBe(204);
        await tick(await schedule(a, '/v1/code/jobs/tick/config/schedule'));
        const out = await outputOf(a, (await runsOf(a))[0]!.name);
        expect(out).toContain('env:{}');
        expect(out).not.toContain(key);
        await write(a, '/v1/code/jobs/tick/config/enabled', 'false'); // out of the index
      },
      true,
    );
  });
});

// ---------------------------------------------------------------------------------------
// The registry
// ---------------------------------------------------------------------------------------

describe('the composition registry', () => {
  it('every composition path has cells, and one where a writer without rights tries', () => {
    const missing = (Object.keys(COMPOSITION_PATHS) as CompositionPath[]).filter(
      (p) => !covered.get(p)?.cells || !covered.get(p)?.writerWithoutRights,
    );
    expect(missing).toEqual([]);
  });
});
