# Thesis analysis benchmark: references, markers, and accuracy against S2ORC keys where present.
# `make bench-extraction EXTRACTION_PAPERS=/path/to/pdfs` scores another folder the same way.
EXTRACTION_PAPERS ?= $(DATA_DIR)/papers

.PHONY: bench-extraction
bench-extraction: setup ## thesis analysis against the S2ORC keys (bench/results/extraction.json)
	$(PY) -m bench.extraction $(EXTRACTION_PAPERS)
