// Jobs: trigger → result of a trivial code step (target p50 <= 30 ms warm), and GET runs
// with 100,000 runs of history against the same with 100 (target: within 1.5x).
// History is seeded straight into the server's local D1 with `wrangler d1 execute --local
// --persist-to <its state dir>` (found from the wrangler process serving b.base).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../../scripts/serve.mjs';
import { wranglerEnv } from '../../scripts/wrangler-env.mjs';

/** The --persist-to folder of the wrangler process listening on `port`. */
function stateDirOf(port) {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let args;
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = args.indexOf('--port');
    const to = args.indexOf('--persist-to');
    if (at >= 0 && to >= 0 && args[at + 1] === String(port) && args.some((a) => a.includes('wrangler')))
      return args[to + 1];
  }
  throw new Error(`no wrangler process serves port ${port}`);
}

function d1(stateDir, sql) {
  const r = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
      'd1',
      'execute',
      'DB',
      '--local',
      '--persist-to',
      stateDir,
      '--command',
      sql,
    ],
    {
      cwd: root,
      env: { ...wranglerEnv(), CI: 'true' },
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`d1 execute failed: ${r.stderr || r.stdout}`);
}

/** Inserts `count` finished top-level runs of a job in one statement (recursive CTE). */
function seed(stateDir, owner, job, count) {
  d1(
    stateDir,
    `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count})
     INSERT INTO job_runs (name, shortname, job_id, top, parent_id, root_job_id, parent_step, status, trigger, source, created_by, started_on, completed_on, duration)
     SELECT printf('20250101-000000-%s%07d', '${job}', n), printf('s%s%07d', '${job}', n), r.id, 1, NULL, r.id, NULL, 'success', 'api', 'bench', '${owner}',
            '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:01.000Z', 1.0
     FROM seq, resources r JOIN users u ON u.id = r.owner_id WHERE u.username = '${owner}' AND r.name = '${job}' AND r.kind = 'job'`,
  );
}

export default async function jobs(b) {
  const u = await b.makeUser();
  const auth = { Authorization: `Bearer ${u.token}` };
  const put = async (path, init = {}) => {
    const r = await b.http(init.method ?? 'PUT', path, { token: u.token, ...init });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  };
  await put('/v1/code/jobs/trivial');
  await put('/v1/code/jobs/trivial/code/index.js', {
    method: 'POST',
    body: "export default { async run() { return 'ok'; } }",
    type: 'text/javascript',
  });
  for (let i = 0; i < 5; i++) await b.http('POST', '/v1/code/jobs/trivial/data', { token: u.token, json: {} }); // warm the sandbox
  await b.measure('jobs: POST data, trivial code step (trigger → result)', '/v1/code/jobs/trivial/data', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: '{}',
    target: 'target: p50 <= 30 ms warm',
  });

  const stateDir = stateDirOf(new URL(b.base).port);
  await put('/v1/code/jobs/small');
  await put('/v1/code/jobs/large');
  seed(stateDir, u.username, 'small', 100);
  seed(stateDir, u.username, 'large', 100_000);
  const small = await b.measure('jobs: GET runs, 100 runs of history', '/v1/code/jobs/small/runs', { headers: auth });
  const large = await b.measure('jobs: GET runs, 100,000 runs of history', '/v1/code/jobs/large/runs', {
    headers: auth,
    target: 'target: within 1.5x of 100 runs',
  });
  console.log(
    `jobs: GET runs p50 100k/100 = ${(large.p50_ms / small.p50_ms).toFixed(2)}x, req/s 100/100k = ${(small.rps / large.rps).toFixed(2)}x`,
  );
  await b.time(
    'jobs: GET stats/runs, 100,000 runs (streamed)',
    async () => {
      const r = await b.http('GET', '/v1/code/jobs/large/stats/runs', { token: u.token });
      await r.arrayBuffer();
    },
    3,
  );
}
