-- Retention (src/accounts/retention.ts): indexes the every-minute sweep walks in time order,
-- per-day rollups of the runs it removes (stats/runs and GraphQL run counts keep counting them),
-- and the record of the last sweep (GET /v1/ops/retention).
CREATE INDEX outbox_created ON outbox(created_on);
CREATE INDEX resource_log_time ON resource_log(log_time);
CREATE INDEX job_runs_top_started ON job_runs(started_on) WHERE top = 1;
CREATE INDEX mail_runs_started ON mail_runs(started_on);

-- Top-level runs of a job removed by retention, counted per UTC day and final status.
CREATE TABLE job_run_days (
  job_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  day TEXT NOT NULL,               -- YYYY-MM-DD of started_on
  status TEXT NOT NULL,
  runs INTEGER NOT NULL,
  PRIMARY KEY (job_id, day, status)
);

-- Sends of an e-mail removed by retention, counted and summed per UTC day and final status.
CREATE TABLE mail_run_days (
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  day TEXT NOT NULL,
  status TEXT NOT NULL,
  runs INTEGER NOT NULL,
  recipients INTEGER NOT NULL,
  delivered INTEGER NOT NULL,
  suppressed INTEGER NOT NULL,
  skipped INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  PRIMARY KEY (resource_id, day, status)
);

-- One row: when the last sweep ran, what it removed ({ table: rows }), and where the orphan-blob
-- walk of R2 goes on (the list cursor; null: from the start).
CREATE TABLE retention_sweeps (
  id INTEGER PRIMARY KEY,
  swept_on TEXT NOT NULL,
  removed TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  blob_cursor TEXT
);
