-- What a chunk is for (citeproof/contracts/chunks.py): 'body' chunks are evidence;
-- 'front_matter' chunks hold a document's title, author list, affiliations, venue and DOI lines,
-- stored so the chunks still cover the text, and never retrieved. Existing rows are body, as
-- they were treated before.
ALTER TABLE chunks ADD COLUMN role text NOT NULL DEFAULT 'body'
    CHECK (role IN ('body', 'front_matter'));
