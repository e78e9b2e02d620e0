// Seeding a running platform's local D1 straight from the bench: `wrangler d1 execute --local
// --persist-to <its state dir>`, the state dir found from the wrangler process serving the port.
// For histories (100,000 runs, 200,000 log lines) no HTTP route could create in bench time.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../scripts/serve.mjs';
import { wranglerEnv } from '../scripts/wrangler-env.mjs';

/** The --persist-to folder of the wrangler process listening on `port`. */
export function stateDirOf(port) {
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

/** Runs one SQL command against the local D1 in `stateDir`. */
export function d1(stateDir, sql) {
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
    { cwd: root, env: { ...wranglerEnv(), CI: 'true' }, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`d1 execute failed: ${r.stderr || r.stdout}`);
}

/**
 * Inserts `count` finished top-level runs of `owner`'s job `job` in one statement (recursive CTE), started
 * `perDay` a day from `from` on (so older history spans count / perDay days), each named by its start as the
 * platform names runs (`<YYYYMMDD>-<HHMMSS>-<job><n>`).
 */
export function seedRuns(stateDir, owner, job, count, { from = '2025-01-01', perDay = count } = {}) {
  d1(
    stateDir,
    `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count})
     INSERT INTO job_runs (name, shortname, job_id, top, parent_id, root_job_id, parent_step, status, trigger, source, created_by, started_on, completed_on, duration)
     SELECT strftime('%Y%m%d-%H%M%S', '${from}', '+' || ((n - 1) / ${perDay}) || ' days', '+' || (n % 1440) || ' minutes')
              || printf('-%s%07d', '${job}', n), printf('s%s%07d', '${job}', n), r.id, 1, NULL, r.id, NULL,
            CASE WHEN n % 10 = 0 THEN 'failed' ELSE 'success' END, 'api', 'bench', '${owner}',
            strftime('%Y-%m-%dT%H:%M:%fZ', '${from}', '+' || ((n - 1) / ${perDay}) || ' days', '+' || (n % 1440) || ' minutes'),
            strftime('%Y-%m-%dT%H:%M:%fZ', '${from}', '+' || ((n - 1) / ${perDay}) || ' days', '+' || (n % 1440) || ' minutes', '+1 seconds'),
            1.0
     FROM seq, resources r JOIN users u ON u.id = r.owner_id WHERE u.username = '${owner}' AND r.name = '${job}' AND r.kind = 'job'`,
  );
}

/** Inserts `count` empty documents `${prefix}000001…` of `owner` in one statement (a collection of any size). */
export function seedDocs(stateDir, owner, prefix, count) {
  d1(
    stateDir,
    `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count})
     INSERT INTO resources (kind, owner_id, name, shortname, created_on, last_modified)
     SELECT 'doc', u.id, printf('%s%06d', '${prefix}', n), printf('b%s%s%06d', u.id, '${prefix}', n),
            '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
     FROM seq, users u WHERE u.username = '${owner}'`,
  );
}
