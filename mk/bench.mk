# Benchmarks (bench/*.py write bench/results/<name>.json).
#
# Convention: a fragment that defines a benchmark target `bench-<name>` also appends it,
# `BENCH_TARGETS += bench-<name>`. `make bench` runs every one of them, one after another
# (never in parallel: they would disturb each other's timings). A `bench-*` target that a
# fragment forgot to append is still found by scanning mk/*.mk.
BENCH_TARGETS += bench-queue
BENCH_FOUND := $(shell sed -n 's/^\(bench-[A-Za-z0-9_-]*\):.*/\1/p' mk/*.mk)

.PHONY: bench bench-queue

# Recipe, not prerequisites: it expands after every fragment has been read, so appends made
# by fragments included after this one count too.
bench: setup ## every benchmark, one after another (bench/results/*.json)
	$(MAKE) --no-print-directory -j1 $(sort $(BENCH_TARGETS) $(BENCH_FOUND))

# No-op tasks and the production path (a terminal hook writing one row) through citeproof's runtime,
# pgqueuer, procrastinate and a raw SKIP LOCKED loop
# on one fresh embedded PostgreSQL; options: `make bench-queue BENCH_QUEUE_ARGS="--rounds 5"`.
BENCH_QUEUE_ARGS ?=
bench-queue: setup ## queue throughput: citeproof vs pgqueuer, procrastinate, raw SKIP LOCKED
	$(PY) -m bench.queue $(BENCH_QUEUE_ARGS)
