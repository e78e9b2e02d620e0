/** A job's configuration as a run needs it, read in one batch. */
import { eq } from 'drizzle-orm';
import type { Db } from '../core/context';
import { entriesQuery, entryValues } from '../core/entries';
import { NO_WORDS, YES_WORDS, yesNo, yesNoWord } from '../core/yes-no';
import { parseChains, type ChainStep } from './chains';
import { jobMeta } from './schema';

/** config/enabled and config/network take only yes/no words (stored values are always one). */
export function booleanProblem(value: string): string | void {
  if (yesNoWord(value) === undefined) return `expected true or false (or ${[...YES_WORDS, ...NO_WORDS].join(', ')})`;
}

export interface JobConfig {
  chains: ChainStep[];
  /** Who wrote config/chains (null: the owner or the platform): the steps run with their rights too (job.chain). */
  chainWriter: number | null;
  env: Record<string, string>;
  network: boolean;
  enabled: boolean;
  schedule: string;
  codeVersion: string;
  failures: number;
}

export async function jobConfig(env: Env, db: Db, jobId: number): Promise<JobConfig> {
  const [rows, meta] = await Promise.all([
    entriesQuery(db, jobId, 'config/'),
    db.select().from(jobMeta).where(eq(jobMeta.job_id, jobId)).get(),
  ]);
  const entries = await entryValues(env, rows);
  const writer = (path: string) => rows.find((r) => r.path === path)?.written_by ?? null;
  const vars: Record<string, string> = {};
  for (const [path, value] of entries)
    if (path.startsWith('config/env/')) vars[path.slice('config/env/'.length)] = value;
  return {
    // Stored chains were validated on write; a stale grammar error surfaces as a failed run.
    chains: parseChains(entries.get('config/chains') ?? ''),
    chainWriter: writer('config/chains'),
    env: vars,
    network: yesNo(entries.get('config/network'), false),
    enabled: yesNo(entries.get('config/enabled'), true),
    schedule: entries.get('config/schedule') ?? '',
    codeVersion: meta?.code_version ?? '',
    failures: meta?.failures ?? 0,
  };
}
