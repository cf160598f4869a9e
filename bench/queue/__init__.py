"""Queue benchmark (`python -m bench.queue`; method in `harness`): no-op tasks and the production
path (a terminal hook writing one row) through the citeproof runtime, pgqueuer, procrastinate
and a raw SKIP LOCKED loop, the floor."""
