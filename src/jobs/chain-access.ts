/**
 * Who may run the job a chain step names. A run acts with the authority of several users
 * at once (who triggered it, and the owner of every job whose chain led to the step): the
 * step runs only if each of them may execute the job. The same check guards a chain
 * written by a grantee (the writer must be able to execute every job it names).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../core/context';
import { OWNER_ACCESS, type Access } from '../core/perms';
import { grantedAccess, grantsColumn } from '../core/resource/visibility';
import { resources, users } from '../db/schema';
import type { ChainStep, StepRef } from './chains';

export type JobRef = Extract<StepRef, { kind: 'job' }>;

/** A job ref as written: `job` or `@user/job`. */
export const refText = (ref: JobRef): string => (ref.owner ? `@${ref.owner}/${ref.job}` : ref.job);

/** The users a run acts for, in order, without repeats: the first one is reported first when access fails. */
export function withAuthority(authority: readonly number[], userId: number): number[] {
  return authority.includes(userId) ? [...authority] : [...authority, userId];
}

/**
 * The job a ref names (a bare name is a job of `chainOwnerId`, the owner of the chain's
 * job) with each user's share grants on it, in one query: columns g0, g1, ... follow `userIds`.
 */
export function refTargetQuery(db: Db, chainOwnerId: number, ref: JobRef, userIds: readonly number[]) {
  const ownerId = ref.owner
    ? sql`(select ${users.id} from ${users} where ${users.username} = ${ref.owner})`
    : chainOwnerId;
  const grants = Object.fromEntries(userIds.map((id, i) => [`g${i}`, grantsColumn(id)]));
  return db
    .select({ id: resources.id, owner_id: resources.owner_id, ...grants })
    .from(resources)
    .where(and(eq(resources.owner_id, ownerId), eq(resources.kind, 'job'), eq(resources.name, ref.job)));
}

export type RefRow = { id: number; owner_id: number } & Record<string, unknown>;

/** A refused step: the job is `missing` to one of the users, or one `lacks` execute access. */
export type RefRefusal = 'missing' | { lacks: number };

/**
 * Whether every user may execute the job (pure): null when they all may; `missing` when
 * the job does not exist or one of them cannot read it (the answer a missing job gets: a
 * log line never reveals a job to whoever could not see it); else the first user who can
 * read but not execute it.
 */
export function refVerdict(row: RefRow | undefined, userIds: readonly number[]): RefRefusal | null {
  if (!row) return 'missing';
  const access = userIds.map((id, i): Access =>
    id === row.owner_id ? OWNER_ACCESS : grantedAccess('job', row[`g${i}`] as string),
  );
  if (access.some((a) => !a.r)) return 'missing';
  const i = access.findIndex((a) => !a.x);
  return i < 0 ? null : { lacks: userIds[i]! };
}

export const missingJob = (ref: JobRef): string => `no such job: ${refText(ref)}`;
export const noExecute = (username: string, ref: JobRef): string =>
  `${username} has no execute access to ${refText(ref)}`;

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
  const [first, ...rest] = named.map((s) => refTargetQuery(db, chainOwnerId, s.ref, [writer.id]));
  const rows = (await db.batch([first!, ...rest])) as RefRow[][];
  for (const [i, s] of named.entries()) {
    const refused = refVerdict(rows[i]![0], [writer.id]);
    if (refused)
      return `step ${s.label} (${refText(s.ref)}): ${refused === 'missing' ? missingJob(s.ref) : noExecute(writer.username, s.ref)}`;
  }
}
