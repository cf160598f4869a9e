-- The HNSW index on chunks.embedding (0001_initial) serves no query: retrieval ranks the
-- chunks of ONE document exactly (the MATERIALIZED CTE of the retriever's vector search reads
-- them through chunks_user_document_idx), and a citation without a single linked source is
-- reported source_missing, not searched session-wide. Every chunk insert still paid to
-- maintain the graph: bench/results/chunk_index.json, docs/adr/0017-no-hnsw-index-on-chunks.md.
DROP INDEX IF EXISTS chunks_embedding_hnsw;
