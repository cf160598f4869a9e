-- citeproof initial schema. See docs/architecture.md for how each table is used.
-- Applied by the migration runner under pg_advisory_lock; never edit once applied
-- (the runner refuses a changed checksum) — add a new migration instead.

CREATE EXTENSION IF NOT EXISTS vector;

-- ---------------------------------------------------------------------------------------
-- Tenancy
-- ---------------------------------------------------------------------------------------
CREATE TABLE users (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_tokens (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id       uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- sha256 of the token; the token itself is shown once and never stored.
    token_hash    bytea NOT NULL UNIQUE,
    label         text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz,
    revoked_at    timestamptz
);

CREATE TABLE sessions (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user_idx ON sessions (user_id, created_at DESC);

-- ---------------------------------------------------------------------------------------
-- Documents and their parsed content
-- ---------------------------------------------------------------------------------------
CREATE TABLE documents (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id        uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sha256         bytea NOT NULL,
    kind           text NOT NULL CHECK (kind IN ('thesis', 'source')),
    filename       text NOT NULL,
    declared_type  text,
    detected_type  text,
    size_bytes     bigint NOT NULL,
    -- pending: staged, not parsed yet; parsed; failed (error_code says why).
    state          text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'parsed', 'failed')),
    error_code     text,
    error_detail   text,
    notes          jsonb NOT NULL DEFAULT '[]'::jsonb,
    pages          integer,
    title          text,
    authors        jsonb NOT NULL DEFAULT '[]'::jsonb,
    year           integer,
    doi            text,
    text_content   text,
    page_starts    integer[],
    created_at     timestamptz NOT NULL DEFAULT now(),
    parsed_at      timestamptz,
    UNIQUE (user_id, sha256)
);

CREATE TABLE session_sources (
    session_id   uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    document_id  uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    kind         text NOT NULL CHECK (kind IN ('thesis', 'source')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, document_id)
);
CREATE INDEX session_sources_document_idx ON session_sources (document_id);

CREATE TABLE chunks (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id  uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    -- Denormalised so that every retrieval query can filter by tenant without a join.
    user_id      uuid NOT NULL,
    ordinal      integer NOT NULL,
    page_start   integer NOT NULL,
    page_end     integer NOT NULL,
    char_start   integer NOT NULL,
    char_end     integer NOT NULL,
    heading      text,
    text         text NOT NULL,
    embedding    vector(384),
    UNIQUE (document_id, ordinal)
);
CREATE INDEX chunks_user_document_idx ON chunks (user_id, document_id);
-- Session-wide search when a citation has no single linked source.
CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops);

-- ---------------------------------------------------------------------------------------
-- Thesis analysis
-- ---------------------------------------------------------------------------------------
CREATE TABLE "references" (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id  uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal      integer NOT NULL,
    label        text NOT NULL,
    raw          text NOT NULL,
    authors      jsonb NOT NULL DEFAULT '[]'::jsonb,
    year         integer,
    year_suffix  text,
    title        text,
    venue        text,
    doi          text,
    arxiv_id     text,
    UNIQUE (document_id, ordinal)
);
CREATE INDEX references_document_label_idx ON "references" (document_id, label);

CREATE TABLE citations (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id    uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal        integer NOT NULL,
    reference_id   bigint REFERENCES "references"(id) ON DELETE SET NULL,
    reference_label text,
    marker_text    text NOT NULL,
    marker_start   integer NOT NULL,
    marker_end     integer NOT NULL,
    claim_text     text NOT NULL,
    claim_start    integer NOT NULL,
    claim_end      integer NOT NULL,
    context_text   text,
    page           integer,
    pinpoint       text,
    UNIQUE (document_id, ordinal)
);

-- Explicit reference -> document mapping set by a user; beats the automatic linker.
CREATE TABLE reference_overrides (
    session_id          uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    thesis_document_id  uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    label               text NOT NULL,
    -- NULL means "this reference has no source": report it source_missing.
    document_id         uuid REFERENCES documents(id) ON DELETE CASCADE,
    created_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, thesis_document_id, label)
);

-- ---------------------------------------------------------------------------------------
-- Stage queues. Every queue table carries the same claim columns; the runtime in
-- citeproof.queue is the only code that changes them.
-- ---------------------------------------------------------------------------------------
CREATE TABLE parse_jobs (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    session_id   uuid REFERENCES sessions(id) ON DELETE SET NULL,
    state        text NOT NULL DEFAULT 'queued'
                 CHECK (state IN ('queued', 'running', 'succeeded', 'partial', 'failed')),
    total_items      integer NOT NULL DEFAULT 0,
    succeeded_items  integer NOT NULL DEFAULT 0,
    failed_items     integer NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);
