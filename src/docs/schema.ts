/** Tables of the documents area (mirror of migrations/0003_docs.sql; comment
 * threads moved to the core's threads tables in 0007_threads.sql, see src/core/thread/). */
import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { resources, users } from '../db/schema';

export const docAssets = sqliteTable(
  'doc_assets',
  {
    resource_id: integer('resource_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    content_type: text('content_type').notNull(),
    size: integer('size').notNull(),
    created_on: text('created_on').notNull(),
    last_modified: text('last_modified').notNull(),
  },
  (t) => [primaryKey({ columns: [t.resource_id, t.name] })],
);

export const NOTIFICATION_LEVELS = ['ignore', 'info', 'important'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

export const docNotifications = sqliteTable(
  'doc_notifications',
  {
    resource_id: integer('resource_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    level: text('level', { enum: NOTIFICATION_LEVELS }).notNull(),
    last_modified: text('last_modified').notNull(),
  },
  (t) => [primaryKey({ columns: [t.resource_id, t.user_id] })],
);
