# kgviz — developer entry points. Everything environment-related goes through scripts/setup.sh.
#
#   make setup           venv (.venv), gonb + goimports (.bin), GoNB kernel in the venv, chromium (as root)
#   make lab             JupyterLab on notebooks/: prints the URL to open (no browser); LAB_IP=0.0.0.0 LAB_PORT=9999
#   make test            everything CI runs: test-go, -grader, -differential, -oracle, -kafka, -notebooks, -browser, -docker, -image
#   make test-go         go mod tidy -diff + go vet + go test + a fuzz smoke of FuzzWorld (FUZZTIME=6000x)
#   make test-grader     kgviz grade in its sandbox: every notebook solved/untouched, the attack suite
#   make test-differential  Kafka's assignors (Java harness) vs kgviz's on random inputs
#   make test-oracle     Kafka's own group coordinator (harness/oracle) answers every request kgviz's broker answers
#   make test-oracle-random  the random scripts alone, KGVIZ_ORACLE_RANDOM of them (1000; more for a longer run)
#   make test-kafka      a real Kafka broker (KAFKA_VERSION=4.1.1 or 4.4.0): every demo live, compared with the simulation (realkafka/)
#   make record-kafka    re-record realkafka/testdata/ (the committed real-broker runs; 4.4.0's in testdata/kafka-4.4.0/)
#   make test-kafka-stability  make test-kafka 3 times with both cores busy, then 3 times quiet (not part of make test)
#   make test-kafka-share   a real Kafka 4.4.0 broker: the share-group scenarios (KIP-932) live, compared with the simulation
#   make record-kafka-share re-record realkafka/testdata/share/ (3 runs per share scenario)
#   make test-notebooks  execute notebooks (nbrun): solutions' checks pass, untouched exercises' checks fail
#   make test-browser    pytest: tools/test_browser_*.py and test_*.py under charts/ (headless Debian chromium)
#   make test-docker     static checks of the Dockerfile; the Python locks resolve on Python 3.11.2 and newer 3.11
#   make test-image      the students' image built (podman) from a release, run as Binder and JupyterHub run it; figures
#   make fuzz-long       FuzzWorld for FUZZTIME=300000x (about 15 min)
#   make bench           go benchmarks (BENCH=regexp, BENCHTIME=1s, COUNT=1)
#   make bench-grade     kgviz grade on a class of 30 x 12 notebooks (minutes)
#   make lock-python     regenerate tools/requirements-image.txt and tools/requirements.txt (for Python 3.11.2)
#   make clean-caches    remove kgviz's caches outside the work tree (~/.cache/kgviz, ~/.cache/kgviz-grade, /var/tmp/kgviz-image)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

VENV_PY   := .venv/bin/python
PYTEST    := $(VENV_PY) -m pytest -p no:cacheprovider
# goimports/gonb for anything that starts a kernel; tools/ so tests can `import browser`
export PATH       := $(CURDIR)/.bin:$(PATH)
export PYTHONPATH := $(CURDIR)/tools$(if $(PYTHONPATH),:$(PYTHONPATH))

# A count, not a duration: go1.26's fuzz coordinator can fail a duration-bounded run with a bare "context
# deadline exceeded" at the deadline on a loaded machine (golang/go#75804, fixed in go1.27).
FUZZTIME  ?= 6000x
BENCH     ?= .
BENCHTIME ?= 1s
COUNT     ?= 1
NBRUN_FLAGS ?=
LAB_IP    ?= 127.0.0.1
LAB_PORT  ?= 8888
KAFKA_ONLY  ?= .*
KAFKA_FLAGS ?=
# The Kafka version of the broker and the clients (4.1.1, the recordings' default; 4.4.0 the newest 4.x).
KAFKA_VERSION ?= 4.1.1
# One tick in ms on the broker: the committed recordings' own (4.1.1's at 500; 4.4.0's at 1000, recorded on a machine
# at load 40-60 where 500 ms was too short). A live run must use its version's tick: times and pause meters are in ticks.
KAFKA_TICK ?= $(if $(filter 4.1.1,$(KAFKA_VERSION)),500,1000)
KAFKA_HARNESS  = harness/realkafka/target/kafka-$(KAFKA_VERSION)
KAFKA_TESTDATA = realkafka/testdata$(if $(filter 4.1.1,$(KAFKA_VERSION)),,/kafka-$(KAFKA_VERSION))
TEST_TARGETS := test-go test-grader test-differential test-oracle test-kafka test-notebooks test-browser test-docker test-image

