/** POST `<job>/data`: the trigger of a run by the API; answers the run's output when it ends. */
import * as z from 'zod';
import { HttpError } from '../core/errors';
import { noContent, USER_BYTES_HEADERS } from '../core/http';
import type { ResourceRoutes } from '../core/resource';
import { bundleResponse, checkTriggerType, INPUT_LIMIT, readTriggerInput } from './files';
import { launchRun, rejectRun, startRun } from './trigger';
import type { RunOutcome } from './run/machine';

const SOURCE = /^[a-z0-9][a-z0-9._-]{0,31}$/;

/** Who triggered: `source` query parameter or X-Source header (cli, webpage, ...), else `api`. */
function sourceOf(req: Request, url: URL): string {
  const s = (url.searchParams.get('source') ?? req.headers.get('X-Source') ?? 'api').toLowerCase();
  return SOURCE.test(s) ? s : 'api';
}

export function triggerRoutes(r: ResourceRoutes): void {
  r.post('/data', {
    summary:
      'Trigger a run: JSON (input.json) or multipart files; answers the result when the run ends, or 202 at once with `Prefer: respond-async`',
    need: 'r',
    // A retry with the first request's Idempotency-Key answers that run again (its input is read whole: the limit).
    idempotent: { bodyLimit: INPUT_LIMIT },
    body: {
      type: 'application/json',
      description: 'A JSON document (stored as input.json), or multipart/form-data files',
      schema: () =>
        z
          .unknown()
          .describe('any JSON value: the run input, stored as input.json')
          .meta({ example: { city: 'Utrecht', days: 7 } }),
    },
    responses: {
      200: {
        description: 'The output: a single file as it is, several as one zip (X-Run-Id names the run)',
        type: 'application/octet-stream',
      },
      202: {
        description:
          'With `Prefer: respond-async`: the run started; `{run, status, location}`, Location its status (X-Run-Id names it)',
        type: 'application/json',
        schema: () =>
          z
            .object({
              run: z.string().describe('The run (also X-Run-Id)'),
              status: z.literal('processing'),
              location: z.string().describe("The run's status, to poll (also Location)"),
            })
            .meta({
              id: 'Run',
              description: 'A run just started: its name, its status, and where to poll that status',
              example: {
                run: '20251002-093000-8f1c2a7b',
                status: 'processing',
                location: '/v1/code/jobs/nightly/runs/20251002-093000-8f1c2a7b/status',
              },
            }),
      },
      204: { description: 'The run succeeded without output' },
      400: { description: 'Empty or non-JSON body' },
      415: { description: 'A Content-Type other than application/json or multipart/form-data (no run is recorded)' },
      403: { description: 'No execute access (a rejected run is recorded)' },
      // The error body names the run (`run`, also X-Run-Id).
      409: { description: 'The run was canceled (`run` names it)' },
      502: { description: 'The run failed (`run` names it: see its status and log)' },
    },
    handler: async (rc) => {
      const caller = rc.caller!;
      const source = sourceOf(rc.req, rc.url);
      // A body of another type starts nothing, not even a rejected run.
      checkTriggerType(rc.req);
      if (!rc.access.x) {
        const run = await rejectRun(
          rc.env,
          { job: rc.resource, trigger: 'api', source, createdBy: caller.username, req: rc.req },
          `${caller.username} may not execute this job`,
        );
        throw new HttpError(
          403,
          'you may not execute this job (a rejected run was recorded)',
          { run },
          { 'X-Run-Id': run },
        );
      }
      const input = await readTriggerInput(rc.req);
      const spec = {
        job: rc.resource,
        trigger: 'api',
        source,
        createdBy: caller.username,
        callerId: caller.id,
        input,
        req: rc.req,
      } as const;
      if (respondAsync(rc.req)) {
        const { name, ended } = await launchRun(rc.env, spec);
        if (!ended) {
          const location = `${rc.base}/runs/${name}/status`;
          return Response.json(
            { run: name, status: 'processing', location },
            { status: 202, headers: { 'X-Run-Id': name, Location: location, 'Preference-Applied': 'respond-async' } },
          );
        }
        return outcomeResponse(ended, rc.base);
      }
      return outcomeResponse(await startRun(rc.env, spec), rc.base);
    },
  });
}

/** `Prefer: respond-async` (RFC 7240): answer 202 once the run exists, not when it ends. */
const respondAsync = (req: Request) =>
  (req.headers.get('Prefer') ?? '')
    .split(',')
    .some((p) => p.trim().split(/[;=]/)[0]!.trim().toLowerCase() === 'respond-async');

/** The answer of a run that ended (of the job at `base`): its output, or the 409/502 naming it and its log. */
function outcomeResponse(out: RunOutcome, base: string): Response {
  const headers = { 'X-Run-Id': out.name };
  const log = `${base}/runs/${out.name}/log`;
  if (out.status === 'canceled') throw new HttpError(409, 'the run was canceled', { run: out.name }, headers);
  if (out.status === 'failed')
    throw new HttpError(502, `the run failed: read its log, GET ${log}`, { run: out.name, log }, headers);
  return out.bundle ? bundleResponse(out.bundle, { ...headers, ...USER_BYTES_HEADERS }) : noContent(headers);
}
