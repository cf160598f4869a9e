-- Upload bytes on their way into parse_items.file_bytes, in bounded pieces: the API sends a file
-- one chunk per statement and PostgreSQL assembles it (string_agg), so no API process ever holds
-- a whole file. Rows exist only inside the staging transaction that writes and deletes them.
CREATE TABLE staged_upload_chunks (
    upload_id uuid NOT NULL,
    seq       integer NOT NULL,
    data      bytea NOT NULL,
    PRIMARY KEY (upload_id, seq)
);