CREATE INDEX parse_jobs_active_idx ON parse_jobs (user_id) WHERE state IN ('queued', 'running');

CREATE TABLE parse_items (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id            uuid NOT NULL REFERENCES parse_jobs(id) ON DELETE CASCADE,
    user_id           uuid NOT NULL,
    document_id       uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    filename          text NOT NULL,
    declared_type     text,
    size_bytes        bigint NOT NULL,
    -- Raw upload, staged only until the item is terminal (then NULLed by the terminal hook).
    file_bytes        bytea,
    error_code        text,
    error_detail      text,
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
    finished_at       timestamptz
);
CREATE INDEX parse_items_queued_idx ON parse_items (priority, run_after) WHERE state = 'queued';
CREATE INDEX parse_items_running_idx ON parse_items (lease_expires_at) WHERE state = 'running';
CREATE INDEX parse_items_worker_idx ON parse_items (worker_id) WHERE state = 'running';
CREATE INDEX parse_items_job_idx ON parse_items (job_id);
CREATE INDEX parse_items_staged_idx ON parse_items (created_at) WHERE file_bytes IS NOT NULL;
CREATE INDEX parse_items_user_active_idx ON parse_items (user_id) WHERE file_bytes IS NOT NULL;

CREATE TABLE runs (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id             uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    session_id          uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    thesis_document_id  uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    -- The user-facing lifecycle; `state` below is the planning queue's claim state.
    status              text NOT NULL DEFAULT 'waiting_for_documents'
                        CHECK (status IN ('waiting_for_documents', 'planning', 'retrieving',
                                          'judging', 'completed', 'cancelled', 'failed')),
    -- Documents linked to the session when the run was created: planning waits for them.
    document_ids        uuid[] NOT NULL DEFAULT '{}',
    citations_total     integer NOT NULL DEFAULT 0,
    tasks_total         integer NOT NULL DEFAULT 0,
    retrieved           integer NOT NULL DEFAULT 0,
    judged              integer NOT NULL DEFAULT 0,
    counts              jsonb NOT NULL DEFAULT '{}'::jsonb,
    message             text,
    state             text NOT NULL DEFAULT 'queued'
                      CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'dead', 'cancelled')),
    priority          smallint NOT NULL DEFAULT 0,
    attempts          integer NOT NULL DEFAULT 0,
    max_attempts      integer NOT NULL DEFAULT 5,
    run_after         timestamptz NOT NULL DEFAULT now(),
    claimed_at        timestamptz,
    lease_expires_at  timestamptz,
    worker_id         text,
    claim_token       uuid,
    last_error        text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz
);
CREATE INDEX runs_queued_idx ON runs (priority, run_after) WHERE state = 'queued';
CREATE INDEX runs_running_idx ON runs (lease_expires_at) WHERE state = 'running';
CREATE INDEX runs_worker_idx ON runs (worker_id) WHERE state = 'running';
CREATE INDEX runs_session_idx ON runs (session_id);
CREATE INDEX runs_user_idx ON runs (user_id, created_at DESC);

-- Reference -> source document links as decided when a run was planned.
CREATE TABLE run_reference_links (
    run_id        uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    reference_id  bigint NOT NULL REFERENCES "references"(id) ON DELETE CASCADE,
    document_id   uuid REFERENCES documents(id) ON DELETE SET NULL,
    score         real NOT NULL,
    method        text NOT NULL,
    PRIMARY KEY (run_id, reference_id)
);

CREATE TABLE retrieve_tasks (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id              uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    citation_id         bigint NOT NULL REFERENCES citations(id) ON DELETE CASCADE,
    user_id             uuid NOT NULL,
    source_document_id  uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    state             text NOT NULL DEFAULT 'queued'
                      CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'dead', 'cancelled')),
    priority          smallint NOT NULL DEFAULT 0,
    attempts          integer NOT NULL DEFAULT 0,
    max_attempts      integer NOT NULL DEFAULT 5,
    run_after         timestamptz NOT NULL DEFAULT now(),
    claimed_at        timestamptz,
    lease_expires_at  timestamptz,
    worker_id         text,
    claim_token       uuid,
    last_error        text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    UNIQUE (run_id, citation_id)
);
CREATE INDEX retrieve_tasks_queued_idx ON retrieve_tasks (priority, run_after) WHERE state = 'queued';
CREATE INDEX retrieve_tasks_running_idx ON retrieve_tasks (lease_expires_at) WHERE state = 'running';
CREATE INDEX retrieve_tasks_worker_idx ON retrieve_tasks (worker_id) WHERE state = 'running';

