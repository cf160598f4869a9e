-- Optional open-access lookup of references with a DOI and no uploaded PDF
-- (docs/adr/0020-open-access-lookup.md). Off unless the server enables it and the user opts in.
ALTER TABLE users ADD COLUMN open_access_lookup boolean NOT NULL DEFAULT false;

-- What the OpenAlex/Unpaywall-compatible API said about a DOI (lower-case), shared by every
-- user: it is public bibliographic data. `found`: an open-access PDF URL; `none`: no PDF;
-- `fetch_failed`: the URL did not give a PDF (detail says why). Re-asked after the TTL.
CREATE TABLE open_access_lookups (
    doi          text PRIMARY KEY,
    status       text NOT NULL CHECK (status IN ('found', 'none', 'fetch_failed')),
    pdf_url      text,
    detail       text,
    looked_up_at timestamptz NOT NULL DEFAULT now()
);

-- The document a user's lookup fetched for a DOI (documents are per user, content addressed).
CREATE TABLE open_access_documents (
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    doi         text NOT NULL,
    document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    fetched_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, doi)
);
CREATE INDEX open_access_documents_document_idx ON open_access_documents (document_id);
