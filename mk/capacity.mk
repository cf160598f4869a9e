# Capacity benchmarks: what one replica of each stage does, and what the schema costs.
BENCH_TARGETS += bench-e2e bench-chunk-index

.PHONY: bench-e2e bench-chunk-index

# K users submit K distinct theses at once through the API: the distributed stack, the
# in-process baseline (same CPU budget) and a second replica of the bottleneck service, each
# on a fresh embedded PostgreSQL; then the real_thesis workload (one thesis of 153 citations over
# 64 sources of 10-40 pages, on-demand vs parse-time embeddings, and a re-check after an edit).
# Options: `make bench-e2e BENCH_E2E_ARGS="--theses 8"`, `BENCH_E2E_ARGS="--workload real_thesis"`
# (that workload alone; it replaces only `real_thesis` in e2e.json). Heavy: run it niced.
BENCH_E2E_ARGS ?=
bench-e2e: setup ## end-to-end throughput on distinct theses vs the in-process baseline (bench/results/e2e.json)
	$(PY) -m bench.e2e $(BENCH_E2E_ARGS)

# Chunk-insert cost with and without an HNSW index on chunks.embedding at 10k and 100k chunks.
BENCH_CHUNK_INDEX_ARGS ?=
bench-chunk-index: setup ## chunk-insert cost with and without an HNSW index (bench/results/chunk_index.json)
	$(PY) -m bench.chunk_index $(BENCH_CHUNK_INDEX_ARGS)
