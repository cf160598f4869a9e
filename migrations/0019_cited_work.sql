-- What each citation's marker item names as printed (citeproof.contracts.thesis.CitedWork:
-- number, or names + year + suffix), so that planning can tell why an unlinked citation has no
-- entry: a year suffix the list lacks (CP413), a number beyond the list (CP415). NULL for note
-- numbers, explicit keys and rows written before this column.
ALTER TABLE citations ADD COLUMN cited jsonb;
