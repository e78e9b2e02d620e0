/**
 * Who may read a run addressed as `<job>/runs/<run>` (own or `/v1/users/<owner>/...` path).
 *
 * A run is read through the job of its top-level run (every run's root_job_id), by that
 * job's readers: whoever can read a top-level run can read its descendants. A child run is
 * also addressable under its own job (the `job` its parent's `children` entry names), where
 * both the readers of its top-level run and the readers of the child's job may read it,
 * even when the caller cannot read the other job. Runs are never public: read access that
 * comes only from a public share does not count. Someone who can read neither gets the
 * same 404 as for a job they cannot see (no existence leak, of the child job either).
 */
import { and, eq, type SQL } from 'drizzle-orm';
import type { Ctx } from '../../core/context';
import { forbidden, HttpError, notFound } from '../../core/errors';
import { accessTo, type Access } from '../../core/perms';
import { findUser, loadResource, type ResourceCtx } from '../../core/resource';
import { resources } from '../../db/schema';
import { jobKind } from '../kind';
import { RUN_NAME } from './name';
import { archivedRun, type ArchivedRun } from './archive';
import { runQuery, type ChildStats } from './reads';
import { jobRuns, type RunRow } from '../schema';

export interface RunCtx extends ResourceCtx {
  /** The run; `access` is the caller's access to it (loadRunCtx: the job's, joined with the top-level run's job's). */
  run: RunRow;
  /** The run's children, when the run was read from the archive (run/archive.ts). */
  archivedChildren?: ChildStats[];
}

const NEVER_PUBLIC = 'runs, logs and outputs of a job are never public: they need a share or ownership';

/** Runs are never public: read access that comes only from a public share does not show them. */
export function requireRunReader(rc: ResourceCtx): void {
  if (rc.access.viaPublicOnly) throw forbidden(NEVER_PUBLIC);
}

/** Access that counts for runs: none when it comes only from a public share. */
const forRuns = (a: Access | null): Access | null => (a && a.r && !a.viaPublicOnly ? a : null);

/** What either of two accesses allows (the child's job and the top-level run's job). */
function union(a: Access | null, b: Access | null): Access | null {
  if (!a || !b) return a ?? b;
  return { r: true, w: a.w || b.w, d: a.d || b.d, x: a.x || b.x, owner: a.owner || b.owner, viaPublicOnly: false };
}

async function rootAccess(ctx: Ctx, row: RunRow): Promise<Access | null> {
  const root = await ctx.db.select().from(resources).where(eq(resources.id, row.root_job_id)).get();
  return root ? forRuns(await accessTo(ctx.db, ctx.caller, root)) : null;
}

/** Loads the run a request names with the caller's access to it; 404 / 403 as the module comment says. */
export async function loadRunCtx(ctx: Ctx): Promise<RunCtx> {
  const name = ctx.params.run!;
  let rc: ResourceCtx;
  try {
    // The run is read in the job's own batch: one D1 round trip for the common case.
    rc = await loadResource(ctx, jobKind, undefined, { rows: (c: Ctx, jobId: SQL) => runQuery(c.db, jobId, name) });
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return childOfHiddenJob(ctx, name, err);
    throw err;
  }
  const own = forRuns(rc.access);
  const row = RUN_NAME.test(name) ? ((rc.preloaded?.rows as RunRow[] | undefined)?.[0] ?? null) : null;
  // Past retention a run's row is in the archive: one R2 list and one read, for those who may read the job's runs.
  const archived = !row && own && RUN_NAME.test(name) ? await archivedRun(ctx.env.BLOBS, rc.resource.id, name) : null;
  if (archived) return { ...rc, access: own!, run: archived.run, archivedChildren: archived.children.map(childStats) };
  if (!row) {
    if (!own) throw forbidden(NEVER_PUBLIC);
    throw notFound(`no such run: ${name}`);
  }
  const access = row.root_job_id === rc.resource.id ? own : union(own, await rootAccess(ctx, row));
  if (!access) throw forbidden(NEVER_PUBLIC);
  return { ...rc, access, run: row };
}

/**
 * The caller cannot see the job named in the path: only a child run of it whose top-level
 * run the caller can read is visible there. Anything else answers the job's own 404.
 */
async function childOfHiddenJob(ctx: Ctx, name: string, hidden: HttpError): Promise<RunCtx> {
  const ownerName = ctx.params.owner ?? ctx.caller?.username;
  const owner = ownerName && RUN_NAME.test(name) ? await findUser(ctx, ownerName) : null;
  if (!owner) throw hidden;
  const found = await ctx.db
    .select({ job: resources, run: jobRuns })
    .from(jobRuns)
    .innerJoin(resources, eq(resources.id, jobRuns.job_id))
    .where(
      and(
        eq(jobRuns.name, name),
        eq(jobRuns.top, 0),
        eq(resources.owner_id, owner.id),
        eq(resources.kind, 'job'),
        eq(resources.name, ctx.params[jobKind.param]!),
      ),
    )
    .get();
  const access = found ? await rootAccess(ctx, found.run) : null;
  if (!found || !access) throw hidden;
  const job = found.job.name;
  const base = ctx.params.owner
    ? `/v1/users/${owner.username}/${jobKind.collection}/${job}`
    : `/v1/${jobKind.collection}/${job}`;
  return { ...ctx, resource: found.job, owner, access, kind: jobKind, base, run: found.run };
}

/** An archived child as its parent's stats list it (as childrenOf reads a live one). */
const childStats = (r: ArchivedRun): ChildStats => ({
  name: r.name,
  shortname: r.shortname,
  job: r.job,
  job_shortname: r.job_shortname,
  parent_step: r.parent_step,
  status: r.status,
  started_on: r.started_on,
  completed_on: r.completed_on,
  duration: r.duration,
});
