# citeproof — every install step lives here so a fresh clone needs nothing by hand.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# Without this pin pip resolves torch to multi-GB CUDA builds; every install carries it.
TORCH_PIN := torch==2.13.0
CONSTRAINTS := requirements/constraints.txt
# devkit/ (citeproof.devkit) is developer and benchmark tooling: installed here, never into an image.
PACKAGES := -e shared[embedded] -e services/api -e services/parser -e services/retriever \
	-e services/judge -e devkit
SETUP_STAMP := $(VENV)/.setup-stamp
# The embedded server's pgvector rebuilt for any x86-64 CPU (mk/pgvector.mk, ADR 0025).
PGVECTOR_STAMP := $(VENV)/.pgvector-stamp
SETUP_INPUTS := $(CONSTRAINTS) requirements/dev.txt requirements/parser-extra.txt \
	shared/pyproject.toml devkit/pyproject.toml $(wildcard services/*/pyproject.toml)

# The real data (papers, Check-COVID, ...) is read in place, never copied into the repository;
# every benchmark finds it through this one variable (bench/common.py reads the export).
DATA_DIR ?= ../shared/data
export CITEPROOF_DATA_DIR := $(abspath $(DATA_DIR))

export DO_NOT_TRACK := 1
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: help setup test test-chaos test-unit test-integration lint typecheck format demo constraints

# Every target carries a `## what it does` on its line; this prints them all (Makefile and mk/*.mk).
help: ## this list: every target and what it does
	@awk -F ':[^#]*## ' '/^[A-Za-z0-9_-]+:[^#]*## / {printf "  make %-22s %s\n", $$1, $$2}' \
		$(MAKEFILE_LIST) | sort

setup: $(SETUP_STAMP) $(PGVECTOR_STAMP) ## create .venv, install every package, rebuild pgvector portably (re-runs when an input changed)

# Idempotent: re-runs only when an input changed. The constraints file pins every version.
$(SETUP_STAMP): $(SETUP_INPUTS)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip wheel setuptools
	$(PIP) install -q -c $(CONSTRAINTS) $(TORCH_PIN)
	$(PIP) install -q -c $(CONSTRAINTS) $(TORCH_PIN) $(PACKAGES) -r requirements/dev.txt -r requirements/parser-extra.txt
	$(PIP) install -q -c $(CONSTRAINTS) $(TORCH_PIN) --no-deps unstructured-inference
	@touch $@

lint: setup ## ruff check and ruff format --check over the tree
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Strict on shared/ (the queue runtime included); configuration in pyproject.toml [tool.mypy].
typecheck: setup ## mypy over shared/src/citeproof (strict; tooling modules relaxed)
	$(PY) -m mypy

format: setup ## ruff fix and format the tree in place
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# The full suite: lint, offline deploy validation, unit, integration, end-to-end (four service
# processes), the browser test and a short chaos run. `make test-chaos` is the long chaos suite.
test: setup lint typecheck deploy-check browser-deps ## lint, types, deploy checks and the whole suite (unit, integration, e2e, browser, short chaos)
	$(PY) -m pytest -q -m "not llm and not chaos" tests

test-chaos: setup ## the long chaos suite (kills, redeploys, a PostgreSQL restart)
	$(PY) -m pytest -q -m chaos tests/chaos

test-unit: setup ## unit tests only
	$(PY) -m pytest -q tests/unit

test-integration: setup ## integration tests only (real PostgreSQL)
	$(PY) -m pytest -q tests/integration

# The main job: the whole stack on the embedded defaults verifies the sample thesis.
demo: setup ## citeproof check on the sample thesis, then on its copy with three seeded errors (exits 1 unless they are found)
	$(PY) samples/demo.py

# Regenerate the pins from the current venv (after adding a dependency).
constraints: ## regenerate requirements/constraints.txt from the venv (after adding a dependency)
	$(PIP) freeze --exclude-editable | grep -v '^-e' > $(CONSTRAINTS)

include $(wildcard mk/*.mk)