.PHONY: help setup need-setup lab test $(TEST_TARGETS) test-oracle-random record-kafka test-kafka-stability test-kafka-share record-kafka-share fuzz fuzz-long bench bench-targets bench-grade lock-python clean clean-caches

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

# KGVIZ_GRADER_TEST=0: the grader's sandboxed tests run once, in test-grader.
# The fuzz smoke runs even when a test fails (its result is reported too); the target fails if either does.
test-go: need-setup
	go mod tidy -diff
	go vet ./...
	@rc=0; KGVIZ_DIFFERENTIAL=0 KGVIZ_GRADER_TEST=0 go test -timeout 20m ./... || rc=$$?; \
	fz=0; $(MAKE) fuzz FUZZTIME=$(FUZZTIME) || fz=$$?; \
	echo "test-go: go test $$([ $$rc = 0 ] && echo passed || echo FAILED), fuzz smoke $$([ $$fz = 0 ] && echo passed || echo FAILED)"; \
	[ $$rc = 0 ] && [ $$fz = 0 ]

# The batch grader with its real sandbox (bubblewrap, installed by scripts/setup.sh): every course notebook
# solved and untouched, the whole-submission time limit, and the attack suite (cmd/kgviz/testdata/attacks);
# KGVIZ_GRADER_TEST=1 makes a missing sandbox a failure instead of a skip.
test-grader: need-setup
	KGVIZ_GRADER_TEST=1 go test -count=1 -timeout 20m -run '^(TestGrade|TestAttacks|TestGradeRefusesWithoutSandbox)$$' ./cmd/kgviz

# Kafka's own assignors (kafka-clients from Maven Central, harness/) against kgviz's on random inputs.
# KGVIZ_DIFFERENTIAL_N=20000 for a longer run.
test-differential:
	bash harness/build.sh
	KGVIZ_DIFFERENTIAL=1 go test ./kgviz -run '^(TestDifferential|TestFidelityStateNames)' -count=1 -v -timeout 15m
	bash harness/oracle/build.sh 4.1.1
	KGVIZ_ORACLE=1 KGVIZ_ORACLE_VERSIONS=4.1.1 go test ./oracle -run '^(TestOracleCatchesBrokenRule|TestOracleCatchesBrokenShareRule)$$' -count=1 -v -timeout 5m

# Kafka's group coordinator (kafka-group-coordinator from Maven Central, harness/oracle; Kafka 4.1.1 and 4.4.0)
# stepped in lock-step with kgviz's broker (oracle/): the demos, KIP-848, the capstone's crash points, the share
# groups' worlds (ShareGroupHeartbeat), KGVIZ_ORACLE_RANDOM (1000) random scripts, and a coordinator broken on
# purpose (a classic and a share rule); prints "requests compared: N, differ: D, undocumented: U" per Kafka version.
# test-oracle-random: the random scripts alone (KGVIZ_ORACLE_RANDOM=5000 for more, KGVIZ_ORACLE_SEEDS=543,959 for
# some). KGVIZ_ORACLE_VERSIONS=4.1.1 for one version.
test-oracle:
	bash harness/oracle/build.sh 4.1.1 && bash harness/oracle/build.sh 4.4.0
	KGVIZ_ORACLE=1 go test ./oracle -run '^(TestOracle|TestOracleCatchesBrokenRule|TestOracleCatchesBrokenShareRule|TestOracleAnchor|TestOracleAnchorCountsDifferences)$$' -count=1 -v -timeout 15m

test-oracle-random:
	bash harness/oracle/build.sh 4.1.1 && bash harness/oracle/build.sh 4.4.0
	KGVIZ_ORACLE=1 go test ./oracle -run '^TestOracleRandom$$' -count=1 -v -timeout 15m

