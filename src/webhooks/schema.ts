/**
 * Tables of the webhooks area (mirror of migrations/0026_webhooks.sql, 0027_webhook_fanout.sql and
 * 0029_webhook_created_by.sql).
 */
import { integer, sqliteTable, text, unique } from 'drizzle-orm/sqlite-core';
import { users } from '../db/schema';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'exhausted'] as const;

export const webhooks = sqliteTable(
  'webhooks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    owner_id: integer('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    url: text('url').notNull(),
    /** JSON array of event types (`*`: all). */
    events: text('events').notNull(),
    description: text('description').notNull().default(''),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    secret: text('secret').notNull(),
    old_secret: text('old_secret'),
    old_secret_until: text('old_secret_until'),
    failing_since: text('failing_since'),
    disabled_reason: text('disabled_reason'),
    created_on: text('created_on').notNull(),
    last_modified: text('last_modified').notNull(),
    /** Who registered it (an organisation's admin, or the owner); null once that account is deleted. */
    created_by: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [unique().on(t.owner_id, t.name)],
);
export type Webhook = typeof webhooks.$inferSelect;

export const webhookEvents = sqliteTable('webhook_events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  owner_id: integer('owner_id').notNull(),
  type: text('type').notNull(),
  resource_id: integer('resource_id'),
  group_id: integer('group_id'),
  body: text('body').notNull(),
  /** Only this endpoint takes it (a test ping). */
  webhook_id: integer('webhook_id'),
  created_on: text('created_on').notNull(),
});

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    webhook_id: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    event_id: integer('event_id').notNull(),
    msg_id: text('msg_id').notNull(),
    type: text('type').notNull(),
    body: text('body').notNull(),
    attempt: integer('attempt').notNull().default(0),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    manual: integer('manual').notNull().default(0),
    response_code: integer('response_code'),
    response_body: text('response_body'),
    duration_ms: integer('duration_ms'),
    next_attempt_on: text('next_attempt_on'),
    created_on: text('created_on').notNull(),
  },
  (t) => [unique().on(t.webhook_id, t.event_id)],
);
export type Delivery = typeof webhookDeliveries.$inferSelect;
