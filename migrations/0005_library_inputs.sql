-- Reference-manager libraries and LaTeX sources (docs/adr/0012-reference-manager-libraries.md).
-- A third document kind: a bibliography export (.bib/.ris/CSL .json) whose entries are stored as
-- its "references" rows (label = citation key).
ALTER TABLE documents DROP CONSTRAINT documents_kind_check;
ALTER TABLE documents ADD CONSTRAINT documents_kind_check
    CHECK (kind IN ('thesis', 'source', 'bibliography'));
ALTER TABLE session_sources DROP CONSTRAINT session_sources_kind_check;
ALTER TABLE session_sources ADD CONSTRAINT session_sources_kind_check
    CHECK (kind IN ('thesis', 'source', 'bibliography'));
-- Files the reference manager attached to an entry (paths as exported, JSON array of strings).
ALTER TABLE "references" ADD COLUMN attachments jsonb NOT NULL DEFAULT '[]'::jsonb;
-- Where a citation sits in a LaTeX source: file inside the project and 1-based line.
ALTER TABLE citations ADD COLUMN source_file text;
ALTER TABLE citations ADD COLUMN source_line integer;
