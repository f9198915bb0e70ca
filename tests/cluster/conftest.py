"""The stores the tests of ``--cluster`` run on (SQLite and PostgreSQL); the cluster itself,
a LocalCluster of two single-threaded worker processes, is the session's (tests/conftest.py)."""

from __future__ import annotations

from tests.store.conftest import pg_server, pg_url, store_url  # noqa: F401  (SQLite and PostgreSQL stores)
