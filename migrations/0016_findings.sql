-- Findings: what a rule of the citation linter or of reference verification showed about a
-- citation or a reference entry, per run (docs/rules.md; payload: citeproof.contracts.findings).
-- `producer` is the stage that wrote the row: a retried task deletes its own rows for the same
-- subject and writes them again in the same transaction, so a retry never doubles a finding.
CREATE TABLE findings (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id        uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    citation_id   bigint REFERENCES citations (id) ON DELETE CASCADE,
    reference_id  bigint REFERENCES "references" (id) ON DELETE CASCADE,
    rule          text NOT NULL,
    producer      text NOT NULL,
    body          jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CHECK (citation_id IS NOT NULL OR reference_id IS NOT NULL)
);
CREATE INDEX findings_run_idx ON findings (run_id, producer);
CREATE INDEX findings_citation_idx ON findings (citation_id) WHERE citation_id IS NOT NULL;
CREATE INDEX findings_reference_idx ON findings (reference_id) WHERE reference_id IS NOT NULL;
