# Parser service: throughput benchmark and its tests.
BENCH_TARGETS += bench-parse
PARSE_BENCH_ARGS ?=

.PHONY: bench-parse test-parser

# Builds a 100+ page PDF from $(DATA_DIR)/papers at run time (not committed), starts two
# citeproof-parser processes on a fresh embedded PostgreSQL (or DATABASE_URL) and writes
# bench/results/parse.json. `make bench-parse PARSE_BENCH_ARGS=--skip-thesis` skips the slow
# embedded-source pass.
bench-parse: setup ## parser throughput in pages/s (bench/results/parse.json)
	$(PY) -m bench.parse $(PARSE_BENCH_ARGS)

test-parser: setup ## the parser unit and integration tests
	$(PY) -m pytest -q tests/unit/test_parser_*.py tests/integration/test_parser_*.py
