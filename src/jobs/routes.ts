/**
 * Routes of the jobs area: the job resource (common routes from resourceRoutes), its
 * code files and write-only env values, the data trigger, runs, logs, stats and history.
 */
import { and, eq, like } from 'drizzle-orm';
import { z } from 'zod';
import type { Api, Scope } from '../core/api';
import { now } from '../core/clock';
import { sha256Hex } from '../core/crypto';
import { clearEntry, writeEntry } from '../core/entries';
import { entries, resources } from '../db/schema';
import { conflict, forbidden, HttpError, notFound } from '../core/errors';
import { jsonResponse, KiB, MiB, noContent, readBytes, readText, textResponse, wantsJson } from '../core/http';
import { listingResponse, listingResponses } from '../core/listing';
import { logResponse } from '../core/log';
import { checkName } from '../core/names';
import { fixedFolderRoute, listingItem, requireAccess, resourceRoutes, type ResourceCtx } from '../core/resource';
import type { Perm } from '../core/perms';
import { INLINE_OUTPUT, outputKey } from './run-output';
import { bundleResponse, checkTriggerType, readTriggerInput } from './files';
import { jobKind } from './kind';
import { historyStream, isExpired, latestRun, recentRuns, runStats, statsText } from './runs';
import { loadRunCtx, type RunCtx } from './run-access';
import { CODE_FILE, codePrefix, MAX_CODE_FILES } from './sandbox';
import { jobMeta, type RunRow } from './schema';
import { rejectRun, runStub, startRun } from './trigger';

export { jobKind };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_ENV = 64;
const CODE_LIMIT = 1 * MiB;
const SOURCE = /^[a-z0-9][a-z0-9._-]{0,31}$/;

const runErrorBody = z.object({ status: z.number(), message: z.string(), run: z.string() });

/** Runs are never public: read access that comes only from a public share does not show them. */
function requireRunReader(rc: ResourceCtx): void {
  if (rc.access.viaPublicOnly) throw forbidden('runs, logs and outputs of a job are never public: they need a share or ownership');
}

/** The routes of one run (`<job>/runs/<run>...`): loaded by loadRunCtx, so a child run is also readable under its own job. */
function runRouter(api: Api): Scope<RunCtx, { need: Perm }> {
  return api.scope<RunCtx, { need: Perm }>({
    prefixes: [`/v1/${jobKind.collection}/:${jobKind.param}/runs/:run`, `/v1/users/:owner/${jobKind.collection}/:${jobKind.param}/runs/:run`],
    tag: jobKind.collection,
    enter: async (ctx, spec) => {
      const rc = await loadRunCtx(ctx);
      requireAccess(rc, spec.need);
      return rc;
    },
  });
}

function requireRetained(row: RunRow): void {
  if (isExpired(row, now())) throw new HttpError(410, `the log and output of run ${row.name} are gone: they are kept 30 days`);
}

/** Who triggered: `source` query parameter or X-Source header (cli, webpage, ...), else `api`. */
function sourceOf(req: Request, url: URL): string {
  const s = (url.searchParams.get('source') ?? req.headers.get('X-Source') ?? 'api').toLowerCase();
  return SOURCE.test(s) ? s : 'api';
}

/**
 * The code version names the job's sandbox isolate: a hash of its code files (name, etag,
 * size), so uploading identical code again keeps the warm isolate instead of making another
 * (local workerd never evicts Worker Loader isolates; in production, same code, same isolate).
 */
async function bumpCodeVersion(rc: ResourceCtx): Promise<void> {
  const listed = await rc.env.BLOBS.list({ prefix: codePrefix(rc.resource.id), limit: MAX_CODE_FILES });
  const files = listed.objects.map((o) => `${o.key}\t${o.etag}\t${o.size}`).sort();
  const version = (await sha256Hex(files.join('\n'))).slice(0, 20);
  await rc.db.insert(jobMeta).values({ job_id: rc.resource.id, code_version: version }).onConflictDoUpdate({ target: jobMeta.job_id, set: { code_version: version } });
}

