# The heavy hostile-input suite (tests/hostile): concurrent large uploads against one API
# process with its RSS measured, every parser regex against 64 KiB hostile inputs. Not part of
# `make test`; writes bench/results/hostile.json.
.PHONY: test-hostile

test-hostile: setup ## heavy hostile inputs (concurrent 120 MiB uploads...); bench/results/hostile.json
	CITEPROOF_TEST_HOSTILE=1 $(PY) -m pytest -q tests/hostile
