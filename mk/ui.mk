# Web UI checks in headless Chromium. `playwright install` would download its own browser builds,
# which needs the internet; we drive Debian's chromium package instead (see
# tests/e2e/browser/chromium.py for the launch flags).
CHROMIUM := /usr/bin/chromium
# apt-get needs root; use sudo when we are not root and it exists.
SUDO := $(shell [ "$$(id -u)" = 0 ] || { command -v sudo >/dev/null && echo sudo; })
APT := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get

.PHONY: browser-deps test-browser ui-screenshot

browser-deps: setup ## install Debian chromium and playwright for the browser test
	@if [ -x $(CHROMIUM) ]; then echo "chromium: $(CHROMIUM) (already installed)"; \
	else $(APT) update -qq && $(APT) install -y -qq chromium; fi
	@$(PY) -c "import playwright" 2>/dev/null || $(PIP) install -q -c $(CONSTRAINTS) $(TORCH_PIN) playwright

# Drives the UI against a running stack (the e2e fixtures start one); screenshot in artifacts/.
test-browser: browser-deps ## the web UI test in headless Chromium
	$(PY) -m pytest -q -m browser tests/e2e/test_browser.py

# Same test, and refresh the README screenshot (docs/img/report.png) from it.
ui-screenshot: browser-deps ## the browser test, refreshing docs/img/report.png
	CITEPROOF_UPDATE_DOCS_SCREENSHOT=1 $(PY) -m pytest -q -m browser tests/e2e/test_browser.py
