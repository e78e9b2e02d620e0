-- Idempotency-Key (src/core/idempotency.ts): one row per (account, key) a flagged route was
-- called with in the last 24 hours. The key itself is never stored, only its SHA-256; the
-- request body only as an HMAC keyed by the raw key. `status` is null while the first
-- request runs (the claim), then the status it answered; `answer` is that answer (status,
-- headers, body) sealed with AES-GCM under a key derived from the raw key, so that a reader
-- of the database cannot read a replayed secret (POST /v1/token answers a token).
-- The retention tick removes rows older than 24 hours; they go with their account.
CREATE TABLE idempotency_keys (
  account_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL,
  -- `METHOD /path?query` the key was first used on.
  route TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status INTEGER,
  answer TEXT,
  created_on TEXT NOT NULL,
  PRIMARY KEY (account_id, key_hash)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_on);
