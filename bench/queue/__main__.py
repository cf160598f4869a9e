"""Queue benchmark: no-op tasks through the citeproof stage-queue runtime, pgqueuer,
procrastinate and a raw-SQL SKIP LOCKED loop (the floor), on one fresh embedded PostgreSQL in
one run. Prints throughput (tasks/s) and enqueue-to-start latency p50/p99 with ratios to
citeproof, and writes bench/results/queue.json.

    .venv/bin/python -m bench.queue [--tasks N] [--latency-tasks N] [--rate R]
                                    [--concurrency C] [--batch-size B] [--systems a,b]

The method is described in bench/queue/harness.py.
"""

import sys
import warnings

if __name__ == "__main__":
    # platformdirs (pulled in by the compared libraries) warns on import in containers.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    from bench.queue.harness import main

    sys.exit(main())
