/** Tables of the accounts area (the users and tokens tables are core: src/db/schema.ts). */
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Failed sign-ins per username (migration 0017): the window's start (ms) and its count. */
export const signinFailures = sqliteTable('signin_failures', {
  username: text('username').primaryKey(),
  window_start: integer('window_start').notNull(),
  failures: integer('failures').notNull(),
});
