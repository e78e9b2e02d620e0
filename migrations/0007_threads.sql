-- Comment threads of every subject (documents and groups), from src/core/thread/:
-- a thread belongs to exactly one subject (a resource or a group) and holds comments.
-- The topics of documents (doc_threads, 0003) move over, then doc_threads goes.
-- IF NOT EXISTS keeps the statements safe to replay (the migration test does).
CREATE TABLE IF NOT EXISTS threads (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  resource_id INTEGER REFERENCES resources(id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES groups(id) ON DELETE CASCADE,
  topic TEXT NOT NULL,
  created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_on TEXT NOT NULL,
  CONSTRAINT threads_one_subject CHECK ((resource_id IS NULL) <> (group_id IS NULL))
);
CREATE UNIQUE INDEX IF NOT EXISTS threads_resource_topic ON threads(resource_id, topic);
CREATE UNIQUE INDEX IF NOT EXISTS threads_group_topic ON threads(group_id, topic);

CREATE TABLE IF NOT EXISTS thread_comments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  text TEXT NOT NULL,
  created_on TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS thread_comments_thread ON thread_comments(thread_id, id);

INSERT OR IGNORE INTO threads (resource_id, topic, created_by, created_on)
  SELECT resource_id, topic, created_by, created_on FROM doc_threads ORDER BY created_on, topic;
DROP TABLE doc_threads;
