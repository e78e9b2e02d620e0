-- An endpoint's pending deliveries (due now, or waiting for a retry), found without reading
-- its delivered ones: the delivery pass's read of what is due and of when the next falls due
-- (src/webhooks/attempts.ts) used the (webhook_id, event_id) index and walked every delivery
-- the endpoint ever had within retention, once per pass.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, next_attempt_on)
  WHERE next_attempt_on IS NOT NULL;
