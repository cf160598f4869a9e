"""The citation linter's benchmark (`make bench-findings`, bench/results/findings.json)."""
