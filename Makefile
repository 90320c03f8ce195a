# kgviz — developer entry points. Everything environment-related goes through scripts/setup.sh.
#
#   make setup           venv (.venv), gonb + goimports (.bin), GoNB kernel in the venv, chromium (as root)
#   make lab             JupyterLab on notebooks/ at http://127.0.0.1:8888 (LAB_IP=0.0.0.0 LAB_PORT=9999 to change)
#   make test            everything CI runs: test-go, test-notebooks, test-browser, test-docker
#   make test-go         go vet + go test + a 20s fuzz smoke of FuzzWorld (FUZZTIME=...)
#   make test-differential  Kafka's assignors (Java harness) vs kgviz's on random inputs
#   make test-notebooks  execute notebooks (nbrun): solutions' checks pass, untouched exercises' checks fail
#   make test-browser    pytest: tools/test_browser_*.py and test_*.py under charts/ (headless Debian chromium)
#   make test-docker     static checks of the Dockerfile (no Docker engine needed)
#   make fuzz-long       FuzzWorld for FUZZTIME=10m
#   make bench           go benchmarks (BENCH=regexp, BENCHTIME=1s, COUNT=1)
#   make lock-python     regenerate tools/requirements.txt from tools/requirements.in
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

VENV_PY   := .venv/bin/python
PYTEST    := $(VENV_PY) -m pytest -p no:cacheprovider
# goimports/gonb for anything that starts a kernel; tools/ so tests can `import browser`
export PATH       := $(CURDIR)/.bin:$(PATH)
export PYTHONPATH := $(CURDIR)/tools$(if $(PYTHONPATH),:$(PYTHONPATH))

FUZZTIME  ?= 20s
BENCH     ?= .
BENCHTIME ?= 1s
COUNT     ?= 1
NBRUN_FLAGS ?=
LAB_IP    ?= 127.0.0.1
LAB_PORT  ?= 8888
TEST_TARGETS := test-go test-differential test-notebooks test-browser test-docker

.PHONY: help setup need-setup lab test $(TEST_TARGETS) fuzz fuzz-long bench bench-targets lock-python clean

help:
	@sed -n 's/^#   make /  make /p' $(firstword $(MAKEFILE_LIST))

setup:
	@bash scripts/setup.sh

# Sub-makes started by `make test` get KGVIZ_SETUP_DONE=1, so setup runs once per `make test`.
need-setup:
ifneq ($(KGVIZ_SETUP_DONE),1)
	@bash scripts/setup.sh
endif

lab: need-setup
	@LAB_IP=$(LAB_IP) LAB_PORT=$(LAB_PORT) bash scripts/lab.sh $(LAB_ARGS)

# Runs every test target even when one fails, then prints one line per target and a total.
test: need-setup
	@mkdir -p build; : >build/test-targets.txt; \
	for t in $(TEST_TARGETS); do \
		s=$$(date +%s); echo; echo "======== $$t ========"; \
		if $(MAKE) $$t KGVIZ_SETUP_DONE=1; then r=PASS; else r=FAIL; fi; \
		echo "$$t $$r $$(( $$(date +%s) - s ))s" >>build/test-targets.txt; \
	done; \
	echo; echo "======== summary ========"; \
	while read -r t r s; do printf '  %-16s %s  %5s\n' "$$t" "$$r" "$$s"; done <build/test-targets.txt; \
	p=$$(grep -c ' PASS ' build/test-targets.txt || true); f=$$(grep -c ' FAIL ' build/test-targets.txt || true); \
	echo "make test: $$p passed, $$f failed"; \
	[ "$$f" = 0 ]

# KGVIZ_GRADER_TEST=1: the batch grader's test (cmd/kgviz) must run with the venv's Jupyter, not skip.
test-go: need-setup
	go vet ./...
	KGVIZ_DIFFERENTIAL=0 KGVIZ_GRADER_TEST=1 go test -timeout 20m ./...
	@$(MAKE) fuzz FUZZTIME=$(FUZZTIME)

