# Reference verification (issue 26, ADR 0024): every entry of the real papers, real works with
# normal variation and with real errors, fabricated, retracted and corrected entries, against
# the stub Crossref and OpenAlex (an index of >= 5,000 works) and the Retraction Watch CSV
# offline. bench/results/references.json (+ references_hostile.json: a 429 storm and the
# indexes down). `make bench-references REFERENCES_BENCH_ARGS="--seed 7"` picks another world.
BENCH_TARGETS += bench-references
REFERENCES_BENCH_ARGS ?=

.PHONY: bench-references
bench-references: setup ## reference verification: precision/recall per rule, requests and ms per entry cold/warm (bench/results/references.json)
	$(PY) -m bench.references $(REFERENCES_BENCH_ARGS)
