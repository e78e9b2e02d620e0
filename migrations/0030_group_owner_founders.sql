-- The owner of a group always holds it as an active founder: the user whose namespace a user
-- group (@user~group) is in, and the organisation account of an organisation (groups.owner_id;
-- an organisation group has no owner). src/groups/members.ts refuses every change that would
-- remove or demote them. Before that rule another founder could remove or demote the owner,
-- leaving the group in the owner's namespace but out of their reach (and, for an organisation
-- account, unable to delete the organisation that refuses its account's deletion). This puts
-- every such owner back as an active founder; owners who are one already are left as they are.
INSERT INTO members (group_id, user_id, role, state, invited_by, created_on, last_modified)
SELECT id, owner_id, 'founders', 'active', NULL,
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM groups
WHERE kind IN ('user_group', 'org') AND owner_id IS NOT NULL
ON CONFLICT (group_id, user_id) DO UPDATE
  SET role = 'founders', state = 'active', last_modified = excluded.last_modified
  WHERE NOT (members.role = 'founders' AND members.state = 'active');
