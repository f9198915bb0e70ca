"""A real Dask cluster for the tests of ``--cluster``: a LocalCluster of two single-threaded
worker processes, one per test module (starting one takes a few seconds)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.store.conftest import pg_server, pg_url, store_url  # noqa: F401  (SQLite and PostgreSQL stores)


@pytest.fixture(name="cluster", scope="module")
def cluster_fixture() -> Iterator[str]:
    """The address of a local Dask scheduler with two single-threaded worker processes."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, scheduler_port=0) as lc:
        yield str(lc.scheduler_address)
