# Local embedding runtimes (torch fp32 vs ONNX Runtime fp32/int8): throughput on real parser
# chunks and retrieval quality on Check-COVID, interleaved in one run; writes
# bench/results/embed.json. `make bench-embed EMBED_BENCH_ARGS="--rounds 5"`.
BENCH_TARGETS += bench-embed
EMBED_BENCH_ARGS ?=

.PHONY: bench-embed embeddings-cache

#
bench-embed: setup ## embedding runtimes: throughput and retrieval quality (bench/results/embed.json)
	$(PY) -m bench.embed $(EMBED_BENCH_ARGS)

# Pre-build the ONNX models into CITEPROOF_EMBEDDINGS_CACHE_DIR (default ~/.cache/citeproof/onnx).
embeddings-cache: setup ## pre-build the ONNX embedding models into the cache directory
	$(PY) -m citeproof.embeddings.onnx_build
