-- Pinpoints and printed page labels for the citation linter's quotation and page rules
-- (docs/architecture.md, "Content rules").
-- citations.pinpoint_pages: the printed page labels the citation's pinpoint names ("p. 5" ->
-- {5}, "pp. 1123-25" -> {1123,1124,1125}, roman numerals in lower case); empty when it names
-- no page. citations.block_quote: the block quotation the marker closes, verbatim.
ALTER TABLE citations
    ADD COLUMN pinpoint_pages text[] NOT NULL DEFAULT '{}',
    ADD COLUMN block_quote text;
-- documents.page_labels: per PDF page (index 1 = element 1), the page number printed on it
-- ("1123", "xiv"), NULL where none was found; NULL for documents without pages or parsed
-- before this migration. page_label_offset: printed number minus PDF page index on the pages
-- numbered in arabic figures (1122 for an article starting on p. 1123), NULL when unknown.
ALTER TABLE documents
    ADD COLUMN page_labels text[],
    ADD COLUMN page_label_offset integer;
