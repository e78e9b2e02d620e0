/** The tables of comment threads (migrations/0007_threads.sql, 0009_thread_replies.sql, 0020_comment_slugs.sql). */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { groups, resources, users } from '../../db/schema';

export const threads = sqliteTable(
  'threads',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The subject: exactly one of resource_id and group_id is set. */
    resource_id: integer('resource_id').references(() => resources.id, { onDelete: 'cascade' }),
    group_id: integer('group_id').references(() => groups.id, { onDelete: 'cascade' }),
    /** The slug its author chose: unique per author on the subject. */
    topic: text('topic').notNull(),
    created_by: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    created_on: text('created_on').notNull(),
    /** The topic's own text (POST .../threads/@<author>~<topic>/msg); empty until written. */
    message: text('message').notNull().default(''),
    /** Its text was rewritten after it was first written. */
    edited: integer('edited', { mode: 'boolean' }).notNull().default(false),
    updated_on: text('updated_on'),
  },
  (t) => [
    uniqueIndex('threads_resource_topic').on(t.resource_id, t.created_by, t.topic),
    uniqueIndex('threads_group_topic').on(t.group_id, t.created_by, t.topic),
    check('threads_one_subject', sql`(${t.resource_id} is null) <> (${t.group_id} is null)`),
  ],
);

export const threadComments = sqliteTable(
  'thread_comments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    thread_id: integer('thread_id')
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    author_id: integer('author_id').references(() => users.id, { onDelete: 'set null' }),
    text: text('text').notNull(),
    created_on: text('created_on').notNull(),
    /** The comment this one replies to (migrations/0009_thread_replies.sql); null for a comment on the topic. */
    parent_id: integer('parent_id').references((): AnySQLiteColumn => threadComments.id, { onDelete: 'cascade' }),
    /**
     * The slug its author chose (PUT .../comments/<slug>), unique per author among its siblings; null for comments
     * added by POST (their id names them).
     */
    slug: text('slug'),
    edited: integer('edited', { mode: 'boolean' }).notNull().default(false),
    updated_on: text('updated_on'),
  },
  (t) => [
    index('thread_comments_thread').on(t.thread_id, t.id),
    uniqueIndex('thread_comments_slug')
      .on(t.thread_id, sql`ifnull(${t.parent_id}, 0)`, t.author_id, t.slug)
      .where(sql`${t.slug} is not null`),
  ],
);
