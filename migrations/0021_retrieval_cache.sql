-- Re-checking an edited thesis (issue 28, ADR 0022): the evidence a claim got from a source is
-- kept, so the next run that asks the same claim of the same parse of the same source reuses it
-- instead of retrieving again; identical evidence then finds its verdict in `verdict_cache`.
-- Like the verdict cache it belongs to one user (found only by the user who caused it) and goes
-- with the source it was taken from. `cache_key` is a sha256 over the query, the document's
-- parse time and every setting retrieval depends on (citeproof.retriever.evidence_cache).
CREATE TABLE retrieval_cache (
    user_id      uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    document_id  uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    cache_key    bytea NOT NULL,
    -- The passages as the retriever hands them over: rank, chunk_id, page, text and scores.
    passages     jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, document_id, cache_key)
);
-- Deleting a document (or its user) drops its entries through the foreign keys; the primary
-- key serves the lookups.
CREATE INDEX retrieval_cache_document_idx ON retrieval_cache (document_id);

-- Progress that tells what a run did: how many of its citations reused earlier evidence (a
-- re-check), and how many source passages its retrievals embedded on demand (the work that
-- moved from parsing to retrieval).
ALTER TABLE runs
    ADD COLUMN evidence_reused integer NOT NULL DEFAULT 0,
    ADD COLUMN chunks_embedded integer NOT NULL DEFAULT 0;
