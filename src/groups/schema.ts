/** Tables of the groups area (mirror of migrations/0002_groups.sql). */
import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { groups } from '../db/schema';

/** Profile fields, pictures (bytes in R2) and options of a group, keyed by path. */
export const groupEntries = sqliteTable(
  'group_entries',
  {
    group_id: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    value: text('value'),
    content_type: text('content_type'),
    size: integer('size').notNull(),
    created_on: text('created_on').notNull(),
    last_modified: text('last_modified').notNull(),
  },
  (t) => [primaryKey({ columns: [t.group_id, t.path] })],
);
