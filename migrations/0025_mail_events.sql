-- Mail transport results, bounces and complaints (src/mail/events.ts):
-- the outbox row of a message names its e-mail and the id the transport gave it, a send's
-- stats row names its send, and each bounce or complaint event is kept once per event id.
ALTER TABLE outbox ADD COLUMN resource_id INTEGER;
ALTER TABLE outbox ADD COLUMN provider_id TEXT;
CREATE INDEX outbox_provider_id ON outbox(provider_id) WHERE provider_id IS NOT NULL;
ALTER TABLE mail_runs ADD COLUMN send_id TEXT;

CREATE TABLE mail_events (
  id TEXT PRIMARY KEY,             -- the webhook's event id: a redelivery is recorded once
  resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
  send_id TEXT NOT NULL,
  type TEXT NOT NULL,              -- bounced | complained
  created_on TEXT NOT NULL
);
CREATE INDEX mail_events_send ON mail_events(resource_id, send_id);
