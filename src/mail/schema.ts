/** Tables of the mail area (mirror of migrations/0006_mail.sql). */
import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { resources } from '../db/schema';

const SEND_STATUSES = ['delivered', 'partial', 'failed'] as const;

export const mailRuns = sqliteTable(
  'mail_runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    resource_id: integer('resource_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    action: text('action', { enum: ['send', 'test'] }).notNull(),
    adhoc: integer('adhoc', { mode: 'boolean' }).notNull().default(false),
    created_by: text('created_by').notNull(),
    started_on: text('started_on').notNull(),
    completed_on: text('completed_on').notNull(),
    duration: real('duration').notNull(),
    status: text('status', { enum: SEND_STATUSES }).notNull(),
    recipients: integer('recipients').notNull(),
    delivered: integer('delivered').notNull(),
    suppressed: integer('suppressed').notNull(),
    skipped: integer('skipped').notNull(),
    failed: integer('failed').notNull(),
    /** The send's id (migration 0025; null on older rows): bounce and complaint events name it. */
    send_id: text('send_id'),
  },
  (t) => [index('mail_runs_resource').on(t.resource_id, t.id)],
);
export type MailRun = typeof mailRuns.$inferSelect;

/** Sends removed by retention, per day and status, with their summed counts (migration 0022). */
export const mailRunDays = sqliteTable(
  'mail_run_days',
  {
    resource_id: integer('resource_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    day: text('day').notNull(),
    status: text('status').notNull(),
    runs: integer('runs').notNull(),
    recipients: integer('recipients').notNull(),
    delivered: integer('delivered').notNull(),
    suppressed: integer('suppressed').notNull(),
    skipped: integer('skipped').notNull(),
    failed: integer('failed').notNull(),
  },
  (t) => [primaryKey({ columns: [t.resource_id, t.day, t.status] })],
);

/** owner_id 0 = every sender (bounces). */
export const mailSuppressions = sqliteTable(
  'mail_suppressions',
  {
    owner_id: integer('owner_id').notNull(),
    email: text('email').notNull(),
    reason: text('reason', { enum: ['unsubscribed', 'bounced', 'complained'] }).notNull(),
    created_on: text('created_on').notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner_id, t.email] })],
);

export const mailKeys = sqliteTable('mail_keys', {
  id: integer('id').primaryKey(),
  secret: text('secret').notNull(),
});

/** Bounces and complaints reported for a send's messages (migration 0025), once per event id. */
export const mailEvents = sqliteTable(
  'mail_events',
  {
    id: text('id').primaryKey(),
    resource_id: integer('resource_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    send_id: text('send_id').notNull(),
    type: text('type', { enum: ['bounced', 'complained'] }).notNull(),
    created_on: text('created_on').notNull(),
  },
  (t) => [index('mail_events_send').on(t.resource_id, t.send_id)],
);
