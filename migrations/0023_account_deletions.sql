-- Accounts being deleted (DELETE /v1/admin/account, DELETE /v1/ops/users/<user>). The row is
-- written in the same batch that renames the users row out of reach (its username becomes
-- `deleted:<id>`, its password and tokens go), so from then on the account signs in nowhere
-- and 404s everywhere; the removal of what it owns then runs in steps, and a kill between
-- two steps loses nothing: the scheduled() tick finds the row and continues. The last step
-- deletes the users row and this one together. `username` is the name it had, for the log.
CREATE TABLE account_deletions (
  user_id INTEGER PRIMARY KEY,
  username TEXT NOT NULL,
  started_on TEXT NOT NULL
);

-- What the removal's steps look up by account in tables otherwise read by resource or thread:
-- without these each step would scan the whole table.
CREATE INDEX threads_created_by ON threads(created_by);
CREATE INDEX thread_comments_author ON thread_comments(author_id);
CREATE INDEX tags_user ON tags(user_id);
