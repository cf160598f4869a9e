# Thesis analysis benchmark: references, markers, and accuracy against S2ORC keys where present.
# `make bench-extraction EXTRACTION_PAPERS=/path/to/pdfs` scores another folder the same way.
EXTRACTION_PAPERS ?= $(DATA_DIR)/papers
# LibreOffice converts the style matrix's DOCX renderings to PDF (the rows "<style>/docx-lo-pdf").
# Debian's headless Writer; the bench skips those rows with a note when soffice is absent.
SOFFICE := /usr/bin/soffice

.PHONY: bench-extraction libreoffice-deps

libreoffice-deps: ## install Debian's headless LibreOffice Writer (DOCX -> PDF for bench-extraction)
	@if [ -x $(SOFFICE) ]; then echo "soffice: $(SOFFICE) (already installed)"; \
	else $(APT) update -qq && $(APT) install -y -qq --no-install-recommends libreoffice-writer-nogui; fi

bench-extraction: setup libreoffice-deps ## thesis analysis against the S2ORC keys and the style matrix (bench/results/extraction.json)
	$(PY) -m bench.extraction $(EXTRACTION_PAPERS)

.PHONY: bench-attachments
bench-attachments: setup ## entry-vs-PDF checks (CP311/CP312): seeded wrong attachments, years, first authors and normal variations (bench/results/attachment_checks.json)
	$(PY) -m bench.attachment_checks
