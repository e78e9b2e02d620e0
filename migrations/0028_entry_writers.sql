-- Who wrote each text entry: a reference in content is resolved, when the content is used,
-- with the rights of the resource's owner and of whoever wrote the entry holding it
-- (src/core/resource/composition.ts). NULL: written before this column, or by the
-- platform itself; both count as the resource's owner.
ALTER TABLE entries ADD COLUMN written_by INTEGER;
-- References a later writer kept unchanged keep the rights they were written with: a JSON
-- object from the reference (as the write check names it) to those users' ids. NULL: every
-- reference of the value lends its writer's rights.
ALTER TABLE entries ADD COLUMN vouched TEXT;
