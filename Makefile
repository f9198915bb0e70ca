# The newcomer's commands. `make demo` sets up and runs the main job on SQLite;
# `make test` sets up and runs the whole test suite (this is what CI runs).
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: setup demo test lint bench load schemas

setup:
	@./scripts/setup

demo: setup
	$(VENV)/bin/jaslog demo

# lint-imports: the layering contracts in pyproject.toml ([tool.importlinter]).
lint:
	$(VENV)/bin/ruff check jaslog tests benchmarks
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache --no-logo

# The tests' modules are compiled with pytest's assertions once and kept in __pycache__,
# also where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE).
test: setup lint
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 2 -p no:cacheprovider

bench: setup
	$(PY) -m benchmarks.bench

# The service under load (64 clients over 1,000 live games, SQLite): figures, not a test.
load: setup
	$(PY) -m benchmarks.load

schemas: setup
	$(PY) -m jaslog.schemas
