# API service: its integration tests (real PostgreSQL) and a local API process.
.PHONY: test-api api

test-api: setup ## the API integration tests
	$(PY) -m pytest -q tests/integration/test_api_sessions.py tests/integration/test_api_uploads.py \
		tests/integration/test_api_runs.py tests/integration/test_api_isolation.py \
		tests/integration/test_api_ops.py tests/integration/test_api_cli.py

# Just the API (no workers) on the embedded database; `citeproof dev` runs the whole stack.
api: setup ## run the API alone on the embedded database
	$(VENV)/bin/citeproof-api
