-- Core: accounts, tokens, outbox, groups/members (the tables the permission check joins),
-- resources with their text entries, shares and tags.
CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  password_salt TEXT NOT NULL,
  email TEXT,
  email_verified INTEGER NOT NULL DEFAULT 0,
  account TEXT NOT NULL DEFAULT 'user',
  plan TEXT NOT NULL DEFAULT 'free',
  profile_public INTEGER NOT NULL DEFAULT 0,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  created_on TEXT NOT NULL,
  last_modified TEXT NOT NULL
);

CREATE TABLE tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_on TEXT NOT NULL
);
CREATE INDEX tokens_user ON tokens(user_id);

CREATE TABLE outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  sender TEXT NOT NULL,
  recipients TEXT NOT NULL,
  subject TEXT NOT NULL,
  text TEXT NOT NULL,
  html TEXT NOT NULL,
  attachments TEXT NOT NULL,
  created_on TEXT NOT NULL
);

CREATE TABLE groups (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  slug TEXT NOT NULL,
  owner_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES groups(id) ON DELETE CASCADE,
  ref TEXT NOT NULL UNIQUE,
  created_on TEXT NOT NULL,
  last_modified TEXT NOT NULL
);
CREATE INDEX groups_parent ON groups(parent_id);

CREATE TABLE members (
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  state TEXT NOT NULL,
  invited_by INTEGER,
  created_on TEXT NOT NULL,
  last_modified TEXT NOT NULL,
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX members_user ON members(user_id);

CREATE TABLE resources (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  shortname TEXT NOT NULL UNIQUE,
  created_on TEXT NOT NULL,
  last_modified TEXT NOT NULL
);
CREATE UNIQUE INDEX resources_owner_kind_name ON resources(owner_id, kind, name);

CREATE TABLE entries (
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  value TEXT,
  blob_key TEXT,
  size INTEGER NOT NULL,
  created_on TEXT NOT NULL,
  last_modified TEXT NOT NULL,
  PRIMARY KEY (resource_id, path)
);

CREATE TABLE shares (
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  entry TEXT NOT NULL,
  group_id INTEGER REFERENCES groups(id) ON DELETE CASCADE,
  perms TEXT NOT NULL,
  created_on TEXT NOT NULL,
  PRIMARY KEY (resource_id, entry)
);
CREATE INDEX shares_group ON shares(group_id);

CREATE TABLE tags (
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  created_on TEXT NOT NULL,
  PRIMARY KEY (resource_id, user_id, tag)
);

-- What happened to a resource (documents, grids, mails): served by GET <resource>/log.
CREATE TABLE resource_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  log_time TEXT NOT NULL,
  severity TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX resource_log_resource ON resource_log(resource_id, id);
