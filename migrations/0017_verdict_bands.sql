-- The judge's calibrated probability that a citation is not supported as written, and the risk
-- band it falls in (citeproof.pipeline.BANDS): reports list likely problems first and
-- `--fail-on likely-problem` selects them. NULL for verdicts that give no probability (the
-- pipeline's own labels, a backend without one, verdicts written before this migration).
ALTER TABLE verdicts
    ADD COLUMN problem_probability real CHECK (problem_probability BETWEEN 0 AND 1),
    ADD COLUMN band text CHECK (band IN ('likely_problem', 'uncertain', 'likely_fine'));
ALTER TABLE verdict_cache
    ADD COLUMN problem_probability real CHECK (problem_probability BETWEEN 0 AND 1),
    ADD COLUMN band text CHECK (band IN ('likely_problem', 'uncertain', 'likely_fine'));
