-- Runs list newest first to the millisecond, equal starts by creation order (started_on
-- DESC, id DESC): runs/, stats/runs, the latest run (log, GraphQL last_run) read this index.
CREATE INDEX job_runs_recent ON job_runs(job_id, top, started_on, id);
DROP INDEX job_runs_list;