CREATE TABLE judge_tasks (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id            uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    citation_id       bigint NOT NULL REFERENCES citations(id) ON DELETE CASCADE,
    user_id           uuid NOT NULL,
    state             text NOT NULL DEFAULT 'queued'
                      CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'dead', 'cancelled')),
    priority          smallint NOT NULL DEFAULT 0,
    attempts          integer NOT NULL DEFAULT 0,
    max_attempts      integer NOT NULL DEFAULT 5,
    run_after         timestamptz NOT NULL DEFAULT now(),
    claimed_at        timestamptz,
    lease_expires_at  timestamptz,
    worker_id         text,
    claim_token       uuid,
    last_error        text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    UNIQUE (run_id, citation_id)
);
CREATE INDEX judge_tasks_queued_idx ON judge_tasks (priority, run_after) WHERE state = 'queued';
CREATE INDEX judge_tasks_running_idx ON judge_tasks (lease_expires_at) WHERE state = 'running';
CREATE INDEX judge_tasks_worker_idx ON judge_tasks (worker_id) WHERE state = 'running';

-- ---------------------------------------------------------------------------------------
-- Results
-- ---------------------------------------------------------------------------------------
CREATE TABLE evidence (
    run_id        uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    citation_id   bigint NOT NULL REFERENCES citations(id) ON DELETE CASCADE,
    rank          integer NOT NULL,
    chunk_id      bigint REFERENCES chunks(id) ON DELETE SET NULL,
    page          integer,
    text          text NOT NULL,
    vector_score  real,
    bm25_score    real,
    fused_score   real NOT NULL,
    PRIMARY KEY (run_id, citation_id, rank)
);

CREATE TABLE verdicts (
    run_id             uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    citation_id        bigint NOT NULL REFERENCES citations(id) ON DELETE CASCADE,
    label              text NOT NULL CHECK (label IN ('supported', 'partially_supported',
                           'unsupported', 'contradicted', 'source_missing', 'source_unreadable',
                           'not_checkable', 'judge_error')),
    confidence         real NOT NULL DEFAULT 0,
    rationale          text NOT NULL DEFAULT '',
    quote              text,
    quote_page         integer,
    backend            text NOT NULL,
    model              text NOT NULL DEFAULT '',
    prompt_version     text NOT NULL DEFAULT '',
    latency_ms         real NOT NULL DEFAULT 0,
    prompt_tokens      integer NOT NULL DEFAULT 0,
    completion_tokens  integer NOT NULL DEFAULT 0,
    downgraded_from    text,
    downgrade_reason   text,
    cached             boolean NOT NULL DEFAULT false,
    created_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, citation_id)
);

CREATE TABLE verdict_cache (
    -- sha256 over (claim, context, evidence texts, backend, model, prompt version).
    cache_key          bytea PRIMARY KEY,
    label              text NOT NULL,
    confidence         real NOT NULL,
    rationale          text NOT NULL,
    quote              text,
    quote_page         integer,
    backend            text NOT NULL,
    model              text NOT NULL,
    prompt_version     text NOT NULL,
    prompt_tokens      integer NOT NULL DEFAULT 0,
    completion_tokens  integer NOT NULL DEFAULT 0,
    downgraded_from    text,
    downgrade_reason   text,
    created_at         timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------------------------
-- Operations
-- ---------------------------------------------------------------------------------------
CREATE TABLE worker_heartbeats (
    worker_id     text PRIMARY KEY,
    service       text NOT NULL,
    version       text NOT NULL,
    capabilities  text[] NOT NULL DEFAULT '{}',
    hostname      text NOT NULL,
    pid           integer NOT NULL,
    started_at    timestamptz NOT NULL DEFAULT now(),
    last_seen     timestamptz NOT NULL DEFAULT now(),
    draining      boolean NOT NULL DEFAULT false
);
CREATE INDEX worker_heartbeats_last_seen_idx ON worker_heartbeats (last_seen);

-- Sliding-window rate limiting: one row per admitted request, pruned as windows pass.
CREATE TABLE rate_limit_events (
    user_id  uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    bucket   text NOT NULL,
    at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rate_limit_events_idx ON rate_limit_events (user_id, bucket, at);
