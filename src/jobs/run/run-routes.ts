/**
 * The runs of a job: `runs/` (the 30 most recent), one run's entries (`runs/<run>/`:
 * status and its cancel, stats, log, output) and `log`, the latest run's log.
 */
import { eq } from 'drizzle-orm';
import * as z from 'zod';
import type { Api, Scope } from '../../core/api';
import { now } from '../../core/clock';
import { conflict, HttpError } from '../../core/errors';
import { jsonResponse, noContent, readText, textResponse, USER_BYTES_HEADERS, wantsJson } from '../../core/http';
import { listingResponse, listingResponses } from '../../core/listing';
import { formatLogText, logResponse } from '../../core/log';
import { text } from '../../core/examples';
import { pageRequest } from '../../core/paging';
import type { Perm } from '../../core/perms';
import { listingItem, requireAccess, type ResourceCtx, type ResourceRoutes } from '../../core/resource';
import { resources } from '../../db/schema';
import { bundleResponse } from '../files';
import { jobKind } from '../kind';
import { loadRunCtx, requireRunReader, type RunCtx } from './access';
import { logStreamResponse } from './log';
import { readOutput } from './output';
import { isExpired, latestRun, recentRuns, RUNS_KEY, RUNS_PAGE, runStats, statsText } from './reads';
import { RUN_STATUSES, type RunRow } from '../schema';
import { runStub } from './stub';
import { once } from '../../core/once';

export type RunRoutes = Scope<RunCtx, { need: Perm }>;

/** The text status of a run (GET runs/<run>/status). */
const runStatus = once(() =>
  z.enum(RUN_STATUSES).meta({ id: 'RunStatus', description: 'The state of a run (text/plain)', example: 'success' }),
);

/** The examples of a run's stats and log, as their formatters write them. */
const runStatsExample = once(() =>
  statsText({
    name: '20251002-093000-8f1c2a7b',
    shortname: 'k3x9q2vd',
    status: 'success',
    origin: 'nightly',
    origin_shortname: 'p7m2vd4a',
    started_on: '2025-10-02T09:30:00.118Z',
    completed_on: '2025-10-02T09:30:04.902Z',
    duration: 4.784,
    trigger: 'schedule',
    source: 'cron',
    has_output: true,
    created_by: 'alice',
    children: [],
  }),
);
const runLogExample = once(() =>
  formatLogText([
    { log_time: '2025-10-02T09:30:00.118Z', severity: 'info', message: 'run started (schedule)' },
    { log_time: '2025-10-02T09:30:03.201Z', severity: 'info', message: 'fetched 120 rows' },
    { log_time: '2025-10-02T09:30:04.902Z', severity: 'info', message: 'run succeeded: output report.csv' },
  ]),
);

/**
 * The routes of one run (`<job>/runs/<run>...`): loaded by loadRunCtx, so a child run is also readable under its own
 * job.
 */
export function runRouter(api: Api): RunRoutes {
  return api.scope<RunCtx, { need: Perm }>({
    prefixes: [
      `/v1/${jobKind.collection}/:${jobKind.param}/runs/:run`,
      `/v1/users/:owner/${jobKind.collection}/:${jobKind.param}/runs/:run`,
    ],
    tag: jobKind.collection,
    enter: async (ctx, spec) => {
      const rc = await loadRunCtx(ctx);
      requireAccess(rc, spec.need);
      return rc;
    },
  });
}

function requireRetained(row: RunRow): void {
  if (isExpired(row, now()))
    throw new HttpError(410, `the log and output of run ${row.name} are gone: they are kept 30 days`);
}

