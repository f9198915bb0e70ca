"""The PostgreSQL server the store tests start keeps answering however much it logs: its log
goes to a file (``server.log``), not to a pipe that fills and stops it."""

from __future__ import annotations

import threading
import time

import pytest

from tests.store.faults import restartable_pg

#: well past a pipe's 64 KB: each refused statement logs its error and the statement
ERRORS = 600


def test_the_server_answers_after_logging_more_than_a_pipe_holds() -> None:
    psycopg = pytest.importorskip("psycopg")
    done: list[int] = []

    def provoke(url: str) -> None:
        with psycopg.connect(url, autocommit=True) as c:
            for _ in range(ERRORS):
                with pytest.raises(psycopg.errors.UndefinedTable):
                    c.execute("SELECT * FROM a_table_nobody_made_" + "x" * 100)
            done.append(c.execute("SELECT 1").fetchone()[0])

    with restartable_pg() as server:
        t = threading.Thread(target=provoke, args=(server.url,), daemon=True)
        t.start()
        t.join(60)
        assert done == [1], "the server stopped answering once its log had filled a pipe"
        assert (server.dir / "server.log").stat().st_size > 64 * 1024
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 30
