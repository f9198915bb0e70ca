# The newcomer's commands. `make demo` sets up and runs the main job on SQLite;
# `make test` sets up and runs the test suite but the soak tests; `make soak` runs those
# (CI runs both: .ci/run).
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: setup setup-tests demo test soak lint bench load schemas

setup:
	@./scripts/setup

# What only the tests need besides: the PostgreSQL server package and Chromium.
setup-tests:
	@./scripts/setup --tests

demo: setup
	$(VENV)/bin/jaslog demo

# lint-imports: the layering contracts in pyproject.toml ([tool.importlinter]). mypy keeps
# its cache per machine, as the compiled build does: a fresh clone of the same sources is
# checked in a second (mypy checks each file's hash against its cache), not in half a minute.
MYPY_CACHE := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/jaslog/mypy
lint:
	$(VENV)/bin/ruff check jaslog tests benchmarks
	$(VENV)/bin/mypy --cache-dir $(MYPY_CACHE)
	$(VENV)/bin/lint-imports --no-cache --no-logo

# The tests' modules are compiled with pytest's assertions once and kept in __pycache__,
# also where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE).
# Then, once more on the pure-Python hot path (JASLOG_PURE=1: the modules `pip install`
# compiles load from their sources), the tests of what those modules compute: the games'
# rules, the cards, the fold, the golden replays through the notation and the export of a
# corpus of games (and of a store, with the Klaverjas rows), with those modules' doctests,
# which only a pure run can read; not the slow tests (docs/testing.md). It proves the pure
# fallback gives the compiled answers.
PURE_TESTS := tests/rules tests/rules_klaberjass tests/rules_kloepper \
	tests/test_cards.py tests/test_fold.py tests/test_native.py \
	tests/notation/test_roundtrip.py tests/export/test_tables.py \
	jaslog/cards.py jaslog/engine/jacknine.py jaslog/games/klaverjas/rules \
	jaslog/engine/base.py jaslog/engine/fold.py jaslog/engine/common.py \
	jaslog/games/klaverjas/fold.py jaslog/games/klaberjass/rules jaslog/games/klaberjass/fold.py \
	jaslog/games/kloepper/rules jaslog/games/kloepper/fold.py jaslog/store/bulk_read.py \
	jaslog/events/line_bytes.py jaslog/play/blockfold.py tests/test_blockfold.py tests/test_logfold.py \
	jaslog/store/import_lines.py tests/store/test_import_lines.py \
	jaslog/store/row_memo.py jaslog/store/row_check.py tests/store/test_row_memo.py \
	tests/store/test_fold_games.py tests/store/test_bulk_read.py tests/export/test_stored.py \
	jaslog/games/klaverjas/export.py tests/export/test_columnar.py \
	jaslog/games/klaverjas/facts.py tests/export/test_stored_facts.py tests/store/test_row_fold.py \
	jaslog/engine/facts.py jaslog/games/klaverjas/report.py tests/test_audit.py tests/test_check_output.py
# The soak tests (marked `soak`) run only when -m names them (tests/conftest.py).
test: setup-tests lint
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 2 --dist loadscope -p no:cacheprovider
	JASLOG_PURE=1 PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 2 --dist loadscope -p no:cacheprovider -m "not slow" $(PURE_TESTS)

# What `make test` leaves out: thousands of games, fuzzing, kill -9, load, the benchmark's
# smoke test, the big solver runs, Dask clusters, many processes (docs/testing.md); then the
# wheel, built and installed into a fresh virtualenv, runs from another folder.
soak: setup-tests
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 2 --dist loadscope -p no:cacheprovider -m soak
	PYTHON=$(PY) ./scripts/wheel-check

bench: setup
	$(PY) -m benchmarks.bench

# The service under load (64 clients over 1,000 live games, SQLite), then an online room (8
# tables of four bot clients): figures, not a test.
load: setup
	$(PY) -m benchmarks.load --runs service,online-room

schemas: setup
	$(PY) -m jaslog.schemas
