-- Webhooks: endpoints a user or an organisation registers, the events the platform records
-- for them, and one delivery record per (event, endpoint). The event row is written before
-- the request that caused it answers; its fan-out to endpoints (deliveries) happens after,
-- and the scheduled() tick redoes a fan-out a kill cut off (fanned_out = 0).
CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  enabled INTEGER NOT NULL DEFAULT 1,
  secret TEXT NOT NULL,
  -- During a rotation: the previous secret and until when deliveries are signed with it too.
  old_secret TEXT,
  old_secret_until TEXT,
  -- When the current streak of failed attempts began (null while healthy).
  failing_since TEXT,
  disabled_reason TEXT,
  created_on TEXT NOT NULL,
  last_modified TEXT NOT NULL,
  UNIQUE (owner_id, name)
);

CREATE TABLE webhook_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- The account whose endpoints may receive it (the subject's owner).
  owner_id INTEGER NOT NULL,
  type TEXT NOT NULL,
  -- What the event is about, for the read check at fan-out: a resource or a group id.
  resource_id INTEGER,
  group_id INTEGER,
  body TEXT NOT NULL,
  fanned_out INTEGER NOT NULL DEFAULT 0,
  created_on TEXT NOT NULL
);
CREATE INDEX webhook_events_pending ON webhook_events(fanned_out) WHERE fanned_out = 0;
CREATE INDEX webhook_events_created ON webhook_events(created_on);

CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id INTEGER NOT NULL,
  -- The webhook-id header: the same across retries and redeliveries.
  msg_id TEXT NOT NULL,
  type TEXT NOT NULL,
  body TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'pending',
  -- A redelivery asked for by the owner: one attempt, not counted toward disabling.
  manual INTEGER NOT NULL DEFAULT 0,
  response_code INTEGER,
  response_body TEXT,
  duration_ms INTEGER,
  next_attempt_on TEXT,
  created_on TEXT NOT NULL,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_list ON webhook_deliveries(webhook_id, id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_on) WHERE next_attempt_on IS NOT NULL;
CREATE INDEX webhook_deliveries_created ON webhook_deliveries(created_on);
