-- Who registered each webhook endpoint. An organisation's endpoint belongs to the
-- organisation's account and keeps receiving the organisation's events after the admin who
-- created it leaves (docs/areas/webhooks.md): created_by only names that admin, and goes
-- null when their account is deleted. Endpoints from before: a user's own were created by
-- that user; who created an organisation's is not known (null).
ALTER TABLE webhooks ADD COLUMN created_by INTEGER REFERENCES users(id) ON DELETE SET NULL;
UPDATE webhooks SET created_by = owner_id
  WHERE owner_id NOT IN (SELECT owner_id FROM groups WHERE kind = 'org' AND owner_id IS NOT NULL);
