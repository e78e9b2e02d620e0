-- Failed sign-ins per username (POST /v1/token), existing or not: a fixed window that
-- starts at its first failure. Kept in D1 because the count must hold across isolates
-- and locations (a Rate Limiting binding counts per location, in 10 or 60 s periods).
-- Expired rows are swept as new failures are recorded (the window_start index).
CREATE TABLE signin_failures (
  username TEXT PRIMARY KEY,
  window_start INTEGER NOT NULL,
  failures INTEGER NOT NULL
);
CREATE INDEX signin_failures_window ON signin_failures(window_start);