export function runRoutes(r: ResourceRoutes, runs: RunRoutes): void {
  r.get('/runs', {
    summary: 'The runs, newest first: the 30 most recent, older ones by ?limit and ?cursor (the Link header)',
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      requireRunReader(rc);
      const { items, next } = await recentRuns(
        rc.db,
        rc.env.BLOBS,
        rc.resource.id,
        pageRequest(rc.url, RUNS_KEY, RUNS_PAGE),
      );
      const actions = rc.access.x ? (['GET', 'POST'] as const) : (['GET'] as const);
      return listingResponse(rc.url, {
        next,
        items: items.map((x) =>
          listingItem(
            rc,
            x.name,
            `${rc.base}/runs/${x.name}`,
            'dir',
            [...actions],
            x.started_on,
            x.completed_on ?? x.started_on,
          ),
        ),
      });
    },
  });
  runs.get('', {
    summary: 'The four entries of a run: log, output, stats, status',
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const row = rc.run;
      const at = `${rc.base}/runs/${row.name}`;
      const modified = row.completed_on ?? row.started_on;
      return listingResponse(rc.url, [
        listingItem(rc, 'log', `${at}/log`, 'file', ['GET'], row.started_on, modified),
        listingItem(rc, 'output', `${at}/output`, 'file', ['GET'], row.started_on, modified),
        listingItem(rc, 'stats', `${at}/stats`, 'file', ['GET'], row.started_on, modified),
        listingItem(
          rc,
          'status',
          `${at}/status`,
          'file',
          rc.access.x ? ['GET', 'POST'] : ['GET'],
          row.started_on,
          modified,
        ),
      ]);
    },
  });
  runs.get('/status', {
    summary: 'The run state: rejected, processing, canceling, success, failed or canceled',
    need: 'r',
    responses: { 200: { description: 'The state', type: 'text/plain', schema: runStatus } },
    handler: async (rc) => textResponse(rc.run.status),
  });
  runs.post('/status', {
    summary: 'Cancel a run: text/plain canceled (202; 200 while pending; 409 once finished)',
    need: 'x',
    body: { type: 'text/plain', description: 'canceled', schema: () => z.enum(['canceled']) },
    responses: {
      200: { description: 'Cancel already pending' },
      202: { description: 'Cancel accepted; the run is being torn down' },
      400: { description: 'Body other than canceled' },
      409: {
        description:
          "The run already finished (the body's status is the final run status, also as final_status), or a child run",
      },
    },
    handler: async (rc) => {
      const row = rc.run;
      const body = await readText(rc.req, 64);
      if (body.trim() !== 'canceled')
        throw new HttpError(400, `the only status a client may write is 'canceled', got '${body.slice(0, 32)}'`);
      if (!row.top)
        throw conflict(`run ${row.name}: a nested child run cannot be canceled alone; cancel its top-level run`, {
          run: row.name,
        });
      const answer = await runStub(rc.env, row.name).cancel(rc.caller!.username);
      if (answer.code === 404)
        throw conflict(`run ${row.name} has ended`, { status: row.status, final_status: row.status, run: row.name });
      if (answer.code === 409)
        throw conflict(`run ${row.name} already finished: ${answer.status}`, {
          status: answer.status,
          final_status: answer.status,
          run: row.name,
        });
      return jsonResponse(
        {
          status: answer.code,
          message: answer.code === 202 ? 'cancel accepted: the run is being torn down' : 'cancel already pending',
          run: row.name,
          run_status: answer.status,
        },
        { status: answer.code },
      );
    },
  });
  runs.get('/stats', {
    summary: 'Run stats: text key: value, or JSON with Accept: application/json',
    need: 'r',
    responses: { 200: { description: 'Stats', type: 'text/plain', schema: () => text(runStatsExample()) } },
    handler: async (rc) => {
      const row = rc.run;
      const job = row.job_id === rc.resource.id ? rc.resource : await jobOf(rc, row.job_id);
      const stats = await runStats(rc.db, row, job, rc.archivedChildren);
      return wantsJson(rc.req) ? jsonResponse(stats, { nvmType: 'file' }) : textResponse(statsText(stats));
    },
  });
  runs.get('/log', {
    summary: 'Run log: text, JSON entries (Accept: application/json), or a live tail (Accept: text/event-stream)',
    need: 'r',
    responses: {
      200: { description: 'Log', type: 'text/plain', schema: () => text(runLogExample()) },
      410: { description: 'Past the 30-day retention' },
    },
    handler: async (rc) => {
      const row = rc.run;
      requireRetained(row);
      return runLogResponse(rc, row);
    },
  });
  runs.get('/output', {
    summary: 'The run output with its original filename and content type (204 without output)',
    need: 'r',
    responses: {
      200: { description: 'The output', type: 'application/octet-stream' },
      204: { description: 'No output' },
      410: { description: 'Past the 30-day retention' },
    },
    handler: async (rc) => {
      const row = rc.run;
      requireRetained(row);
      if (!row.output_name) return noContent({ 'X-Run-Id': row.name });
      const data = await readOutput(rc.env, row);
      if (!data) throw new HttpError(410, `the output of run ${row.name} is gone`);
      return bundleResponse(
        { filename: row.output_name, type: row.output_type ?? 'application/octet-stream', data },
        { 'X-Run-Id': row.name, ...USER_BYTES_HEADERS },
      );
    },
  });
  r.get('/log', {
    summary: "The latest run's log, same formats as a run log",
    need: 'r',
    responses: {
      200: { description: 'Log (empty without runs)', type: 'text/plain', schema: () => text(runLogExample()) },
      410: { description: 'Past the 30-day retention' },
    },
    handler: async (rc) => {
      requireRunReader(rc);
      const row = await latestRun(rc.db, rc.resource.id);
      if (!row) return logResponse(rc.req, []);
      requireRetained(row);
      return runLogResponse(rc, row);
    },
  });
}

async function jobOf(rc: ResourceCtx, jobId: number): Promise<{ name: string; shortname: string }> {
  const row = await rc.db
    .select({ name: resources.name, shortname: resources.shortname })
    .from(resources)
    .where(eq(resources.id, jobId))
    .get();
  return row ?? { name: '', shortname: '' };
}

async function runLogResponse(rc: ResourceCtx, row: RunRow): Promise<Response> {
  const stub = runStub(rc.env, row.name);
  if ((rc.req.headers.get('Accept') ?? '').includes('text/event-stream')) {
    const stream = await stub.liveLog();
    return new Response(stream, {
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-NVM-Type': 'file' },
    });
  }
  return logStreamResponse(rc.req, (after) => stub.readLog(after));
}
