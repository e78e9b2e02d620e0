-- Groups area: profile fields, options and pictures of user groups, organisations and
-- organisation groups. One row per entry, keyed like a path below the group's profile:
--   name, description, picture/mask     text in `value`
--   picture/image, picture/banner       bytes in R2 at g/<group id>/<path>; `content_type` set
--   options/<option>                    'yes' (a missing row reads 'no')
CREATE TABLE group_entries (
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  value TEXT,
  content_type TEXT,
  size INTEGER NOT NULL,
  created_on TEXT NOT NULL,
  last_modified TEXT NOT NULL,
  PRIMARY KEY (group_id, path)
);
-- Browsing: every group (user, org, org group) of a kind, and the members of a role.
CREATE INDEX groups_kind_owner ON groups(kind, owner_id);
CREATE INDEX members_group_role ON members(group_id, role, state);
