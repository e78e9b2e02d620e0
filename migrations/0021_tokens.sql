-- Tokens a person can manage: when each was last used (written at most once a day), an
-- optional expiry chosen at sign-in, and a scope (`full`, or `read`: GET/HEAD and GraphQL
-- only). Tokens issued before keep no expiry and the full scope.
ALTER TABLE tokens ADD COLUMN last_used_on TEXT;
ALTER TABLE tokens ADD COLUMN expires_on TEXT;
ALTER TABLE tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'full';
