-- What account deletion (src/accounts/deletion.ts) needs to find by account:
-- the outbox row's owner, the account whose mail, test, invitation or reply it is (rows written
-- before this column: null, removed by retention after 30 days), so a deleted account's rows go
-- with it; and the runs it triggered of others' jobs, found by the name they record
-- (created_by), which then reads "deleted user".
ALTER TABLE outbox ADD COLUMN owner_id INTEGER;
CREATE INDEX outbox_owner ON outbox(owner_id);
CREATE INDEX job_runs_created_by ON job_runs(created_by);
