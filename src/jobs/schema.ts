/** Jobs tables (mirror of migrations/0005_jobs.sql and 0010_job_runs_order.sql). */
import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { resources } from '../db/schema';

export const RUN_STATUSES = ['rejected', 'processing', 'canceling', 'success', 'failed', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['rejected', 'success', 'failed', 'canceled']);
export type Trigger = 'api' | 'email' | 'schedule';

export const jobRuns = sqliteTable(
  'job_runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull().unique(),
    shortname: text('shortname').notNull().unique(),
    job_id: integer('job_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    /** 1 for a top-level run, 0 for a child run of a composed chain. */
    top: integer('top').notNull(),
    parent_id: integer('parent_id'),
    root_job_id: integer('root_job_id').notNull(),
    parent_step: text('parent_step'),
    status: text('status', { enum: RUN_STATUSES }).notNull(),
    trigger: text('trigger', { enum: ['api', 'email', 'schedule'] }).notNull(),
    source: text('source').notNull(),
    created_by: text('created_by').notNull(),
    started_on: text('started_on').notNull(),
    completed_on: text('completed_on'),
    duration: real('duration'),
    output_name: text('output_name'),
    output_type: text('output_type'),
    output_size: integer('output_size'),
  },
  (t) => [
    index('job_runs_recent').on(t.job_id, t.top, t.started_on, t.id),
    index('job_runs_parent').on(t.parent_id),
    index('job_runs_root_job').on(t.root_job_id),
  ],
);

export const jobMeta = sqliteTable('job_meta', {
  job_id: integer('job_id')
    .primaryKey()
    .references(() => resources.id, { onDelete: 'cascade' }),
  code_version: text('code_version').notNull().default(''),
  failures: integer('failures').notNull().default(0),
});

export const jobSchedules = sqliteTable(
  'job_schedules',
  {
    job_id: integer('job_id')
      .primaryKey()
      .references(() => resources.id, { onDelete: 'cascade' }),
    next_fire: integer('next_fire').notNull(),
  },
  (t) => [index('job_schedules_next').on(t.next_fire)],
);

export type RunRow = typeof jobRuns.$inferSelect;

/** Top-level runs removed by retention, per day and status (migration 0022): stats/runs and run counts add them. */
export const jobRunDays = sqliteTable(
  'job_run_days',
  {
    job_id: integer('job_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    day: text('day').notNull(),
    status: text('status').notNull(),
    runs: integer('runs').notNull(),
  },
  (t) => [primaryKey({ columns: [t.job_id, t.day, t.status] })],
);
