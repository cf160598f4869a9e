# Hardening: hostile input, API fuzzing, security. The tests run inside `make test`;
# the fuzzing test needs schemathesis (also listed for requirements/dev.txt).
HARDENING_STAMP := $(VENV)/.hardening-stamp

.PHONY: hardening-tools test-hardening fuzz-api

hardening-tools: $(HARDENING_STAMP) ## install schemathesis for the fuzzing test

$(HARDENING_STAMP): mk/hardening.mk | setup
	$(PIP) install -q -c $(CONSTRAINTS) $(TORCH_PIN) schemathesis
	touch $@

# Just the hardening tests (they share one end-to-end stack).
test-hardening: hardening-tools ## hostile input, API fuzzing and security tests
	$(PY) -m pytest -q tests/integration/test_fuzz_api.py tests/e2e/test_bad_input.py \
		tests/e2e/test_security.py

# A deeper, randomised fuzzing run of every API operation (about 3.5 minutes at 60).
FUZZ_EXAMPLES ?= 60
fuzz-api: hardening-tools ## a deeper randomised fuzzing run of every API operation
	CITEPROOF_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest -q tests/integration/test_fuzz_api.py
