-- Jobs: run rows (top-level and child runs), per-job runtime state, and the schedule index.
-- Run logs live in each run's Durable Object (RunObject); outputs in R2 under r/<job id>/runs/.
CREATE TABLE job_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  shortname TEXT NOT NULL UNIQUE,
  job_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  top INTEGER NOT NULL,
  parent_id INTEGER,
  root_job_id INTEGER NOT NULL,
  parent_step TEXT,
  status TEXT NOT NULL,
  trigger TEXT NOT NULL,
  source TEXT NOT NULL,
  created_by TEXT NOT NULL,
  started_on TEXT NOT NULL,
  completed_on TEXT,
  duration REAL,
  output_name TEXT,
  output_type TEXT,
  output_size INTEGER
);
-- The runs listing (30 newest top-level runs) and the history walk read this index only.
CREATE INDEX job_runs_list ON job_runs(job_id, top, id);
CREATE INDEX job_runs_parent ON job_runs(parent_id);
CREATE INDEX job_runs_root_job ON job_runs(root_job_id);

CREATE TABLE job_meta (
  job_id INTEGER PRIMARY KEY REFERENCES resources(id) ON DELETE CASCADE,
  code_version TEXT NOT NULL DEFAULT '',
  failures INTEGER NOT NULL DEFAULT 0
);

-- Next fire time of every enabled, scheduled job: scheduled() reads only the due rows.
CREATE TABLE job_schedules (
  job_id INTEGER PRIMARY KEY REFERENCES resources(id) ON DELETE CASCADE,
  next_fire INTEGER NOT NULL
);
CREATE INDEX job_schedules_next ON job_schedules(next_fire);
