/** Tables of the accounts area (the users and tokens tables are core: src/db/schema.ts). */
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Failed sign-ins per username (migration 0017): the window's start (ms) and its count. */
export const signinFailures = sqliteTable('signin_failures', {
  username: text('username').primaryKey(),
  window_start: integer('window_start').notNull(),
  failures: integer('failures').notNull(),
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