# Kafka's own assignors (kafka-clients from Maven Central, harness/) against kgviz's on random inputs.
# KGVIZ_DIFFERENTIAL_N=20000 for a longer run.
test-differential:
	bash harness/build.sh
	KGVIZ_DIFFERENTIAL=1 go test ./kgviz -run '^(TestDifferential|TestFidelityStateNames)' -count=1 -v -timeout 15m

# Every benchmark once, each figure against its target (docs/performance.md).
bench-targets:
	bash scripts/bench.sh

# Bounded FuzzWorld run; skipped (with a message) while package kgviz has no FuzzWorld.
fuzz:
	@out=$$(go test -list '^FuzzWorld$$' ./kgviz 2>&1) || { echo "$$out"; exit 1; }; \
	if grep -qx 'FuzzWorld' <<<"$$out"; then \
		echo "go test ./kgviz -run='^$$' -fuzz='^FuzzWorld$$' -fuzztime=$(FUZZTIME)"; \
		go test ./kgviz -run='^$$' -fuzz='^FuzzWorld$$' -fuzztime=$(FUZZTIME); \
	else echo "fuzz: no FuzzWorld target in ./kgviz yet; skipping the fuzz step"; fi

fuzz-long:
	@$(MAKE) fuzz FUZZTIME=10m

bench:
	go test ./... -run='^$$' -bench='$(BENCH)' -benchmem -benchtime=$(BENCHTIME) -count=$(COUNT)

# The nbrun self-tests (tools/test_nbrun.py), the smoke notebook (run from build/, one level below the
# repo root like notebooks/), then every notebook of the course folders, each checked by --expect auto:
# solutions/ -> every graded check passes; notebooks/, exercises/ -> untouched: every graded check fails.
test-notebooks: need-setup
	@mkdir -p build
	$(PYTEST) -q tools/test_nbrun.py tools/test_nbgrader.py
	$(VENV_PY) tools/nbrun.py --cwd build --json build/executed/smoke-report.json $(NBRUN_FLAGS) tools/testdata/smoke.ipynb
	@nbs="$$(ls notebooks/*.ipynb exercises/*.ipynb solutions/*.ipynb 2>/dev/null || true)"; \
	if [ -z "$$nbs" ]; then echo "test-notebooks: no notebooks/, exercises/ or solutions/ notebooks yet"; \
	else set -x; $(VENV_PY) tools/nbrun.py $(NBRUN_FLAGS) $$nbs && $(PYTEST) -q tools/test_executed_notebooks.py; fi

# pytest exits 5 when it collects nothing: that is a pass with a message here.
test-browser: need-setup
	@files="$$(ls tools/test_browser_*.py 2>/dev/null; \
		[ -d charts ] && find charts -name 'test_*.py' -not -path '*/node_modules/*' | sort || true)"; \
	if [ -z "$$files" ]; then echo "test-browser: no browser tests found"; exit 0; fi; \
	echo "test-browser: $$(echo $$files)"; \
	rc=0; $(PYTEST) -q $$files || rc=$$?; \
	if [ $$rc = 5 ]; then echo "test-browser: no tests collected"; rc=0; fi; exit $$rc

test-docker: need-setup
	@rc=0; $(PYTEST) -q tools/test_dockerfile.py || rc=$$?; \
	if [ $$rc = 5 ]; then echo "test-docker: no tests collected"; rc=0; fi; exit $$rc

lock-python:
	rm -rf build/lockvenv && python3 -m venv build/lockvenv
	build/lockvenv/bin/pip install -q --disable-pip-version-check -r tools/requirements.in
	{ echo "# Full lock of the Python tools (exact versions). Generated by 'make lock-python' from"; \
	  echo "# tools/requirements.in with CPython 3.11 on Debian bookworm x86_64; do not edit by hand."; \
	  build/lockvenv/bin/pip freeze; } >tools/requirements.txt
	rm -rf build/lockvenv
	@echo "tools/requirements.txt updated; run make setup"

clean:
	rm -rf build
