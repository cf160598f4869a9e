# The stage-queue runtime: its fairness benchmark.
BENCH_TARGETS += bench-fairness
FAIRNESS_BENCH_ARGS ?=

.PHONY: bench-fairness

# User A queues 300 items of 1 s, user B one item a second later; B's wait under the fair claim
# and under global FIFO (the baseline), on a fresh embedded PostgreSQL
# (bench/results/fairness.json; target: B waits at most 1.2 x one item).
bench-fairness: setup ## fair claiming across users: one user's item behind another's backlog
	$(PY) -m bench.fairness $(FAIRNESS_BENCH_ARGS)

# A real PgBouncer (Debian's package, 1.18 on bookworm) in transaction pooling mode in front of
# the embedded PostgreSQL: the four services with DATABASE_URL through it and
# LISTEN_DATABASE_URL direct, the journey of the sample thesis, a worker killed and PgBouncer
# restarted mid-run (tests/chaos/test_pgbouncer.py; also part of `make test-chaos`).
PGBOUNCER := /usr/sbin/pgbouncer
PGBOUNCER_SUDO := $(shell [ "$$(id -u)" = 0 ] || { command -v sudo >/dev/null && echo sudo; })
PGBOUNCER_APT := $(PGBOUNCER_SUDO) env DEBIAN_FRONTEND=noninteractive apt-get

.PHONY: pgbouncer-deps test-pgbouncer

pgbouncer-deps: ## install Debian's pgbouncer
	@if [ -x $(PGBOUNCER) ]; then echo "pgbouncer: $(PGBOUNCER) (already installed)"; \
	else $(PGBOUNCER_APT) update -qq && $(PGBOUNCER_APT) install -y -qq pgbouncer; fi

test-pgbouncer: setup pgbouncer-deps ## the stack behind a real PgBouncer in transaction mode
	$(PY) -m pytest -q -m chaos tests/chaos/test_pgbouncer.py
