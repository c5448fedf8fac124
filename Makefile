# ctxtui — the two commands of the README, and the checks CI runs.
#   make demo    create .venv, install ctxtui, open the app on the bundled demo session
#   make test    create .venv, install ctxtui with its test extras, run the whole test suite
#                on a worker per core and one more (pytest-xdist; PYTEST_WORKERS=0 runs it
#                in one process), all but the browser and Dask tests
#   make test-browser  the browser test alone: ctxtui serve in headless Chromium (CI runs it)
#   make test-dask     the fleet on a Dask LocalCluster (the 'dask' extra; CI runs it)
#   make check   ruff (lint + format check), mypy --strict and the import-linter contracts
#   make bench   the performance benchmarks (docs/PERFORMANCE.md)
#   make dev     the app with Textual's dev console (run `make console` in another terminal
#                first); ARGS="path/to/session" opens a session

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ctxtui-installed
# The snapshot tests run under xdist too;
# syrupy only reports unused snapshot files without xdist, so tests/tui/test_snapshot_files.py
# checks for those instead, and make snapshots (which deletes them) runs in one process.
# One worker more than the cores: app tests wait for workers and repaints, and the server,
# signal and hostile-peer tests wait on real processes and sockets, so two workers kept two
# cores only about two-thirds busy (load average 1.3-1.5; make test 125-128 s on 2 cores,
# 113 s with three workers: docs/PERFORMANCE.md).
PYTEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) + 1)')

.PHONY: demo dev console test test-browser test-dask check bench snapshots clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "ctxtui needs Python 3.11 or newer"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/ctxtui

# Textual's devtools: `make console` shows the app's log, events and print() output while
# `make dev` runs the app connected to it (textual-dev, installed with the dev extra).
dev: $(STAMP)
	$(BIN)/textual run --dev -c $(BIN)/ctxtui $(ARGS)

console: $(STAMP)
	$(BIN)/textual console

# Textual reads these when it is first imported, which a pytest plugin does before any
# conftest runs, so they are set here. A screen repaints at most once per 1/TEXTUAL_FPS
# seconds and a pilot's pause waits for that repaint: at Textual's 60 the app tests spent a
# tenth of their time waiting for the next frame (tests/tui: 175 s, 157 s at 1,000, every
# snapshot the same). Since pilots wait in 5 ms slices (tests/conftest.py) it matters less:
# the whole suite took 98 s at 60 and 94-100 s at 1,000.
TEST_ENV := TEXTUAL_ANIMATIONS=none TEXTUAL_FPS=1000

# The browser test starts Chromium and a server and mostly waits on them (11 s of wall time,
# a third of a second of CPU): in make test it held a worker idle, so it has its own target.
test: $(STAMP)
	$(TEST_ENV) $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal \
		--ignore=tests/browser --ignore=tests/dask

test-browser: $(STAMP)  # the served app keeps Textual's frame rate, as users get it
	TEXTUAL_ANIMATIONS=none $(BIN)/python -m pytest -q tests/browser

# A LocalCluster takes seconds to start and then mostly waits: its own target, as the browser's.
test-dask: $(STAMP)
	CTXTUI_REQUIRE_DASK=1 $(TEST_ENV) $(BIN)/python -m pytest -q tests/dask

check: $(STAMP)
	$(BIN)/ruff check ctxtui tests bench tools
	$(BIN)/ruff format --check ctxtui tests bench tools
	$(BIN)/mypy
	$(BIN)/lint-imports

snapshots: $(STAMP)  # one process: syrupy deletes unused snapshots only without xdist
	$(TEST_ENV) $(BIN)/python -m pytest -q tests/tui --snapshot-update

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis dist build .import_linter_cache .grimp_cache
