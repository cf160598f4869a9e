-- Lookups that otherwise scan whole tables:
-- * deleting a document and the re-upload check find its parse items by document;
-- * /metrics counts dead rows per queue on every scrape (dead rows are few; the index
--   keeps the count independent of how many rows succeeded).
CREATE INDEX parse_items_document_idx ON parse_items (document_id);
CREATE INDEX parse_items_dead_idx ON parse_items (id) WHERE state = 'dead';
CREATE INDEX runs_dead_idx ON runs (id) WHERE state = 'dead';
CREATE INDEX retrieve_tasks_dead_idx ON retrieve_tasks (id) WHERE state = 'dead';
CREATE INDEX judge_tasks_dead_idx ON judge_tasks (id) WHERE state = 'dead';
-- Foreign keys followed by ON DELETE CASCADE when a run or citation goes away.
CREATE INDEX retrieve_tasks_citation_idx ON retrieve_tasks (citation_id);
CREATE INDEX judge_tasks_citation_idx ON judge_tasks (citation_id);
CREATE INDEX evidence_citation_idx ON evidence (citation_id);
CREATE INDEX verdicts_citation_idx ON verdicts (citation_id);
CREATE INDEX citations_reference_idx ON citations (reference_id);
