# The citation linter's benchmark (issue 25): bench/results/findings.json. Its real_text section
# (bench.findings.real_text) checks quotations sampled from ../shared/data/papers and false
# alarms on Citation-Integrity dev SUPPORT citations; the seeded-thesis sections are added by
# their own targets as bench-findings' prerequisites. FINDINGS_SEED: the sampling seed.
FINDINGS_SEED ?= 2

BENCH_TARGETS += bench-findings

.PHONY: bench-findings findings-real-text
bench-findings: findings-real-text ## the citation linter's rules on seeded and real text (bench/results/findings.json)

findings-real-text: setup ## content rules on real papers and Citation-Integrity dev (findings.json: real_text)
	nice -n 10 $(PY) -m bench.findings.real_text --seed $(FINDINGS_SEED) --split dev
