/**
 * An https:// chain step: the step's input goes out as multipart/form-data, the answer
 * comes back as the step's output files. The URL and every redirect hop pass the egress
 * check (core/egress.ts; the platform's own host included); at most
 * HTTPS_STEP_MAX_REDIRECTS redirects are followed, at most HTTPS_STEP_MAX_BYTES are read
 * from the answer, and the whole call has HTTPS_STEP_MS.
 */
import { platformHosts } from '../core/egress';
import { checkedFetch, EgressError } from '../core/egress-fetch';
import { HttpError } from '../core/errors';
import { MiB } from '../core/http';
import { filesFromResponse, formOf, STEP_ANSWER_LIMIT, type RunFile } from './files';
import type { StepResult } from './run/machine';

const HTTPS_STEP_MS = 60_000;
export const HTTPS_STEP_MAX_REDIRECTS = 5;
export const HTTPS_STEP_MAX_BYTES = STEP_ANSWER_LIMIT;

/** Runs the step; `abort` is the run's (a cancel, or a failed sibling branch): then the result is `aborted`. */
export async function httpsStep(env: Env, url: string, input: RunFile[], abort: AbortSignal): Promise<StepResult> {
  const signal = AbortSignal.any([abort, AbortSignal.timeout(HTTPS_STEP_MS)]);
  try {
    const res = await checkedFetch(
      url,
      { method: 'POST', body: () => formOf(input), signal },
      { ownHosts: platformHosts(env), maxRedirects: HTTPS_STEP_MAX_REDIRECTS, httpsOnly: true, env },
    );
    if (!res.ok) {
      await res.body?.cancel();
      return { kind: 'failed', message: `${url} answered ${res.status}` };
    }
    const tooBig = `${url} answered more than ${HTTPS_STEP_MAX_BYTES / MiB} MiB (the most an https step reads)`;
    return { kind: 'ok', files: await filesFromResponse(res, { maxBytes: HTTPS_STEP_MAX_BYTES, tooBig }) };
  } catch (err) {
    if (abort.aborted) return { kind: 'aborted', message: 'canceled' };
    if (err instanceof EgressError || err instanceof HttpError) return { kind: 'failed', message: err.message };
    return { kind: 'failed', message: `${url}: ${(err as Error).message}` };
  }
}
