/** A job's configuration as a run needs it, read in one batch. */
import { eq } from 'drizzle-orm';
import type { Db } from '../core/context';
import { readEntries } from '../core/entries';
import { parseChains, type ChainStep } from './chains';
import { jobMeta } from './schema';

export const FALSY = new Set(['no', 'n', 'nope', 'false', 'f', 'off', '0']);
export const TRUTHY = new Set(['yes', 'y', 'true', 't', 'on', '1']);

/** config/enabled and config/network values: the falsy words read false. */
export function isTruthy(value: string | undefined, dflt: boolean): boolean {
  if (value === undefined) return dflt;
  const v = value.trim().toLowerCase();
  return v === '' ? dflt : !FALSY.has(v);
}

export function booleanProblem(value: string): string | void {
  const v = value.trim().toLowerCase();
  if (!TRUTHY.has(v) && !FALSY.has(v)) return `expected true or false (or ${[...TRUTHY, ...FALSY].join(', ')})`;
}

export interface JobConfig {
  chains: ChainStep[];
  env: Record<string, string>;
  network: boolean;
  enabled: boolean;
  schedule: string;
  codeVersion: string;
  failures: number;
}

export async function jobConfig(env: Env, db: Db, jobId: number): Promise<JobConfig> {
  const [entries, meta] = await Promise.all([readEntries(env, db, jobId, 'config/'), db.select().from(jobMeta).where(eq(jobMeta.job_id, jobId)).get()]);
  const vars: Record<string, string> = {};
  for (const [path, value] of entries) if (path.startsWith('config/env/')) vars[path.slice('config/env/'.length)] = value;
  return {
    // Stored chains were validated on write; a stale grammar error surfaces as a failed run.
    chains: parseChains(entries.get('config/chains') ?? ''),
    env: vars,
    network: isTruthy(entries.get('config/network'), false),
    enabled: isTruthy(entries.get('config/enabled'), true),
    schedule: entries.get('config/schedule') ?? '',
    codeVersion: meta?.code_version ?? '',
    failures: meta?.failures ?? 0,
  };
}
