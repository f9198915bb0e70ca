"""Shared fixtures. Real parts only: real files, real SQLite, real PostgreSQL, real DuckDB."""

from __future__ import annotations

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
