/**
 * Retention: the sweep scheduled() runs every minute removes what is past retention, table by table, within its
 * budget, and keeps what the issue says stays (the newest runs of a job / e-mail, the newest log lines of a resource);
 * removed runs still count in stats/runs and GraphQL, their R2 outputs go with them. Rows are written straight into
 * the local D1 (hundreds of runs through the runner would take minutes); time moves by the operator clock.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { orphanBlobs, sweepRetention } from '../../../src/accounts/retention';
import { RETENTION_DEFAULTS, type RetentionSettings } from '../../../src/accounts/retention-plan';
import { runName } from '../../../src/jobs/run/name';
import { INLINE_OUTPUT, outputKey } from '../../../src/jobs/run/output';
import { makeJob } from '../jobs/fixtures';
import { newMail } from '../mail/fixtures';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';

const DAY = 24 * 3600 * 1000;
const J = '/v1/code/jobs';

/** Moves the platform clock (the Worker's) and answers the instant the sweep measures from. */
async function moveClock(days: number): Promise<number> {
  expect((await call('POST', '/v1/ops/clock', { token: OPS, json: { offset_ms: days * DAY } })).status).toBe(204);
  return Date.now() + days * DAY;
}

/** Sweeps until a tick removes nothing (a test's tables hold more than one tick's budget). */
async function sweepAll(at: number, s: RetentionSettings = { ...RETENTION_DEFAULTS, tick_ms: 60_000 }) {
  const total = { outbox: 0, resource_log: 0, mail_runs: 0, job_runs: 0 };
  for (;;) {
    const r = (await sweepRetention(env, at, s))!;
    const n = Object.values(r.removed).reduce((a, b) => a + b, 0);
    for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += r.removed[k];
    if (!n) return total;
  }
}

const resourceId = async (u: TestUser, name: string) =>
  (await env.DB.prepare(
    `SELECT r.id FROM resources r JOIN users u ON u.id = r.owner_id WHERE u.username = ? AND r.name = ?`,
  )
    .bind(u.username, name)
    .first<number>('id'))!;

const iso = (ms: number) => new Date(ms).toISOString();

/** `n` final top-level runs of a job, a minute apart, the newest a minute ago; answers their names, oldest first. */
async function insertRuns(jobId: number, n: number, base = Date.now()): Promise<string[]> {
  const names = Array.from({ length: n }, (_, i) =>
    runName(
      base - (n - i) * 60_000,
      unique('r')
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')
        .slice(-30),
    ),
  );
  const stmts = names.map((name, i) =>
    env.DB.prepare(
      `INSERT INTO job_runs (name, shortname, job_id, top, root_job_id, status, trigger, source, created_by,
         started_on, completed_on, duration) VALUES (?, ?, ?, 1, ?, ?, 'api', 'api', 'x', ?, ?, 1)`,
    ).bind(name, unique('s'), jobId, jobId, i % 2 ? 'success' : 'failed', iso(base - (n - i) * 60_000), iso(base)),
  );
  for (let i = 0; i < stmts.length; i += 100) await env.DB.batch(stmts.slice(i, i + 100));
  return names;
}

const count = (sql: string, ...args: unknown[]) =>
  env.DB.prepare(sql)
    .bind(...args)
    .first<number>('n');

afterEach(async () => {
  await call('POST', '/v1/ops/clock', { token: OPS, json: { offset_ms: 0 } });
});

