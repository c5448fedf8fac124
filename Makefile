# ctxtui — the two commands of the README, and the checks CI runs.
#   make demo    create .venv, install ctxtui, open the app on the bundled demo session
#   make test    create .venv, install ctxtui with its test extras, run the whole test suite
#                on every core (pytest-xdist; PYTEST_WORKERS=0 runs it in one process)
#   make check   ruff (lint + format check), mypy --strict and the import-linter contracts
#   make bench   the performance benchmarks (docs/PERFORMANCE.md)

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ctxtui-installed
# Workers for make test: "auto" is one per core. The snapshot tests run under xdist too;
# syrupy only reports unused snapshot files without xdist, so tests/tui/test_snapshot_files.py
# checks for those instead, and make snapshots (which deletes them) runs in one process.
PYTEST_WORKERS ?= auto

.PHONY: demo test check bench snapshots clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "ctxtui needs Python 3.10 or newer"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/ctxtui

test: $(STAMP)
	TEXTUAL_ANIMATIONS=none $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal

check: $(STAMP)
	$(BIN)/ruff check ctxtui tests bench tools
	$(BIN)/ruff format --check ctxtui tests bench tools
	$(BIN)/mypy
	$(BIN)/lint-imports

snapshots: $(STAMP)  # one process: syrupy deletes unused snapshots only without xdist
	TEXTUAL_ANIMATIONS=none $(BIN)/python -m pytest -q tests/tui --snapshot-update

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis dist build .import_linter_cache .grimp_cache
