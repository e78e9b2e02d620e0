-- An event and its deliveries are now written in one batch (src/webhooks/record.ts): no
-- fan-out is left for later, so the fanned_out mark goes. A test ping names the one
-- endpoint it is for.
DROP INDEX webhook_events_pending;
ALTER TABLE webhook_events DROP COLUMN fanned_out;
ALTER TABLE webhook_events ADD COLUMN webhook_id INTEGER;
