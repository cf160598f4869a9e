-- Citations whose marker names no reference entry strictly (first author, year, year suffix,
-- number of authors) keep the labels of the entries they nearly matched, closest first, so the
-- report can show them next to the `reference_missing` verdict. Never used as a link.
ALTER TABLE citations ADD COLUMN candidate_labels text[] NOT NULL DEFAULT '{}';