describe('retention', () => {
  it('runs past 90 days go with their child runs and R2 outputs, the newest 100 of a job stay, stats still count them', async () => {
    const u = await makeUser();
    await makeJob(u, 'busy', `export default { async run() {} }`);
    const jobId = await resourceId(u, 'busy');
    const names = await insertRuns(jobId, 150);
    // A child run under the oldest run, and large outputs (in R2) on the oldest run and on a kept one.
    const oldestId = (await env.DB.prepare(`SELECT id FROM job_runs WHERE name = ?`)
      .bind(names[0])
      .first<number>('id'))!;
    await env.DB.prepare(
      `INSERT INTO job_runs (name, shortname, job_id, top, parent_id, root_job_id, status, trigger, source, created_by,
         started_on) VALUES (?, ?, ?, 0, ?, ?, 'success', 'api', 'api', 'x', ?)`,
    )
      .bind(unique('child'), unique('s'), jobId, oldestId, jobId, iso(Date.now() - 200 * 60_000))
      .run();
    // A run of another job (a chain step) inside the tree of the second oldest run.
    await makeJob(u, 'step', `export default { async run() {} }`);
    const stepId = await resourceId(u, 'step');
    const stepRun = `${names[1]!}s`;
    await env.DB.prepare(
      `INSERT INTO job_runs (name, shortname, job_id, top, parent_id, root_job_id, status, trigger, source, created_by,
         started_on) SELECT ?, ?, ?, 0, id, ?, 'success', 'chain', 'api', 'x', started_on FROM job_runs WHERE name = ?`,
    )
      .bind(stepRun, unique('s'), stepId, jobId, names[1])
      .run();
    for (const name of [names[0]!, names[149]!]) {
      await env.DB.prepare(`UPDATE job_runs SET output_name = 'o', output_size = ? WHERE name = ?`)
        .bind(INLINE_OUTPUT + 1, name)
        .run();
      await env.BLOBS.put(outputKey(jobId, name), 'x'.repeat(16));
    }

    // 89 days on, nothing is past retention.
    expect((await sweepAll(await moveClock(89))).job_runs).toBe(0);
    const at = await moveClock(91);
    const removed = await sweepAll(at);
    expect(removed.job_runs).toBe(52); // 50 top-level runs, the child and the other job's step
    expect(await count(`SELECT count(*) AS n FROM job_runs WHERE job_id = ?`, jobId)).toBe(100);
    expect(await env.BLOBS.head(outputKey(jobId, names[0]!))).toBeNull();
    expect(await env.BLOBS.head(outputKey(jobId, names[149]!))).not.toBeNull();
    // The newest 100 answer as before.
    const runs = (await (await call('GET', `${J}/busy/runs`, { token: u.token })).json()) as unknown[];
    expect(runs.length).toBe(30);
    expect((await call('GET', `${J}/busy/runs/${names[50]}/stats`, { token: u.token })).status).toBe(200);

    // The 50 swept runs left D1 for the archive (R2): their status, stats and folder answer as a
    // live run's do, the log and output 410 (past 30 days), and the listing pages into them.
    const archived = `${J}/busy/runs/${names[49]}`;
    expect(await (await call('GET', `${archived}/status`, { token: u.token })).text()).toBe('success');
    const oldest = await call('GET', `${J}/busy/runs/${names[0]}/stats`, {
      token: u.token,
      headers: { Accept: 'application/json' },
    });
    expect(oldest.status).toBe(200);
    const oldestStats = (await oldest.json()) as { name: string; status: string; children: { job: string }[] };
    expect(oldestStats).toMatchObject({ name: names[0], status: 'failed', children: [{ job: 'busy' }] });
    expect((await call('GET', archived, { token: u.token })).status).toBe(200);
    expect((await call('GET', `${archived}/log`, { token: u.token })).status).toBe(410);
    expect((await call('GET', `${archived}/output`, { token: u.token })).status).toBe(410);
    expect((await call('GET', `${J}/busy/runs/20200101-000000-nosuchrun`, { token: u.token })).status).toBe(404);
    // The other job's run in that tree answers under its own job too.
    expect(await (await call('GET', `${J}/step/runs/${stepRun}/status`, { token: u.token })).text()).toBe('success');
    const other = await makeUser();
    expect((await call('GET', `${archived}/status`, { token: other.token })).status).toBe(404);
    const listed: string[] = [];
    for (let path: string | null = `${J}/busy/runs?limit=40`; path;) {
      const page = await call('GET', path, { token: u.token });
      listed.push(...((await page.json()) as { name: string }[]).map((r) => r.name));
      const next = /^<([^>]+)>/.exec(page.headers.get('Link') ?? '')?.[1];
      path = next ? new URL(next).pathname + new URL(next).search : null;
    }
    expect(listed).toEqual([...names].reverse());
    // The archive is the job's: it goes with the job.
    const archive = async () => (await env.BLOBS.list({ prefix: `r/${jobId}/runs-archive/` })).objects.length;
    expect(await archive()).toBeGreaterThan(0);

    // stats/runs: the kept rows, then the rolled-up days; together they count all 150.
    const stats = (await (
      await call('GET', `${J}/busy/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as { name?: string; runs?: number; rolled_up?: true; status: string }[];
    const kept = stats.filter((r) => !r.rolled_up);
    const rolled = stats.filter((r) => r.rolled_up);
    expect(kept.length).toBe(100);
    expect(rolled.reduce((a, r) => a + r.runs!, 0)).toBe(50);
    expect(stats.findIndex((r) => r.rolled_up)).toBe(100); // after the kept runs, oldest last
    const text = await (await call('GET', `${J}/busy/stats/runs`, { token: u.token })).text();
    expect(text).toMatch(/\(\d+ runs rolled up\)/);

    // GraphQL run_count counts them too.
    const gql = await call('POST', '/gql', {
      token: u.token,
      json: { query: `query { jobs(author: "${u.username}") { id run_count } }` },
    });
    const body = (await gql.json()) as { data: { jobs: { id: string; run_count: number }[] } };
    expect(body.data.jobs.find((j) => j.id === 'busy')?.run_count).toBe(150);
    expect((await call('DELETE', `${J}/busy`, { token: u.token })).status).toBe(204);
    for (let i = 0; i < 100 && (await archive()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await archive()).toBe(0); // the job's blobs go after its answer (folder-routes.ts)
  });

  it('sends past 90 days go, the newest 100 of an e-mail stay, stats/runs reports the rolled-up days first', async () => {
    const u = await makeUser();
    const mail = await newMail(u);
    // Yesterday at noon (UTC): the 120 sends lie in one day whatever the time of the run, so
    // the 20 rolled up are one day's row (two hours before now, they straddled midnight
    // when the suite ran between 00:00 and 02:00).
    const base = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 12 * 3_600_000;
    const stmts = Array.from({ length: 120 }, (_, i) =>
      env.DB.prepare(
        `INSERT INTO mail_runs (resource_id, action, created_by, started_on, completed_on, duration, status, recipients,
           delivered, suppressed, skipped, failed) VALUES (?, 'send', 'x', ?, ?, 1, 'delivered', 2, 2, 0, 0, 0)`,
      ).bind(mail.id, iso(base - (120 - i) * 60_000), iso(base)),
    );
    await env.DB.batch(stmts.slice(0, 60));
    await env.DB.batch(stmts.slice(60));
    expect((await sweepAll(await moveClock(91))).mail_runs).toBe(20);
    expect(await count(`SELECT count(*) AS n FROM mail_runs WHERE resource_id = ?`, mail.id)).toBe(100);
    const stats = (await (
      await call('GET', `${mail.path}/stats/runs`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as { rolled_up?: true; runs?: number; delivered: number }[];
    expect(stats.length).toBe(101);
    expect(stats[0]).toMatchObject({ rolled_up: true, runs: 20, delivered: 40, status: 'delivered' });
    expect(await (await call('GET', `${mail.path}/stats/runs`, { token: u.token })).text()).toContain('(20 sends)');
  });

  it('a log keeps its newest 1,000 lines or its last 90 days, whichever keeps more; outbox rows go after 30 days', async () => {
    const u = await makeUser();
    const big = await newMail(u);
    const small = await newMail(u);
    const base = Date.now();
    const line = (id: number, i: number) =>
      env.DB.prepare(
        `INSERT INTO resource_log (resource_id, log_time, severity, message) VALUES (?, ?, 'info', ?)`,
      ).bind(id, iso(base - 2000 + i), `line ${i}`);
    const lines = Array.from({ length: 1100 }, (_, i) => line(big.id, i));
    for (let i = 0; i < lines.length; i += 100) await env.DB.batch(lines.slice(i, i + 100));
    await env.DB.batch(Array.from({ length: 5 }, (_, i) => line(small.id, i)));
    const subject = unique('subj');
    await env.DB.prepare(
      `INSERT INTO outbox (kind, sender, recipients, subject, text, html, attachments, created_on)
       VALUES ('mail', 'a@b.c', '[]', ?, '', '', '[]', ?)`,
    )
      .bind(subject, iso(base))
      .run();

    const smallLines = await count(`SELECT count(*) AS n FROM resource_log WHERE resource_id = ?`, small.id);
    expect(smallLines).toBeGreaterThanOrEqual(5);
    expect((await sweepAll(await moveClock(29))).outbox).toBe(0);
    const removed = await sweepAll(await moveClock(91));
    expect(removed.outbox).toBeGreaterThanOrEqual(1);
    expect(await count(`SELECT count(*) AS n FROM outbox WHERE subject = ?`, subject)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM resource_log WHERE resource_id = ?`, big.id)).toBe(1000);
    expect(await count(`SELECT count(*) AS n FROM resource_log WHERE resource_id = ?`, small.id)).toBe(smallLines);
    // The oldest 100 went, not any others.
    expect(
      await count(`SELECT count(*) AS n FROM resource_log WHERE resource_id = ? AND message = 'line 99'`, big.id),
    ).toBe(0);
    expect(
      await count(`SELECT count(*) AS n FROM resource_log WHERE resource_id = ? AND message = 'line 100'`, big.id),
    ).toBe(1);
  });

  it('a tick removes at most its row budget, and GET /v1/ops/retention shows it', async () => {
    const u = await makeUser();
    await makeJob(u, 'budget', `export default { async run() {} }`);
    const jobId = await resourceId(u, 'budget');
    await insertRuns(jobId, 300);
    const at = await moveClock(91);
    const s = { ...RETENTION_DEFAULTS, runs_keep: 10, batch: 40, tick_rows: 100, tick_ms: 60_000 };
    const first = (await sweepRetention(env, at, s))!;
    const { blobs: _blobs, ...rows } = first.removed;
    expect(Object.values(rows).reduce((a, b) => a + b, 0)).toBe(100);
    const report = (await (await call('GET', '/v1/ops/retention', { token: OPS })).json()) as {
      settings: RetentionSettings;
      last_sweep: { swept_on: string; removed: Record<string, number> };
      rows: Record<string, number>;
    };
    expect(report.settings).toMatchObject({ outbox_days: 30, runs_days: 90, runs_keep: 100, log_keep: 1000 });
    expect(report.last_sweep.removed).toEqual(first.removed);
    expect(report.rows.job_runs).toBeGreaterThanOrEqual(200);
    expect(report.rows).toHaveProperty('outbox');
    expect(report.rows).toHaveProperty('job_run_days');
    // Ticks go on until only the newest 10 are left.
    for (let i = 0; i < 5; i++) {
      const { blobs: _b, ...next } = (await sweepRetention(env, at, s))!.removed;
      expect(Object.values(next).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(100);
    }
    expect(await count(`SELECT count(*) AS n FROM job_runs WHERE job_id = ?`, jobId)).toBe(10);
    // Only the operator reads it.
    expect((await call('GET', '/v1/ops/retention', { token: u.token })).status).toBeGreaterThanOrEqual(401);
  });

  it('log readers page: ?limit newest lines, ?before the X-Log-Before of a page for older ones; bad values 400', async () => {
    const u = await makeUser();
    const mail = await newMail(u);
    await env.DB.batch(
      Array.from({ length: 25 }, (_, i) =>
        env.DB.prepare(
          `INSERT INTO resource_log (resource_id, log_time, severity, message) VALUES (?, ?, 'info', ?)`,
        ).bind(mail.id, iso(Date.now() + i), `paged ${i}`),
      ),
    );
    const json = { token: u.token, headers: { Accept: 'application/json' } };
    const first = await call('GET', `${mail.path}/log?limit=10`, json);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { message: string }[]).map((e) => e.message)).toEqual(
      Array.from({ length: 10 }, (_, i) => `paged ${15 + i}`),
    );
    const before = first.headers.get('X-Log-Before');
    expect(before).toMatch(/^\d+$/);
    const second = await call('GET', `${mail.path}/log?limit=10&before=${before}`, { token: u.token });
    expect(
      (await second.text())
        .trim()
        .split('\n')
        .map((l) => l.replace(/^.* INFO /, '')),
    ).toEqual(Array.from({ length: 10 }, (_, i) => `paged ${5 + i}`));
    const rest = await call('GET', `${mail.path}/log?before=${second.headers.get('X-Log-Before')}`, json);
    const tail = ((await rest.json()) as { message: string }[]).map((e) => e.message);
    expect(tail.slice(-5)).toEqual(Array.from({ length: 5 }, (_, i) => `paged ${i}`));
    expect(rest.headers.get('X-Log-Before')).toBeNull();
    for (const q of ['limit=0', 'limit=1001', 'limit=x', 'before=abc', 'before=0'])
      expect((await call('GET', `${mail.path}/log?${q}`, { token: u.token })).status, q).toBe(400);
  });

  it('a tick deletes the expired tokens of an account that never signs in again, and keeps live ones', async () => {
    const u = await makeUser();
    const signIn = (json: Record<string, unknown>) =>
      call('POST', '/v1/token', { json: { username: u.username, password: u.password, ...json } });
    expect((await signIn({ token_name: 'dated', expires_in_days: 1 })).status).toBe(200);
    const names = async () =>
      (
        await env.DB.prepare(
          'select t.name from tokens t join users x on x.id = t.user_id where x.username = ? order by t.id',
        )
          .bind(u.username)
          .all<{ name: string }>()
      ).results.map((r) => r.name);
    expect(await names()).toEqual(['default', 'dated']);
    await sweepAll(await moveClock(2));
    expect(await names()).toEqual(['default']);
  });

  it('the orphan walk deletes an R2 object whose resource or run row is gone, and nothing else', async () => {
    const u = await makeUser();
    await makeJob(u, 'orphans', `export default { async run() {} }`);
    const jobId = await resourceId(u, 'orphans');
    const [kept] = await insertRuns(jobId, 1);
    const keys = {
      keptOutput: outputKey(jobId, kept!),
      lostOutput: outputKey(jobId, unique('gone')),
      lostResource: `r/${2_000_000_000 + Math.floor(Math.random() * 1e6)}/entries/x`,
    };
    for (const k of Object.values(keys)) await env.BLOBS.put(k, 'x');
    // Young objects are never orphans (their row may be on its way).
    let cursor: string | null = null;
    do cursor = (await orphanBlobs(env, cursor, Date.now())).cursor;
    while (cursor);
    expect(await env.BLOBS.head(keys.lostOutput)).not.toBeNull();
    let deleted = 0;
    do {
      const walk = await orphanBlobs(env, cursor, Date.now() + 2 * 3600 * 1000);
      deleted += walk.deleted;
      cursor = walk.cursor;
    } while (cursor);
    expect(deleted).toBeGreaterThanOrEqual(2);
    expect(await env.BLOBS.head(keys.lostOutput)).toBeNull();
    expect(await env.BLOBS.head(keys.lostResource)).toBeNull();
    expect(await env.BLOBS.head(keys.keptOutput)).not.toBeNull();
  });
});
