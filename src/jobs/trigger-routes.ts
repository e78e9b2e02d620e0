/** POST `<job>/data`: the trigger of a run by the API; answers the run's output when it ends. */
import { z } from 'zod';
import { HttpError } from '../core/errors';
import { noContent, USER_BYTES_HEADERS } from '../core/http';
import type { ResourceRoutes } from '../core/resource';
import { bundleResponse, checkTriggerType, readTriggerInput } from './files';
import { rejectRun, startRun } from './trigger';

const SOURCE = /^[a-z0-9][a-z0-9._-]{0,31}$/;

/** Who triggered: `source` query parameter or X-Source header (cli, webpage, ...), else `api`. */
function sourceOf(req: Request, url: URL): string {
  const s = (url.searchParams.get('source') ?? req.headers.get('X-Source') ?? 'api').toLowerCase();
  return SOURCE.test(s) ? s : 'api';
}

export function triggerRoutes(r: ResourceRoutes): void {
  r.post('/data', {
    summary: 'Trigger a run: JSON (input.json) or multipart files; answers the result when the run ends',
    need: 'r',
    body: {
      type: 'application/json',
      description: 'A JSON document (stored as input.json), or multipart/form-data files',
      schema: z.unknown().describe('any JSON value: the run input, stored as input.json'),
    },
    responses: {
      200: {
        description: 'The output: a single file as it is, several as one zip (X-Run-Id names the run)',
        type: 'application/octet-stream',
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
      const out = await startRun(rc.env, {
        job: rc.resource,
        trigger: 'api',
        source,
        createdBy: caller.username,
        callerId: caller.id,
        input,
        req: rc.req,
      });
      const headers = { 'X-Run-Id': out.name };
      if (out.status === 'canceled') throw new HttpError(409, 'the run was canceled', { run: out.name }, headers);
      if (out.status === 'failed')
        throw new HttpError(502, 'the run failed: read its status and log', { run: out.name }, headers);
      return out.bundle ? bundleResponse(out.bundle, { ...headers, ...USER_BYTES_HEADERS }) : noContent(headers);
    },
  });
}
