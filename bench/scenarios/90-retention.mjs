// Retention (the sweep in scheduled()): the cost of one sweep tick over a table of 200,000 rows past retention
// (target: every tick within its budget, RETENTION_TICK_MS and RETENTION_TICK_ROWS: 1,000 ms and 5,000 rows by
// default), and GET runs and stats/runs over 100,000 runs of history before and after the sweep has rolled them up
// into per-day counts (target: within 1.5x of each other, and stats/runs still counting all 100,000), and the ticks
// over 20,000 runs of one job named the same day (the archive's day of a busy job: every tick within its budget).
// Ticks are driven through GET /__scheduled (npm start serves it); the rows are seeded straight into local D1.
import { d1, seedRuns, stateDirOf } from '../local-d1.mjs';
import { interleaved, quantile, record } from '../interleaved.mjs';

export default async function retention(b) {
  const u = await b.makeUser();
  const auth = { Authorization: `Bearer ${u.token}` };
  const stateDir = stateDirOf(new URL(b.base).port);
  const ok = async (method, path, init = {}) => {
    const r = await b.http(method, path, { token: u.token, ...init });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r;
  };
  const status = async () => (await b.http('GET', '/v1/ops/retention', { token: b.ops })).json();

  /** Ticks until a tick removes nothing; each tick's sweep time (the sweep's own record) and wall time. */
  const sweep = async (label) => {
    const sweepMs = [];
    const wallMs = [];
    const rows = [];
    for (let i = 0; i < 1000; i++) {
      const t = performance.now();
      const r = await b.http('GET', '/__scheduled?cron=*+*+*+*+*');
      await r.arrayBuffer();
      wallMs.push(performance.now() - t);
      const last = (await status()).last_sweep;
      const removed = Object.values(last?.removed ?? {}).reduce((a, n) => a + n, 0);
      if (!removed) break;
      sweepMs.push(last.duration_ms);
      rows.push(removed);
    }
    const s = await status();
    const pct = (xs, q) => [...xs].sort((a, c) => a - c)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
    const row = {
      name: `retention: sweep tick, ${label}`,
      rps: '',
      p50_ms: pct(sweepMs, 0.5),
      p99_ms: Math.max(0, ...sweepMs),
      errors: 0,
      ratio: '',
      target: `target: every tick <= ${s.settings.tick_ms} ms and <= ${s.settings.tick_rows} rows`,
    };
    b.results.push(row);
    console.log(
      `${row.name.padEnd(48)} ${sweepMs.length} ticks, sweep p50 ${row.p50_ms} ms max ${row.p99_ms} ms, ` +
        `rows/tick max ${Math.max(0, ...rows)}, wall per tick p50 ${pct(wallMs, 0.5).toFixed(0)} ms ` +
        `max ${Math.max(...wallMs).toFixed(0)} ms  ${row.target}`,
    );
    return s;
  };

  // 1. A table of 200,000 rows past retention: one document's log, every line older than 90 days.
  await ok('PUT', '/v1/vis/docs/logbook');
  d1(
    stateDir,
    `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 200000)
     INSERT INTO resource_log (resource_id, log_time, severity, message)
     SELECT r.id, strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || n || ' seconds'), 'info', 'line ' || n
     FROM seq, resources r JOIN users u ON u.id = r.owner_id WHERE u.username = '${u.username}' AND r.name = 'logbook'`,
  );
  const logs = await sweep('resource_log, 200,000 rows');
  console.log(`retention: resource_log left ${logs.rows.resource_log} rows (the newest 1,000 of the document stay)`);

  // 2. 100,000 runs of one job over 100 days, all older than 90 days: GET runs and stats/runs before and after.
  await ok('PUT', '/v1/code/jobs/history');
  seedRuns(stateDir, u.username, 'history', 100_000, { perDay: 1000 });
  const statsRuns = async () => {
    const r = await ok('GET', '/v1/code/jobs/history/stats/runs');
    return r.text();
  };
  /** Runs stats/runs reports: one per listed run, plus the `runs` of each rolled-up day. */
  const counted = async () => {
    const r = await ok('GET', '/v1/code/jobs/history/stats/runs', { headers: { Accept: 'application/json' } });
    return (await r.json()).reduce((n, e) => n + (e.rolled_up ? e.runs : 1), 0);
  };
  const before = await b.measure('retention: GET runs, 100,000 runs (before sweep)', '/v1/code/jobs/history/runs', {
    headers: auth,
  });
  const statsBefore = await b.time('retention: GET stats/runs, 100,000 runs (before)', statsRuns, 5);
  const countedBefore = await counted();
  const runs = await sweep('job_runs, 100,000 runs rolled up');
  const after = await b.measure('retention: GET runs, 100 runs + rollup (after sweep)', '/v1/code/jobs/history/runs', {
    headers: auth,
    target: 'target: within 1.5x of before',
  });
  const statsAfter = await b.time(
    'retention: GET stats/runs, 100 runs + rollup (after)',
    statsRuns,
    5,
    'target: within 1.5x of before',
  );
  const countedAfter = await counted();
  // The newest run (in D1) and the oldest (archived in R2 by the sweep: seedRuns names run n by its start).
  const live = (await (await ok('GET', '/v1/code/jobs/history/runs?limit=1')).json())[0].name;
  const archived = '20250101-000100-history0000001';
  const statusOf = (name, job = 'history') => ({
    method: 'GET',
    path: `/v1/code/jobs/${job}/runs/${name}/status`,
    headers: auth,
  });
  await b.measure('retention: GET status of an archived run', statusOf(archived).path, { headers: auth });
  const [liveLat, archivedLat] = await interleaved(b, [statusOf(live), statusOf(archived)], 200);
  record(b, 'retention: GET status of a live run, interleaved x200', liveLat);
  record(
    b,
    'retention: GET status of an archived run, interleaved x200',
    archivedLat,
    'target: within 2x of a live run',
  );
  const statusRatio = quantile(archivedLat, 0.5) / quantile(liveLat, 0.5);
  console.log(
    `retention: archived / live run status p50 = ${quantile(archivedLat, 0.5).toFixed(2)} / ${quantile(liveLat, 0.5).toFixed(2)} ms = ${statusRatio.toFixed(2)} (target <= 2) ${statusRatio <= 2 ? 'OK' : 'MISSED'}`,
  );
  console.log(
    `retention: job_runs left ${runs.rows.job_runs}, job_run_days ${runs.rows.job_run_days}; ` +
      `GET runs p50 after/before ${(after.p50_ms / before.p50_ms).toFixed(2)}x; ` +
      `stats/runs p50 after/before ${(statsAfter.p50_ms / statsBefore.p50_ms).toFixed(2)}x; ` +
      `stats/runs counts ${countedBefore} before, ${countedAfter} after`,
  );

  // 3. A busy job's day: 20,000 runs named the same day, archived batch by batch into that day.
  await ok('PUT', '/v1/code/jobs/busyday');
  seedRuns(stateDir, u.username, 'busyday', 20_000);
  const busy = await sweep('job_runs, 20,000 runs of one day');
  const busyStatus = statusOf('20250101-000100-busyday0000001', 'busyday');
  await b.measure('retention: GET status of a run archived in a busy day', busyStatus.path, {
    headers: auth,
    target: 'compare: the archived run of a 1,000-run day above',
  });
  console.log(`retention: busy day left job_runs ${busy.rows.job_runs}`);
}
