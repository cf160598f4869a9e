-- The claim as retrieval and the judge see it: the citing sentence without its citation markers
-- (narrative markers with their author names), written by the parser so that one claim reads the
-- same in every citation style. '' for rows written before it existed: readers fall back to
-- claim_text then.
ALTER TABLE citations ADD COLUMN claim_checked text NOT NULL DEFAULT '';
