-- Documents: assets (bytes in R2 under r/<resource id>/assets/<name>), per-user
-- notification levels, and comment thread topics.
CREATE TABLE doc_assets (
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  created_on TEXT NOT NULL,
  last_modified TEXT NOT NULL,
  PRIMARY KEY (resource_id, name)
);

CREATE TABLE doc_notifications (
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  level TEXT NOT NULL,
  last_modified TEXT NOT NULL,
  PRIMARY KEY (resource_id, user_id)
);

CREATE TABLE doc_threads (
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  topic TEXT NOT NULL,
  created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_on TEXT NOT NULL,
  PRIMARY KEY (resource_id, topic)
);
