/**
 * Core D1 schema (drizzle). Migrations in migrations/ are the source of truth for the
 * database; this file mirrors them for typed queries. Areas keep their own tables in
 * src/<area>/schema.ts and their own migration files.
 */
import { sqliteTable, text, integer, primaryKey, uniqueIndex, index } from 'drizzle-orm/sqlite-core';

const timestamps = {
  created_on: text('created_on').notNull(),
  last_modified: text('last_modified').notNull(),
};

export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  username: text('username').notNull().unique(),
  password_hash: text('password_hash').notNull(),
  password_salt: text('password_salt').notNull(),
  email: text('email'),
  email_verified: integer('email_verified', { mode: 'boolean' }).notNull().default(false),
  account: text('account', { enum: ['user', 'organisation'] })
    .notNull()
    .default('user'),
  plan: text('plan', { enum: ['free', 'premium'] })
    .notNull()
    .default('free'),
  profile_public: integer('profile_public', { mode: 'boolean' }).notNull().default(false),
  timezone: text('timezone').notNull().default('UTC'),
  name: text('name').notNull().default(''),
  bio: text('bio').notNull().default(''),
  ...timestamps,
});

export const tokens = sqliteTable('tokens', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  user_id: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  token_hash: text('token_hash').notNull().unique(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  created_on: text('created_on').notNull(),
  // Migration 0021: the last day it was used (written at most once a day), its expiry, its scope.
  last_used_on: text('last_used_on'),
  expires_on: text('expires_on'),
  scope: text('scope', { enum: ['full', 'read'] })
    .notNull()
    .default('full'),
});

export const outbox = sqliteTable('outbox', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  kind: text('kind', { enum: ['mail', 'test', 'invite', 'reply', 'notice'] }).notNull(),
  sender: text('sender').notNull(),
  recipients: text('recipients', { mode: 'json' }).$type<string[]>().notNull(),
  subject: text('subject').notNull(),
  text: text('text').notNull(),
  html: text('html').notNull(),
  attachments: text('attachments', { mode: 'json' })
    .$type<{ filename: string; content_type: string; size: number }[]>()
    .notNull(),
  created_on: text('created_on').notNull(),
  /** Stable per send x recipient (migration 0016): a resumed send never hands a message off twice. */
  message_id: text('message_id'),
  /** The account whose mail, test, invitation or reply it is (migration 0024; null before): deleted with it. */
  owner_id: integer('owner_id'),
  /** The e-mail a message was sent for, and the id the send_email transport answered (migration 0025). */
  resource_id: integer('resource_id'),
  provider_id: text('provider_id'),
});

/** Groups, organisations and organisation groups are one table: `kind` tells which. */
export const groups = sqliteTable(
  'groups',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    kind: text('kind', { enum: ['user_group', 'org', 'org_group'] }).notNull(),
    slug: text('slug').notNull(),
    /** user_group: the user whose namespace holds it; org: the organisation account. */
    owner_id: integer('owner_id').references(() => users.id, { onDelete: 'cascade' }),
    /** org_group: its organisation. */
    parent_id: integer('parent_id'),
    /** Share reference: @user~group, +org, +org~group. */
    ref: text('ref').notNull().unique(),
    ...timestamps,
  },
  (t) => [index('groups_parent').on(t.parent_id)],
);

export const ROLES = ['founders', 'admins', 'superusers', 'members'] as const;
export type Role = (typeof ROLES)[number];

export const members = sqliteTable(
  'members',
  {
    group_id: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ROLES }).notNull(),
    state: text('state', { enum: ['pending', 'active', 'declined'] }).notNull(),
    invited_by: integer('invited_by'),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.group_id, t.user_id] }), index('members_user').on(t.user_id)],
);

const RESOURCE_KINDS = ['doc', 'grid', 'mail', 'job', 'plot'] as const;
export type ResourceKindName = (typeof RESOURCE_KINDS)[number];

/** Every shareable thing (document, grid, mail, job) is a resource: a folder of entries. */
export const resources = sqliteTable(
  'resources',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    kind: text('kind', { enum: RESOURCE_KINDS }).notNull(),
    owner_id: integer('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    shortname: text('shortname').notNull().unique(),
    ...timestamps,
  },
  (t) => [uniqueIndex('resources_owner_kind_name').on(t.owner_id, t.kind, t.name)],
);

/**
 * Text entries of a resource (content, name, config/type, ...). Small values live in
 * `value`; values too large for a D1 row live in R2 under `blob_key`.
 */
export const entries = sqliteTable(
  'entries',
  {
    resource_id: integer('resource_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    value: text('value'),
    blob_key: text('blob_key'),
    size: integer('size').notNull(),
    ...timestamps,
    /** Who last wrote it (migration 0028); null: the platform or before the column, both read as the owner. */
    written_by: integer('written_by'),
    /** References a later writer kept, with the users they were written under (JSON `{as: ids}`, migration 0028). */
    vouched: text('vouched'),
  },
  (t) => [primaryKey({ columns: [t.resource_id, t.path] })],
);

/** Sharing entries, named exactly as written (`public`, `@u~g`, `+o~g~rw`). */
export const shares = sqliteTable(
  'shares',
  {
    resource_id: integer('resource_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    entry: text('entry').notNull(),
    /** NULL for `public`. */
    group_id: integer('group_id').references(() => groups.id, { onDelete: 'cascade' }),
    perms: text('perms').notNull(),
    created_on: text('created_on').notNull(),
  },
  (t) => [primaryKey({ columns: [t.resource_id, t.entry] }), index('shares_group').on(t.group_id)],
);

/** Tags are per user: the caller's own tags on a resource. */
export const tags = sqliteTable(
  'tags',
  {
    resource_id: integer('resource_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tag: text('tag').notNull(),
    created_on: text('created_on').notNull(),
  },
  (t) => [primaryKey({ columns: [t.resource_id, t.user_id, t.tag] })],
);

/**
 * Idempotency-Key claims and the answers they replay (core/idempotency.ts, migration 0031): the key as its SHA-256, the
 * body as an HMAC, the answer sealed with a key derived from the raw key; null status while the first request runs.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    account_id: integer('account_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key_hash: text('key_hash').notNull(),
    route: text('route').notNull(),
    request_hash: text('request_hash').notNull(),
    status: integer('status'),
    answer: text('answer'),
    created_on: text('created_on').notNull(),
  },
  (t) => [primaryKey({ columns: [t.account_id, t.key_hash] }), index('idempotency_keys_created').on(t.created_on)],
);

export type User = typeof users.$inferSelect;
export type Resource = typeof resources.$inferSelect;
export type Group = typeof groups.$inferSelect;

export const resourceLog = sqliteTable(
  'resource_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    resource_id: integer('resource_id')
      .notNull()
      .references(() => resources.id, { onDelete: 'cascade' }),
    log_time: text('log_time').notNull(),
    severity: text('severity').notNull(),
    message: text('message').notNull(),
  },
  (t) => [index('resource_log_resource').on(t.resource_id, t.id)],
);
