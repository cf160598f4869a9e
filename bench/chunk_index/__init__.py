"""Chunk-insert cost with and without an HNSW index on `chunks.embedding` (run it with
`python -m bench.chunk_index`; method in `__main__`)."""
