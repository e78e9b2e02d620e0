-- E-mail sending: one row per send (GET <mail>/stats/runs), suppressed addresses, and the
-- key that signs unsubscribe links. Send state itself lives in the MailObject.
CREATE TABLE mail_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  action TEXT NOT NULL,            -- send | test
  adhoc INTEGER NOT NULL DEFAULT 0, -- 1 when the send named its own `to`
  created_by TEXT NOT NULL,
  started_on TEXT NOT NULL,
  completed_on TEXT NOT NULL,
  duration REAL NOT NULL,
  status TEXT NOT NULL,            -- delivered | partial | failed
  recipients INTEGER NOT NULL,
  delivered INTEGER NOT NULL,
  suppressed INTEGER NOT NULL,
  skipped INTEGER NOT NULL,
  failed INTEGER NOT NULL
);
CREATE INDEX mail_runs_resource ON mail_runs(resource_id, id);

-- owner_id 0: suppressed for every sender (bounces); otherwise for that sender's mails.
CREATE TABLE mail_suppressions (
  owner_id INTEGER NOT NULL,
  email TEXT NOT NULL,
  reason TEXT NOT NULL,            -- unsubscribed | bounced
  created_on TEXT NOT NULL,
  PRIMARY KEY (owner_id, email)
);

CREATE TABLE mail_keys (
  id INTEGER PRIMARY KEY,
  secret TEXT NOT NULL
);
