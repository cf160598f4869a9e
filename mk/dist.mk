# Installable distributions: wheels of the five packages plus the `citeproof` distribution
# (depends on all five at the VERSION file's version, carries migrations/*.sql) into dist/.
# `make test-dist` builds them, installs them into a fresh venv outside the checkout and runs
# `citeproof check` on the sample thesis from a temporary folder (several minutes: the venv
# installs torch and the rest from the registry; not part of `make test`).
.PHONY: dist test-dist

dist: setup ## build the wheels of the five packages and the citeproof distribution into dist/
	$(PY) deploy/pypi/build.py --out dist

test-dist: setup ## install the built distributions into a fresh venv and run citeproof check there
	CITEPROOF_TEST_DIST=1 $(PY) -m pytest -q -m dist tests/distribution
