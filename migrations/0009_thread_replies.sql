-- Replies to comments (client contract: POST <resource>/threads/@<user>~<topic>/comments/<comment>/msg).
-- A reply is a comment of the same thread whose parent_id names the comment it answers;
-- removing a comment removes the replies below it.
ALTER TABLE thread_comments ADD COLUMN parent_id INTEGER REFERENCES thread_comments(id) ON DELETE CASCADE;
