/**
 * Schedules: an index (job_schedules) holds the next fire time of every enabled,
 * scheduled job; the scheduled() handler reads only the due rows, never all jobs.
 */
import { and, asc, eq, lte } from 'drizzle-orm';
import { now } from '../core/clock';
import { dbFor, type Db } from '../core/context';
import { resources, users } from '../db/schema';
import { jobConfig } from './config';
import { nextFire, parseSchedule } from './cron';
import { jobSchedules } from './schema';
import { startRun } from './trigger';

/** Due jobs started per tick (the rest start on the next tick). */
const TICK_BATCH = 200;

/**
 * Brings the index row of one job in line with its config/schedule and config/enabled: a statement for the write's
 * batch.
 */
export function scheduleStatement(db: Db, jobId: number, schedule: string, enabled: boolean) {
  let next: number | null = null;
  try {
    const s = parseSchedule(schedule);
    if (s && enabled) next = nextFire(s, now());
  } catch {
    next = null; // validated on write; never index a broken schedule
  }
  if (next === null) return db.delete(jobSchedules).where(eq(jobSchedules.job_id, jobId));
  return db
    .insert(jobSchedules)
    .values({ job_id: jobId, next_fire: next })
    .onConflictDoUpdate({ target: jobSchedules.job_id, set: { next_fire: next } });
}

/** Starts the runs that are due at `at`; answers their job ids. */
export async function fireDue(env: Env, at: number, waitUntil: (p: Promise<unknown>) => void): Promise<number[]> {
  const db = dbFor(env);
  const due = await db
    .select()
    .from(jobSchedules)
    .where(lte(jobSchedules.next_fire, at))
    .orderBy(asc(jobSchedules.next_fire))
    .limit(TICK_BATCH);
  const started: number[] = [];
  for (const row of due) {
    const job = await db
      .select({ r: resources, owner: users.username })
      .from(resources)
      .innerJoin(users, eq(users.id, resources.owner_id))
      .where(eq(resources.id, row.job_id))
      .get();
    const cfg = job ? await jobConfig(env, db, row.job_id) : null;
    let s = null;
    try {
      s = cfg?.enabled ? parseSchedule(cfg.schedule) : null;
    } catch {
      s = null;
    }
    const next = s ? nextFire(s, at) : null;
    // Claim this fire time: a concurrent tick that read the same row updates nothing.
    const claimed =
      next === null
        ? await db
            .delete(jobSchedules)
            .where(and(eq(jobSchedules.job_id, row.job_id), eq(jobSchedules.next_fire, row.next_fire)))
            .returning()
            .get()
        : await db
            .update(jobSchedules)
            .set({ next_fire: next })
            .where(and(eq(jobSchedules.job_id, row.job_id), eq(jobSchedules.next_fire, row.next_fire)))
            .returning()
            .get();
    if (!claimed || !job || !s) continue;
    started.push(row.job_id);
    waitUntil(
      startRun(env, {
        job: job.r,
        trigger: 'schedule',
        source: 'scheduler',
        createdBy: job.owner,
        callerId: job.r.owner_id,
        input: [],
      }).catch((err) => console.error('scheduled run failed to start', row.job_id, err)),
    );
  }
  return started;
}

/** The scheduled() handler: the cron trigger fires every minute. */
export async function handleScheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  void controller;
  await fireDue(env, now(), (p) => ctx.waitUntil(p));
}
