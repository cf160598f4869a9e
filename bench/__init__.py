"""Benchmarks. Each runs from the repository root as a module, `python -m bench.<name>` (the
`make bench-*` targets do that), writes bench/results/<name>.json and prints a table with ratios
to a baseline measured in the same run. Shared helpers: `bench.common` (a throwaway PostgreSQL,
percentiles, result files, and `DATA_DIR`, the one place the real data is found)."""

import os

# No telemetry from the libraries the benchmarks load (unstructured, huggingface_hub read it).
os.environ.setdefault("DO_NOT_TRACK", "1")
