/**
 * Who may run the job a chain step names (composition path `job.chain`). A run acts with
 * the authority of several users at once (who triggered it, the owner of every job whose
 * chain led to the step, whoever wrote those chains): the step runs only if each of them
 * may execute the job, decided by the core's composition check at the moment the step
 * starts. The same check guards a chain written by a grantee (the writer alone must be able
 * to execute every job it names: an early 400).
 */
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../core/context';
import { composedReads, NOBODY, type Reference, type Verdict } from '../core/resource';
import { users } from '../db/schema';
import type { ChainStep, StepRef } from './chains';

export type JobRef = Extract<StepRef, { kind: 'job' }>;

/** A job ref as written: `job` or `@user/job`. */
export const refText = (ref: JobRef): string => (ref.owner ? `@${ref.owner}/${ref.job}` : ref.job);

/** The users a run acts for, in order, without repeats: the first one is reported first when access fails. */
export function withAuthority(authority: readonly number[], userId: number): number[] {
  return authority.includes(userId) ? [...authority] : [...authority, userId];
}

/** The job a ref names, executed: a bare name is a job of `chainOwnerId`, the owner of the chain's job. */
function jobReference(chainOwnerId: number, ref: JobRef): Reference {
  const named = { kind: 'resource', resource: 'job', name: ref.job, need: 'x', as: refText(ref) } as const;
  return ref.owner ? { ...named, owner: ref.owner } : { ...named, owner: '', ownerId: chainOwnerId };
}

/** The verdicts on the jobs `refs` name for everyone in `authority`, in one round trip. */
export async function stepVerdicts(
  db: Db,
  chainOwnerId: number,
  refs: readonly JobRef[],
  authority: readonly number[],
): Promise<Verdict[]> {
  const uses = refs.map((ref) => ({
    path: 'job.chain' as const,
    principals: authority,
    ref: jobReference(chainOwnerId, ref),
  }));
  return (await composedReads(db, uses)).verdicts;
}

const missingJob = (ref: JobRef): string => `no such job: ${refText(ref)}`;
const noExecute = (username: string, ref: JobRef): string => `${username} has no execute access to ${refText(ref)}`;

/**
 * Why a refused step does not run, as its log line says it: a job missing to any of the
 * users (a log line never reveals a job to whoever could not see it), else who lacks execute
 * access (by name; nobody: an unverified sender).
 */
export async function refusal(db: Db, verdict: Exclude<Verdict, { ok: true }>, ref: JobRef): Promise<string> {
  // Missing to nobody says so: it is the first of the run's users, so the answer is the same whether the job exists.
  if ('missing' in verdict)
    return verdict.missing === NOBODY
      ? `${missingJob(ref)} (the run acts for nobody: its sender was not authenticated)`
      : missingJob(ref);
  if (verdict.lacks === NOBODY) return noExecute('nobody (the run acts for an unverified sender)', ref);
  const who = await db.select({ username: users.username }).from(users).where(eq(users.id, verdict.lacks)).get();
  return noExecute(who?.username ?? `user ${verdict.lacks}`, ref);
}

/**
 * A chain written by someone other than its job's owner names only jobs the writer may
 * execute: the message of the 400 naming the first step that does not (one round trip).
 */
export async function writerProblem(
  db: Db,
  chainOwnerId: number,
  steps: ChainStep[],
  writer: { id: number; username: string },
): Promise<string | void> {
  const named = steps.flatMap((s) => (s.ref.kind === 'job' ? [{ label: s.label, ref: s.ref }] : []));
  if (!named.length) return;
  const verdicts = await stepVerdicts(
    db,
    chainOwnerId,
    named.map((s) => s.ref),
    [writer.id],
  );
  for (const [i, s] of named.entries()) {
    const v = verdicts[i]!;
    if (!v.ok)
      return `step ${s.label} (${refText(s.ref)}): ${'missing' in v ? missingJob(s.ref) : noExecute(writer.username, s.ref)}`;
  }
}

/** The usernames of `ids` (for a run's log): one query. */
export async function usernames(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  const real = ids.filter((id) => id !== NOBODY);
  if (!real.length) return new Map();
  const rows = await db.select({ id: users.id, username: users.username }).from(users).where(inArray(users.id, real));
  return new Map(rows.map((r) => [r.id, r.username]));
}