export function jobRoutes(api: Api): void {
  const runs = runRouter(api);
  resourceRoutes(api, jobKind, (r) => {
    // ---- the trigger ----
    r.post('/data', {
      summary: 'Trigger a run: JSON (input.json) or multipart files; answers the result when the run ends',
      need: 'r',
      body: {
        type: 'application/json',
        description: 'A JSON document (stored as input.json), or multipart/form-data files',
        schema: z.unknown().describe('any JSON value: the run input, stored as input.json'),
      },
      responses: {
        200: { description: 'The output: a single file as it is, several as one zip (X-Run-Id names the run)', type: 'application/octet-stream' },
        204: { description: 'The run succeeded without output' },
        400: { description: 'Empty or non-JSON body' },
        415: { description: 'A Content-Type other than application/json or multipart/form-data (no run is recorded)' },
        403: { description: 'No execute access (a rejected run is recorded)' },
        409: { description: 'The run was canceled', type: 'application/json', schema: runErrorBody },
        502: { description: 'The run failed (see its status and log)', type: 'application/json', schema: runErrorBody },
      },
      handler: async (rc) => {
        const caller = rc.caller!;
        const source = sourceOf(rc.req, rc.url);
        // A body of another type starts nothing, not even a rejected run.
        checkTriggerType(rc.req);
        if (!rc.access.x) {
          const run = await rejectRun(rc.env, { job: rc.resource, trigger: 'api', source, createdBy: caller.username, req: rc.req }, `${caller.username} may not execute this job`);
          throw new HttpError(403, 'you may not execute this job (a rejected run was recorded)', { run }, { 'X-Run-Id': run });
        }
        const input = await readTriggerInput(rc.req);
        const out = await startRun(rc.env, { job: rc.resource, trigger: 'api', source, createdBy: caller.username, callerId: caller.id, input, req: rc.req });
        const headers = { 'X-Run-Id': out.name };
        if (out.status === 'canceled') throw new HttpError(409, 'the run was canceled', { run: out.name }, headers);
        if (out.status === 'failed') throw new HttpError(502, 'the run failed: read its status and log', { run: out.name }, headers);
        return out.bundle ? bundleResponse(out.bundle, headers) : noContent(headers);
      },
    });

    // ---- runs ----
    r.get('/runs', {
      summary: 'The 30 most recent runs, newest first',
      need: 'r',
      responses: listingResponses,
      handler: async (rc) => {
        requireRunReader(rc);
        const rows = await recentRuns(rc.db, rc.resource.id);
        const actions = rc.access.x ? (['GET', 'POST'] as const) : (['GET'] as const);
        return listingResponse(rows.map((x) => listingItem(rc, x.name, `${rc.base}/runs/${x.name}`, 'dir', [...actions], x.started_on, x.completed_on ?? x.started_on)));
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
        return listingResponse([
          listingItem(rc, 'log', `${at}/log`, 'file', ['GET'], row.started_on, modified),
          listingItem(rc, 'output', `${at}/output`, 'file', ['GET'], row.started_on, modified),
          listingItem(rc, 'stats', `${at}/stats`, 'file', ['GET'], row.started_on, modified),
          listingItem(rc, 'status', `${at}/status`, 'file', rc.access.x ? ['GET', 'POST'] : ['GET'], row.started_on, modified),
        ]);
      },
    });
    runs.get('/status', {
      summary: 'The run state: rejected, processing, canceling, success, failed or canceled',
      need: 'r',
      responses: { 200: { description: 'The state', type: 'text/plain' } },
      handler: async (rc) => textResponse(rc.run.status),
    });
    runs.post('/status', {
      summary: 'Cancel a run: text/plain canceled (202; 200 while pending; 409 once finished)',
      need: 'x',
      body: { type: 'text/plain', description: 'canceled' },
      responses: {
        200: { description: 'Cancel already pending' },
        202: { description: 'Cancel accepted; the run is being torn down' },
        400: { description: 'Body other than canceled' },
        409: { description: 'The run already finished (the body\'s status is the final run status, also as final_status), or a child run' },
      },
      handler: async (rc) => {
        const row = rc.run;
        const body = await readText(rc.req, 64);
        if (body.trim() !== 'canceled') throw new HttpError(400, `the only status a client may write is 'canceled', got '${body.slice(0, 32)}'`);
        if (!row.top) throw conflict(`run ${row.name}: a nested child run cannot be canceled alone; cancel its top-level run`, { run: row.name });
        const answer = await runStub(rc.env, row.name).cancel(rc.caller!.username);
        if (answer.code === 404) throw conflict(`run ${row.name} has ended`, { status: row.status, final_status: row.status, run: row.name });
        if (answer.code === 409) throw conflict(`run ${row.name} already finished: ${answer.status}`, { status: answer.status, final_status: answer.status, run: row.name });
        return jsonResponse({ status: answer.code, message: answer.code === 202 ? 'cancel accepted: the run is being torn down' : 'cancel already pending', run: row.name, run_status: answer.status }, { status: answer.code });
      },
    });
    runs.get('/stats', {
      summary: 'Run stats: text key: value, or JSON with Accept: application/json',
      need: 'r',
      responses: { 200: { description: 'Stats', type: 'text/plain' } },
      handler: async (rc) => {
        const row = rc.run;
        const job = row.job_id === rc.resource.id ? rc.resource : await jobOf(rc, row.job_id);
        const stats = await runStats(rc.db, row, job);
        return wantsJson(rc.req) ? jsonResponse(stats, { nvmType: 'file' }) : textResponse(statsText(stats));
      },
    });
    runs.get('/log', {
      summary: 'Run log: text, JSON entries (Accept: application/json), or a live tail (Accept: text/event-stream)',
      need: 'r',
      responses: { 200: { description: 'Log', type: 'text/plain' }, 410: { description: 'Past the 30-day retention' } },
      handler: async (rc) => {
        const row = rc.run;
        requireRetained(row);
        return runLogResponse(rc, row);
      },
    });
    runs.get('/output', {
      summary: 'The run output with its original filename and content type (204 without output)',
      need: 'r',
      responses: { 200: { description: 'The output', type: 'application/octet-stream' }, 204: { description: 'No output' }, 410: { description: 'Past the 30-day retention' } },
      handler: async (rc) => {
        const row = rc.run;
        requireRetained(row);
        if (!row.output_name) return noContent({ 'X-Run-Id': row.name });
        const data =
          (row.output_size ?? 0) <= INLINE_OUTPUT
            ? ((await runStub(rc.env, row.name).output()) as ArrayBuffer | null)
            : ((await (await rc.env.BLOBS.get(outputKey(row.job_id, row.name)))?.arrayBuffer()) ?? null);
        if (!data) throw new HttpError(410, `the output of run ${row.name} is gone`);
        return bundleResponse({ filename: row.output_name, type: row.output_type ?? 'application/octet-stream', data }, { 'X-Run-Id': row.name });
      },
    });
    r.get('/log', {
      summary: "The latest run's log, same formats as a run log",
      need: 'r',
      responses: { 200: { description: 'Log (empty without runs)', type: 'text/plain' }, 410: { description: 'Past the 30-day retention' } },
      handler: async (rc) => {
        requireRunReader(rc);
        const row = await latestRun(rc.db, rc.resource.id);
        if (!row) return logResponse(rc.req, []);
        requireRetained(row);
        return runLogResponse(rc, row);
      },
    });
    fixedFolderRoute(r, 'stats', ['runs']);
    r.get('/stats/runs', {
      summary: 'Full run history (uncapped, streamed): text table, or JSON with Accept: application/json',
      need: 'r',
      responses: { 200: { description: 'History', type: 'text/plain' } },
      handler: async (rc) => {
        requireRunReader(rc);
        const json = wantsJson(rc.req);
        return new Response(historyStream(rc.db, rc.resource.id, json), {
          headers: { 'Content-Type': json ? 'application/json' : 'text/plain; charset=utf-8', 'X-NVM-Type': 'file' },
        });
      },
    });

    // ---- code files (R2) ----
    r.get('/code', {
      summary: "The job's code files",
      need: 'r',
      responses: listingResponses,
      handler: async (rc) => {
        const prefix = codePrefix(rc.resource.id);
        const listed = await rc.env.BLOBS.list({ prefix, include: ['customMetadata'] });
        const actions = rc.access.w ? (['GET', 'POST', 'DELETE'] as const) : (['GET'] as const);
        return listingResponse(
          listed.objects
            .map((o) => {
              const at = o.uploaded.toISOString();
              return listingItem(rc, o.key.slice(prefix.length), `${rc.base}/code/${o.key.slice(prefix.length)}`, 'file', [...actions], o.customMetadata?.created_on ?? at, at);
            })
            .sort((a, b) => a.name.localeCompare(b.name)),
        );
      },
    });
    r.get('/code/:file', {
      summary: 'A code file',
      need: 'r',
      responses: { 200: { description: 'The file', type: 'text/javascript' } },
      handler: async (rc) => {
        const obj = await rc.env.BLOBS.get(codePrefix(rc.resource.id) + checkName(rc.params.file!, CODE_FILE, 'code file name'));
        if (!obj) throw notFound(`no such code file: ${rc.params.file}`);
        return new Response(obj.body, { headers: { 'Content-Type': obj.httpMetadata?.contentType ?? 'application/octet-stream', 'X-NVM-Type': 'file' } });
      },
    });
    r.post('/code/:file', {
      summary: 'Create or replace a code file (raw body, at most 1 MiB; at most 32 files)',
      need: 'w',
      body: { type: 'text/javascript' },
      responses: { 204: { description: 'Stored' }, 400: { description: 'Bad file name' }, 413: { description: 'Too large' }, 409: { description: 'Too many files' } },
      handler: async (rc) => {
        const file = checkName(rc.params.file!, CODE_FILE, 'code file name');
        const key = codePrefix(rc.resource.id) + file;
        const bytes = await readBytes(rc.req, CODE_LIMIT, `a code file is limited to ${CODE_LIMIT} bytes`);
        const existing = await rc.env.BLOBS.head(key);
        if (!existing) {
          const listed = await rc.env.BLOBS.list({ prefix: codePrefix(rc.resource.id), limit: MAX_CODE_FILES });
          if (listed.objects.length >= MAX_CODE_FILES) throw conflict(`a job has at most ${MAX_CODE_FILES} code files`);
        }
        const type = rc.req.headers.get('Content-Type') || (/\.m?js$/.test(file) ? 'text/javascript' : 'application/octet-stream');
        await rc.env.BLOBS.put(key, bytes, {
          httpMetadata: { contentType: type },
          customMetadata: { created_on: existing?.customMetadata?.created_on ?? new Date(now()).toISOString() },
        });
        await bumpCodeVersion(rc);
        return noContent();
      },
    });
    r.delete('/code/:file', {
      summary: 'Remove a code file',
      need: 'w',
      responses: { 204: { description: 'Removed' } },
      handler: async (rc) => {
        const key = codePrefix(rc.resource.id) + checkName(rc.params.file!, CODE_FILE, 'code file name');
        if (!(await rc.env.BLOBS.head(key))) throw notFound(`no such code file: ${rc.params.file}`);
        await rc.env.BLOBS.delete(key);
        await bumpCodeVersion(rc);
        return noContent();
      },
    });

    // ---- write-only env values ----
    r.get('/config/env', {
      summary: 'Names of the env values (never the values)',
      need: 'r',
      responses: listingResponses,
      handler: async (rc) => {
        const rows = await envEntries(rc);
        const actions = rc.access.w ? (['POST', 'DELETE'] as const) : ([] as const);
        return listingResponse(rows.map((e) => listingItem(rc, e.path.slice(11), `${rc.base}/${e.path}`, 'file', [...actions], e.created_on, e.last_modified)));
      },
    });
    r.get('/config/env/:name', {
      summary: 'Env values are write-only (403)',
      need: 'r',
      responses: { 403: { description: 'Write-only' } },
      handler: async () => {
        throw forbidden('env values are write-only: GET config/env lists their names');
      },
    });
    r.post('/config/env/:name', {
      summary: 'Set an env value (text/plain; write-only)',
      need: 'w',
      body: { type: 'text/plain' },
      responses: { 204: { description: 'Set' } },
      handler: async (rc) => {
        const name = checkName(rc.params.name!, ENV_NAME, 'env name');
        const value = await readText(rc.req, 64 * KiB);
        const path = `config/env/${name}`;
        const count = await envEntries(rc);
        if (count.length >= MAX_ENV && !count.some((c) => c.path === path)) throw conflict(`a job has at most ${MAX_ENV} env values`);
        await writeEntry(rc.env, rc.db, rc.resource, path, value);
        return noContent();
      },
    });
    r.delete('/config/env/:name', {
      summary: 'Remove an env value',
      need: 'w',
      responses: { 204: { description: 'Removed' } },
      handler: async (rc) => {
        await clearEntry(rc.env, rc.db, rc.resource, `config/env/${rc.params.name!}`);
        return noContent();
      },
    });
  });
}

/** The stored env entries of a job (paths and times, never values). */
function envEntries(rc: ResourceCtx) {
  return rc.db
    .select({ path: entries.path, created_on: entries.created_on, last_modified: entries.last_modified })
    .from(entries)
    .where(and(eq(entries.resource_id, rc.resource.id), like(entries.path, 'config/env/%')));
}

async function jobOf(rc: ResourceCtx, jobId: number): Promise<{ name: string; shortname: string }> {
  const row = await rc.db.select({ name: resources.name, shortname: resources.shortname }).from(resources).where(eq(resources.id, jobId)).get();
  return row ?? { name: '', shortname: '' };
}

async function runLogResponse(rc: ResourceCtx, row: RunRow): Promise<Response> {
  const stub = runStub(rc.env, row.name);
  if ((rc.req.headers.get('Accept') ?? '').includes('text/event-stream')) {
    const stream = (await stub.liveLog()) as unknown as ReadableStream<Uint8Array>;
    return new Response(stream, { headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-NVM-Type': 'file' } });
  }
  return logResponse(rc.req, (await stub.readLog()) as unknown as { log_time: string; severity: string; message: string }[]);
}
