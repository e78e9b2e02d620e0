-- Anonymous public reads served from the edge (src/core/edge-cache.ts). `edge_cache`: one row
-- per (account, url) an answer that read that account's content was stored under, so that a
-- change of the account's content purges exactly those (local: cache keys deleted; Workers
-- Cache: the account's tag purged, only when a row says something is stored).
-- `edge_purges`: when each account's answers were last purged, so that a read which started
-- before a purge never stores what it read. The retention tick removes rows older than the
-- answers' s-maxage.
CREATE TABLE edge_cache (
  owner_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  stored_on INTEGER NOT NULL,
  PRIMARY KEY (owner_id, key)
) WITHOUT ROWID;
CREATE INDEX edge_cache_stored ON edge_cache(stored_on);
CREATE TABLE edge_purges (
  owner_id INTEGER PRIMARY KEY,
  purged_on INTEGER NOT NULL
);
CREATE INDEX edge_purges_purged ON edge_purges(purged_on);
