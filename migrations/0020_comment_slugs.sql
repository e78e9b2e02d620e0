-- Topics and comments named by a slug their author chooses (PUT <subject>/threads/<slug>,
-- PUT .../threads/@<author>~<topic>/comments/<slug>), unique per author among siblings and
-- addressed as @<author>~<slug>; each has its own text (POST .../msg), marked edited when
-- rewritten. Comments written before slugs existed keep none: their id names them.
ALTER TABLE threads ADD COLUMN message TEXT NOT NULL DEFAULT '';
ALTER TABLE threads ADD COLUMN edited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE threads ADD COLUMN updated_on TEXT;
ALTER TABLE thread_comments ADD COLUMN slug TEXT;
ALTER TABLE thread_comments ADD COLUMN edited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE thread_comments ADD COLUMN updated_on TEXT;
-- A topic's slug is unique per author on a subject (was: per subject). Same index names, so
-- replaying 0007's CREATE ... IF NOT EXISTS leaves these in place.
DROP INDEX IF EXISTS threads_resource_topic;
DROP INDEX IF EXISTS threads_group_topic;
CREATE UNIQUE INDEX threads_resource_topic ON threads(resource_id, created_by, topic);
CREATE UNIQUE INDEX threads_group_topic ON threads(group_id, created_by, topic);
-- A comment's slug is unique per author among the comments of one parent (the topic: 0).
CREATE UNIQUE INDEX thread_comments_slug ON thread_comments(thread_id, ifnull(parent_id, 0), author_id, slug) WHERE slug IS NOT NULL;
