-- Idempotent delivery: each message handed to the transport carries a stable
-- Message-ID (per send x recipient); the outbox holds it at most once, so a send resumed
-- after a hard kill skips the recipients it already handed off.
ALTER TABLE outbox ADD COLUMN message_id TEXT;
CREATE UNIQUE INDEX outbox_message_id ON outbox(message_id) WHERE message_id IS NOT NULL;
