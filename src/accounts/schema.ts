/** Tables of the accounts area (the users and tokens tables are core: src/db/schema.ts). */
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Failed sign-ins per username (migration 0017): the window's start (ms) and its count. */
export const signinFailures = sqliteTable('signin_failures', {
  username: text('username').primaryKey(),
  window_start: integer('window_start').notNull(),
  failures: integer('failures').notNull(),
});

/** The last retention sweep (migration 0022): one row, id 1; `removed` is { table: rows }. */
export const retentionSweeps = sqliteTable('retention_sweeps', {
  id: integer('id').primaryKey(),
  swept_on: text('swept_on').notNull(),
  removed: text('removed', { mode: 'json' }).$type<Record<string, number>>().notNull(),
  duration_ms: integer('duration_ms').notNull(),
  /** Where the orphan-blob walk of R2 goes on; null: from the start. */
  blob_cursor: text('blob_cursor'),
});

/**
 * Accounts being deleted (migration 0023): the marker the removal resumes from (accounts/deletion.ts). `username` is
 * the name the account had before it was renamed out of reach.
 */
export const accountDeletions = sqliteTable('account_deletions', {
  user_id: integer('user_id').primaryKey(),
  username: text('username').notNull(),
  started_on: text('started_on').notNull(),
});
