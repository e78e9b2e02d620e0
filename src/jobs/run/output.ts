/** Where a run's output lives: small ones in the run's own object, larger ones in R2 under the job's blob prefix. */
import { blobPrefix } from '../../core/entries';
import type { Bundle } from '../files';
import type { RunRow } from '../schema';
import { runStub } from './stub';

/** Outputs up to this size stay in the run object's storage; larger ones go to R2. */
export const INLINE_OUTPUT = 128 * 1024;

export const outputKey = (jobId: number, run: string) => `${blobPrefix(jobId)}runs/${run}/output`;

/** Stores an output too large for the run object (see INLINE_OUTPUT). */
export async function putLargeOutput(env: Env, jobId: number, run: string, out: Bundle): Promise<void> {
  await env.BLOBS.put(outputKey(jobId, run), out.data, {
    httpMetadata: { contentType: out.type },
    customMetadata: { filename: out.filename },
  });
}

/** The stored output of a run whose row names one; null once it is gone. */
export async function readOutput(env: Env, row: RunRow): Promise<ArrayBuffer | null> {
  return (row.output_size ?? 0) <= INLINE_OUTPUT
    ? await runStub(env, row.name).output()
    : ((await (await env.BLOBS.get(outputKey(row.job_id, row.name)))?.arrayBuffer()) ?? null);
}
