"""Shared fixtures. Real parts only: real files, real SQLite, real PostgreSQL, real DuckDB."""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# rich reads the terminal's width from $COLUMNS when a Console is made, and jaslog makes its
# consoles when jaslog.cli is imported. pytest-xdist starts its workers with COLUMNS set to
# the width of the terminal pytest runs in, which would fix the consoles' width for the whole
# session. Without it, a command run in this process (tests/cli.py, typer's CliRunner) is as
# wide as the COLUMNS it is given, as a new process is, and 80 columns when none is given;
# a real process started without COLUMNS is 80 columns too, whatever the terminal.
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)


def pytest_configure(config: pytest.Config) -> None:
    """The quick loop (``-m "not slow"``) tries fewer examples in the property tests
    (tests/examples.py); the whole suite tries them all."""
    from tests import examples

    examples.QUICK = "not slow" in (config.getoption("markexpr") or "")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The soak tests (marked ``soak``: thousands of games, fuzzing, kill -9, load, the
    benchmark, many processes) run only when ``-m`` names them (``make soak``: ``-m soak``);
    every other run, ``make test`` and ``-m "not slow"`` included, leaves them out."""
    if "soak" in (config.getoption("markexpr") or ""):
        return
    soak = [item for item in items if item.get_closest_marker("soak") is not None]
    if soak:
        config.hook.pytest_deselected(items=soak)
        items[:] = [item for item in items if item.get_closest_marker("soak") is None]


def _handlers(logger: logging.Logger) -> list[logging.Handler]:
    """The logger's handlers but pytest's own (it adds and removes them around every phase)."""
    return [h for h in logger.handlers if not type(h).__module__.startswith("_pytest")]


def _start_method() -> str:
    """multiprocessing's start method; the platform's default while none is set (spawning a
    process sets it to that: multiprocessing asks for it to tell the new process)."""
    return multiprocessing.get_start_method(allow_none=True) or multiprocessing.get_all_start_methods()[0]


def _environment() -> dict[str, str]:
    """The environment variables but the one pytest sets for each phase of a test."""
    return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}


@pytest.fixture(autouse=True)
def _leaves_the_process_as_it_found_it() -> Iterator[None]:
    """Fails a test that leaves this process changed for the tests after it: the working
    directory, the environment variables, multiprocessing's start method, the root logger's
    level and handlers, or a ``logging.disable``. What it changed is put back, so that only
    that test fails (``monkeypatch`` puts back what it changed before this looks)."""
    cwd = os.getcwd()
    env = _environment()
    method = _start_method()
    root = logging.getLogger()
    level, handlers, disabled = root.level, _handlers(root), logging.root.manager.disable
    yield
    changed = []
    try:
        now: str | None = os.getcwd()
    except FileNotFoundError:  # the working directory was removed under the test's feet
        now = None
    if now != cwd:
        changed.append(f"the working directory ({cwd} became {now or 'a removed folder'})")
        os.chdir(cwd)
    if _environment() != env:
        now_env = _environment()
        keys = sorted(k for k in env.keys() | now_env.keys() if env.get(k) != now_env.get(k))
        changed.append(f"the environment variables {', '.join(keys)}")
        for k in keys:
            if k in env:
                os.environ[k] = env[k]
            else:
                del os.environ[k]
    if _start_method() != method:
        changed.append(f"multiprocessing's start method ({method} became {_start_method()})")
        multiprocessing.set_start_method(method, force=True)
    if (root.level, _handlers(root), logging.root.manager.disable) != (level, handlers, disabled):
        changed.append("the root logger's level, handlers or logging.disable")
        root.setLevel(level)
        for h in _handlers(root):
            if h not in handlers:
                root.removeHandler(h)
        for h in handlers:
            if h not in root.handlers:
                root.addHandler(h)
        logging.disable(disabled)
    if changed:
        pytest.fail("the test left this process changed for the tests after it: "
                    + "; ".join(changed), pytrace=False)


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(name="cluster", scope="session")
def cluster_fixture() -> Iterator[str]:
    """The address of a local Dask scheduler with two single-threaded worker processes, for
    the tests of ``--cluster``: one per test process, started when a test first asks for it
    (starting one takes a few seconds, stopping it as long)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, scheduler_port=0) as lc:
        yield str(lc.scheduler_address)