# A real broker (harness/realkafka: Kafka $(KAFKA_VERSION) from Maven Central, started and stopped by the harness):
# every demo and the KIP-848 scenarios live, each compared outcome by outcome with the simulation;
# fails on a difference not in realkafka/known_differences.json. One run per scenario (record-kafka records
# several where the result varies). KAFKA_ONLY='demo0[12]' for a subset, KAFKA_TICK (500 for 4.1.1, 1000 for 4.4.0) the recordings' tick,
# KAFKA_VERSION=4.4.0 for the newest 4.x.
test-kafka:
	bash harness/realkafka/build.sh $(KAFKA_VERSION)
	KGVIZ_KAFKA=1 KGVIZ_KAFKA_VERSION=$(KAFKA_VERSION) KGVIZ_KAFKA_FLAGS="--runs 1 --tick $(KAFKA_TICK) --only $(KAFKA_ONLY) $(KAFKA_FLAGS)" go test ./realkafka -run '^TestLiveBroker$$' -count=1 -v -timeout 20m

# The same runs, written to $(KAFKA_TESTDATA)/ (replaced only if every run completed; with
# KAFKA_ONLY=<regexp> only the scenarios it matches are run and replaced).
record-kafka:
	bash harness/realkafka/build.sh $(KAFKA_VERSION)
	rm -rf build/realkafka-record && mkdir -p build/realkafka-record
	java -cp '$(KAFKA_HARNESS)/kgviz-realkafka.jar:$(KAFKA_HARNESS)/lib/*' kgviz.realkafka.Main \
		record --out build/realkafka-record --max-seconds 1500 --tick $(KAFKA_TICK) --only '$(KAFKA_ONLY)' $(KAFKA_FLAGS)
	mkdir -p $(KAFKA_TESTDATA) && if [ '$(KAFKA_ONLY)' = '.*' ]; then rm -f $(KAFKA_TESTDATA)/*.json; fi
	cp build/realkafka-record/*.json $(KAFKA_TESTDATA)/
	go test ./realkafka -count=1 -run '^TestRecordings'

# make test-kafka 3 times with both cores kept busy by a bounded busy loop (scripts/kafka-stability.sh), then
# 3 times quiet; every run's result and the load averages go to build/kafka-stability-$(KAFKA_VERSION).log. Needs
# the machine otherwise idle (the quiet runs mean nothing beside other work); not part of make test.
test-kafka-stability:
	bash scripts/kafka-stability.sh $(KAFKA_VERSION)

# Share groups (KIP-932) on a real Kafka 4.4.0 broker (harness/realkafka-share: harness/realkafka's sources built
# against 4.4.0, entry point ShareRun): four KafkaShareConsumer members in their own JVMs on two partitions, one run per
# scenario, compared with the simulation; fails on a difference not in realkafka/share_known_differences.json.
# KAFKA_FLAGS="--only share-crash" for one scenario, "--tick 1000" on a busy machine. Not part of make test (yet).
test-kafka-share:
	bash harness/realkafka-share/build.sh
	KGVIZ_KAFKA_SHARE=1 KGVIZ_KAFKA_FLAGS="$(KAFKA_FLAGS)" go test ./realkafka -run '^TestShareLiveBroker$$' -count=1 -v -timeout 30m

# The same scenarios, 3 runs each, written to realkafka/testdata/share/ (replaced only if every run completed; with
# KAFKA_FLAGS="--only share-freeze" only that scenario's files are replaced).
record-kafka-share:
	bash harness/realkafka-share/build.sh
	rm -rf build/realkafka-share-record && mkdir -p build/realkafka-share-record
	java -cp 'harness/realkafka-share/target/kgviz-realkafka-share.jar:harness/realkafka-share/target/lib/*' kgviz.realkafka.ShareRun \
		share-record --out build/realkafka-share-record --runs 3 --max-seconds 3000 $(KAFKA_FLAGS)
	mkdir -p realkafka/testdata/share
	for f in build/realkafka-share-record/*.json; do b=$$(basename $$f); rm -f realkafka/testdata/share/$${b%-*}-*.json; done
	cp build/realkafka-share-record/*.json realkafka/testdata/share/
	go test ./realkafka -count=1 -run '^TestShare'

# Every benchmark once, each figure against its target (docs/performance.md).
bench-targets:
	bash scripts/bench.sh

# kgviz grade on a class of 30 students × notebooks 01-12 (docs/performance.md, "Grading").
bench-grade:
	KGVIZ_GRADE_CLASS=1 go test -count=1 -timeout 30m -run '^TestGradeClass$$' -v ./cmd/kgviz

# Bounded FuzzWorld run; fails if package kgviz has no FuzzWorld.
fuzz:
	@out=$$(go test -list '^FuzzWorld$$' ./kgviz 2>&1) || { echo "$$out"; exit 1; }; \
	grep -qx 'FuzzWorld' <<<"$$out" || { echo "fuzz: no FuzzWorld target in ./kgviz"; exit 1; }; \
	echo "go test ./kgviz -run='^$$' -fuzz='^FuzzWorld$$' -fuzztime=$(FUZZTIME)"; \
	go test ./kgviz -run='^$$' -fuzz='^FuzzWorld$$' -fuzztime=$(FUZZTIME)

fuzz-long:
	@$(MAKE) fuzz FUZZTIME=300000x

bench:
	go test ./... -run='^$$' -bench='$(BENCH)' -benchmem -benchtime=$(BENCHTIME) -count=$(COUNT)

# The nbrun self-tests (tools/test_nbrun.py), the kernel's quiet log (tools/test_kernel_log.py), the smoke
# notebook (run from build/, one level below the repo root like notebooks/), then every notebook of the course
# folders, each checked by --expect auto: solutions/ -> every graded check passes; notebooks/, exercises/ ->
# untouched: every graded check fails.
test-notebooks: need-setup
	@mkdir -p build
	$(PYTEST) -q tools/test_nbrun.py tools/test_nbgrader.py tools/test_kernel_log.py
	$(VENV_PY) tools/nbrun.py --cwd build --json build/executed/smoke-report.json $(NBRUN_FLAGS) tools/testdata/smoke.ipynb
	@nbs="$$(ls notebooks/*.ipynb exercises/*.ipynb solutions/*.ipynb 2>/dev/null || true)"; \
	if [ -z "$$nbs" ]; then echo "test-notebooks: no notebooks/, exercises/ or solutions/ notebooks yet"; \
	else set -x; $(VENV_PY) tools/nbrun.py $(NBRUN_FLAGS) $$nbs && $(PYTEST) -q tools/test_executed_notebooks.py; fi

# Both fail when they find no test to run (no test files, or pytest collecting nothing: exit 5).
test-browser: need-setup
	@files="$$(ls tools/test_browser_*.py 2>/dev/null; \
		[ -d charts ] && find charts -name 'test_*.py' -not -path '*/node_modules/*' | sort || true)"; \
	if [ -z "$$files" ]; then echo "test-browser: no browser tests found"; exit 1; fi; \
	echo "test-browser: $$(echo $$files)"; \
	rc=0; $(PYTEST) -q $$files || rc=$$?; \
	if [ $$rc = 5 ]; then echo "test-browser: no tests collected"; fi; exit $$rc

test-docker: need-setup
	@for f in tools/test_dockerfile.py tools/test_pylock.py; do [ -f $$f ] || { echo "test-docker: $$f is missing"; exit 1; }; done; \
	rc=0; $(PYTEST) -q tools/test_dockerfile.py tools/test_pylock.py || rc=$$?; \
	if [ $$rc = 5 ]; then echo "test-docker: no tests collected"; fi; exit $$rc

# Builds the Dockerfile of a release (`kgviz release` into /var/tmp: what a class publishes) for real (podman as
# root; tools/image/), and starts it as Binder and as a JupyterHub spawner do. Caches live in KGVIZ_IMAGE_CACHE (default
# /var/tmp/kgviz-image): the bookworm rootfs, the base image, the apt and venv+tools layers; the images and
# containers of a run are removed at its end. Figures: build/image/figures.json.
test-image: need-setup
	@bash tools/image/install-deps.sh
	@rc=0; $(PYTEST) -s -q tools/image/test_image.py || rc=$$?; \
	if [ -f build/image/figures.json ]; then echo "======== image figures (build/image/figures.json) ========"; \
		$(VENV_PY) -c 'import json; d = json.load(open("build/image/figures.json")); \
			[print(f"  {k:40} {v}") for k, v in d.items()]'; fi; exit $$rc

# Both locks resolved by pip for Python 3.11.2 (Debian 12's), not for this machine's python3: tools/pylock.py.
lock-python:
	python3 tools/pylock.py lock
	@echo "locks updated; run make setup"

clean:
	rm -rf build

# kgviz's own caches outside the work tree, nothing else (scripts/clean-caches.sh says what it removes and frees).
clean-caches:
	@bash scripts/clean-caches.sh
