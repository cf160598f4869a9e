# Retrieval benchmark: recall@1/3/5 of Check-COVID gold evidence (vector, BM25, fused) and
# per-citation latency on a 5,000-chunk session. `make bench-retrieval CHECKCOVID_DIR=/path`
# measures another copy of the data; `RETRIEVAL_SPLIT=train` another split.
CHECKCOVID_DIR ?= $(DATA_DIR)/checkcovid
RETRIEVAL_SPLIT ?= dev

BENCH_TARGETS += bench-retrieval

.PHONY: bench-retrieval
bench-retrieval: setup ## retrieval recall@k and latency (bench/results/retrieval.json)
	$(PY) -m bench.retrieval $(CHECKCOVID_DIR) --split $(RETRIEVAL_SPLIT)
