# Whole-pipeline accuracy on Check-COVID dev: generated theses and sources through the
# running stack (four services as processes on a fresh embedded PostgreSQL), verdicts scored
# against the gold labels; writes bench/results/accuracy.json. About 1.5 minutes on 2 idle cores
# (12 minutes measured while the machine ran other test suites).
# Options: `make bench-accuracy BENCH_ACCURACY_ARGS="--work-dir /tmp/acc"` keeps PDFs and logs.
CHECKCOVID ?= $(DATA_DIR)/checkcovid
BENCH_ACCURACY_ARGS ?=
BENCH_TARGETS += bench-accuracy

.PHONY: bench-accuracy

bench-accuracy: setup ## whole-pipeline accuracy on Check-COVID dev (bench/results/accuracy.json)
	$(PY) -m bench.accuracy --claims '$(CHECKCOVID)/covidCheck_dev_composed+extracted.json' \
		--corpus '$(CHECKCOVID)/corpus.json' $(BENCH_ACCURACY_ARGS)
