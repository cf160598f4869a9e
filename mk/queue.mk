# The stage-queue runtime: its fairness benchmark.
BENCH_TARGETS += bench-fairness
FAIRNESS_BENCH_ARGS ?=

.PHONY: bench-fairness

# User A queues 300 items of 1 s, user B one item a second later; B's wait under the fair claim
# and under global FIFO (the baseline), on a fresh embedded PostgreSQL
# (bench/results/fairness.json; target: B waits at most 1.2 x one item).
bench-fairness: setup ## fair claiming across users: one user's item behind another's backlog
	$(PY) -m bench.fairness $(FAIRNESS_BENCH_ARGS)
