-- The verdict cache belongs to one user: an entry is found only by the user who caused it (so
-- neither its verdict nor the speed of a hit says anything about another tenant), and it goes
-- with the data it was made from. `document_ids` are the thesis and the sources whose text the
-- entry's claim, passages and quote come from; deleting any of them (or the user) deletes it.
-- Existing entries have no owner: they are dropped (a cache, rebuilt on the next run).
DELETE FROM verdict_cache;
ALTER TABLE verdict_cache DROP CONSTRAINT verdict_cache_pkey;
ALTER TABLE verdict_cache
    ADD COLUMN user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    ADD COLUMN document_ids uuid[] NOT NULL;
ALTER TABLE verdict_cache ADD PRIMARY KEY (user_id, cache_key);
CREATE INDEX verdict_cache_documents_idx ON verdict_cache USING gin (document_ids);

-- Every path that deletes a document purges its entries, not only the API's delete.
CREATE FUNCTION verdict_cache_purge_document() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM verdict_cache
    WHERE user_id = OLD.user_id AND document_ids @> ARRAY[OLD.id];
    RETURN OLD;
END;
$$;
CREATE TRIGGER documents_purge_verdict_cache AFTER DELETE ON documents
    FOR EACH ROW EXECUTE FUNCTION verdict_cache_purge_document();
