-- Reference verification (docs/adr/0024-reference-verification.md): every reference entry of a
-- thesis is looked up in scholarly indexes (OpenAlex- and Crossref-compatible APIs) and in the
-- locally imported Retraction Watch data. Off unless the server enables it
-- (CITEPROOF_VERIFY_ENABLED) and the user switches it on.
ALTER TABLE users ADD COLUMN verify_references boolean NOT NULL DEFAULT false;

-- A run whose references are being verified: NULL (not asked), 'pending', 'done'. While it is
-- pending the run cannot complete: it waits in status 'verifying' (at most the stage's deadline).
ALTER TABLE runs ADD COLUMN verification text CHECK (verification IN ('pending', 'done'));
ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check CHECK (status IN (
    'waiting_for_documents', 'planning', 'retrieving', 'judging', 'verifying', 'completed',
    'cancelled', 'failed'));

-- Whatever completes a run (the planner with nothing to check, the judge with the last verdict,
-- the retriever's failure hook), the run waits for its pending verification; the verify stage
-- completes it when it is done. The database holds the rule, so no completing path can forget.
CREATE FUNCTION runs_wait_for_verification() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status = 'completed' AND NEW.verification = 'pending' THEN
        NEW.status := 'verifying';
        NEW.finished_at := NULL;
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER runs_wait_for_verification
BEFORE INSERT OR UPDATE OF status, verification ON runs
FOR EACH ROW EXECUTE FUNCTION runs_wait_for_verification();

-- The verify stage's queue: one row per run (its entries are looked up together, under one
-- deadline); `deadline_at` is fixed at planning, so a retried task does not extend it.
CREATE TABLE verify_tasks (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id            uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    user_id           uuid NOT NULL,
    deadline_at       timestamptz NOT NULL,
    state             text NOT NULL DEFAULT 'queued'
                      CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'dead', 'cancelled')),
    priority          smallint NOT NULL DEFAULT 0,
    attempts          integer NOT NULL DEFAULT 0,
    max_attempts      integer NOT NULL DEFAULT 3,
    run_after         timestamptz NOT NULL DEFAULT now(),
    claimed_at        timestamptz,
    lease_expires_at  timestamptz,
    worker_id         text,
    claim_token       uuid,
    last_error        text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    UNIQUE (run_id)
);
CREATE INDEX verify_tasks_queued_idx ON verify_tasks (priority, run_after) WHERE state = 'queued';
CREATE INDEX verify_tasks_running_idx ON verify_tasks (lease_expires_at) WHERE state = 'running';
CREATE INDEX verify_tasks_worker_idx ON verify_tasks (worker_id) WHERE state = 'running';
CREATE INDEX verify_tasks_dead_idx ON verify_tasks (id) WHERE state = 'dead';
CREATE INDEX verify_tasks_user_queued_idx ON verify_tasks (user_id, priority, run_after)
    WHERE state = 'queued';

-- What an index answered to one question ("crossref", "doi", "10.1038/..."), shared by every
-- user: bibliographic data is public. `records` holds the answer's works in citeproof's compact
-- form (title, authors, year, venue, identifiers, notices), never the raw response. Errors and
-- unreachable servers are not cached. Asked again after the TTL (retractions happen).
CREATE TABLE scholarly_lookups (
    index_name    text NOT NULL,
    query_kind    text NOT NULL,
    query_key     text NOT NULL,
    status        text NOT NULL CHECK (status IN ('found', 'none')),
    records       jsonb NOT NULL DEFAULT '[]'::jsonb,
    looked_up_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (index_name, query_kind, query_key)
);

-- Per run and entry: where it was looked up, what answered, which work it matched - the report's
-- "looked up where / not looked up". Findings go to `findings` (producer 'verify').
CREATE TABLE reference_checks (
    run_id        uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    reference_id  bigint NOT NULL REFERENCES "references" (id) ON DELETE CASCADE,
    status        text NOT NULL CHECK (status IN ('verified', 'not_found', 'not_looked_up')),
    body          jsonb NOT NULL,
    PRIMARY KEY (run_id, reference_id)
);

-- The Retraction Watch data set as published (Crossref's CSV), imported by
-- `citeproof retractions import FILE`: one row per notice (a retraction, an expression of
-- concern, a correction, a reinstatement), matched by the original paper's DOI, PMID, then its
-- normalised title. Works with no network at all.
CREATE TABLE retraction_notices (
    record_id         text PRIMARY KEY,
    nature            text NOT NULL,
    title             text NOT NULL DEFAULT '',
    title_key         text NOT NULL DEFAULT '',
    authors           text NOT NULL DEFAULT '',
    journal           text NOT NULL DEFAULT '',
    original_doi      text,
    original_pmid     text,
    original_date     date,
    notice_doi        text,
    notice_pmid       text,
    notice_date       date,
    reasons           text[] NOT NULL DEFAULT '{}',
    urls              text NOT NULL DEFAULT '',
    imported_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX retraction_notices_doi_idx ON retraction_notices (original_doi)
    WHERE original_doi IS NOT NULL;
CREATE INDEX retraction_notices_pmid_idx ON retraction_notices (original_pmid)
    WHERE original_pmid IS NOT NULL;
CREATE INDEX retraction_notices_title_idx ON retraction_notices (title_key) WHERE title_key <> '';
