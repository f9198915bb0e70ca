"""Store fixtures: every contract test runs on an SQLite file and on a real PostgreSQL server.

The PostgreSQL server is started once per test session (per xdist worker) from the Debian
package's binaries: ``initdb`` and ``postgres`` run as the ``postgres`` user (we may be
root) in a temporary directory, listening on 127.0.0.1 on a free port with trust auth.
``JASLOG_TEST_PG_URL`` points the tests at an existing server instead. Without PostgreSQL
the PostgreSQL tests are skipped, unless ``CI=true`` or ``JASLOG_REQUIRE_PG=1``: then they fail.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.play.sim import simulate_game
from jaslog.store import Store, open_store
from jaslog.store.clock import ManualClock

BACKENDS = ("sqlite", "postgresql")


def _pg_required() -> bool:
    return os.environ.get("CI", "").lower() == "true" or os.environ.get("JASLOG_REQUIRE_PG") == "1"


def _no_pg(reason: str) -> None:
    if _pg_required():
        pytest.fail(f"PostgreSQL is required (CI=true or JASLOG_REQUIRE_PG=1) but {reason}",
                    pytrace=False)
    pytest.skip(f"PostgreSQL tests skipped: {reason} (install Debian's postgresql package)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    if shutil.which("runuser"):
        return ["runuser", "-u", "postgres", "--", *cmd]
    return ["su", "postgres", "-c", " ".join(cmd)]


class _Server:
    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                       key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
        if not found:
            _no_pg("no /usr/lib/postgresql/*/bin/initdb")
        self.bin = Path(found[-1]).parent
        self.dir = Path(tempfile.mkdtemp(prefix="jaslog-pg-"))
        self.proc: subprocess.Popen[bytes] | None = None
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        out = subprocess.run(_as_postgres([str(self.bin / "initdb"), "-D", str(data), "-A", "trust",
                                           "-U", "postgres", "-E", "UTF8", "--no-sync"]),
                             capture_output=True, text=True)
        if out.returncode != 0:
            self.stop()
            _no_pg(f"initdb failed: {out.stderr.strip()[-500:]}")
        self.port = _free_port()
        self.log = self.dir / "server.log"
        self.start()

    def start(self) -> None:
        """Start the server on its data directory and port; wait until it takes connections.
        Its log goes to ``server.log`` in its folder, never to a pipe: a pipe nobody reads
        fills (64 KB of errors the tests provoke) and the server, writing to it, stops
        answering, and stopping it waits out its timeout."""
        data = self.dir / "data"
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                _as_postgres([str(self.bin / "postgres"), "-D", str(data), "-p", str(self.port),
                              "-h", "127.0.0.1", "-k", str(self.dir), "-c", "fsync=off",
                              "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                              "-c", "max_connections=100"]),
                stdout=subprocess.DEVNULL, stderr=log)
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        import atexit

        atexit.register(self.stop)  # even when the session dies early
        deadline = time.monotonic() + 90
        import psycopg

        while True:
            try:
                psycopg.connect(self._dsn("postgres"), connect_timeout=2).close()
                break
            except psycopg.OperationalError as e:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    err = self.log.read_text(errors="replace")
                    self.stop()
                    _no_pg(f"the server did not start: {e} {err[-500:]}")
                time.sleep(0.1)

    def _dsn(self, db: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def stop(self, remove: bool = True) -> None:
        """Stop the server (``pg_ctl stop -m fast``: as an administrator's restart does, it
        ends every connection); ``remove``: delete its data too, and stop with ``-m
        immediate``: no shutdown checkpoint writing out the data about to be deleted (the
        databases of a whole session, a minute and more on a busy machine)."""
        if self.proc is not None and self.proc.poll() is None:
            # pg_ctl signals the server itself (runuser does not pass signals on)
            subprocess.run(_as_postgres([str(self.bin / "pg_ctl"), "stop", "-D",
                                         str(self.dir / "data"), "-m",
                                         "immediate" if remove else "fast", "-w"]),
                           capture_output=True, timeout=60)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if remove:
            shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database (``postgres``)."""
    url = os.environ.get("JASLOG_TEST_PG_URL")
    if url:
        yield url
        return
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _no_pg("psycopg is not installed")
    server = _Server()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An empty database on the test server; its signing key in a directory of the test's
    own (``$JASLOG_KEYS``), not in the user data folder. On the session's own server every
    test gets the same database, emptied first (its connections ended, its ``public``
    schema dropped and made again: a few milliseconds, where a CREATE DATABASE copies a
    template of some 8 MB, 0.2 s a test, and leaves a folder of gigabytes to remove at the
    end of the session). On a server of ``JASLOG_TEST_PG_URL`` each test makes a database of
    its own and drops it afterwards."""
    import psycopg

    monkeypatch.setenv("JASLOG_KEYS", str(tmp_path / "pg-keys"))
    from sqlalchemy.engine import make_url

    server = make_url(pg_server).set(drivername="postgresql")
    admin = server.render_as_string(hide_password=False)
    own = not os.environ.get("JASLOG_TEST_PG_URL")
    name = "jaslog_t_reused" if own else f"jaslog_t_{uuid.uuid4().hex[:12]}"
    url = server.set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as c:
        if not own or not c.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                    (name,)).fetchone():
            c.execute(f"CREATE DATABASE {name}")
        else:
            c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
            with psycopg.connect(url, autocommit=True) as db:
                db.execute("DROP SCHEMA public CASCADE")
                db.execute("CREATE SCHEMA public")
    yield url
    with psycopg.connect(admin, autocommit=True) as c:
        if own:
            c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
        else:
            c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


#: The mark of a test of what only a SQLite file holds (a value of another type in an integer
#: column, the codes read from the file): its store an SQLite file, and no ``[postgresql]``
#: case that would start a database only to be skipped.
sqlite_only = pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of an empty store: an SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite")
    return str(request.getfixturevalue("pg_url"))


#: The test files whose ``[postgresql]`` cases run the logic of their ``[sqlite]`` cases again
#: on the other backend (tampering, signing, verifying in parts, importing, clocks), with the
#: ``[postgresql]`` cases ``make test`` keeps: one or two a file, so that each file's work
#: runs on PostgreSQL in every run. The others are ``make soak``'s (marked ``soak``). The
#: store's contract (``test_contract.py``) and every other file run on both backends in
#: ``make test``: they are PostgreSQL's proof.
POSTGRESQL_SAMPLED = {
    "test_tamper.py": {"test_edited_and_rehashed[postgresql]"},
    "test_signing.py": {"test_a_forger_signing_with_a_key_of_their_own_is_found[postgresql]"},
    "test_verify_incremental.py": {
        "test_a_chain_rewritten_and_rehashed_before_the_verified_head[postgresql]"},
    "test_import.py": {"test_import_then_reimport_skips_then_extends[postgresql]",
                       "test_parallel_import_matches_the_inline_one[postgresql-2-files]"},
    "test_clocks.py": {"test_every_live_append_is_stamped_by_the_store_clock[postgresql]"},
}


@pytest.hookimpl(tryfirst=True)  # before tests/conftest.py leaves the soak tests out
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks ``soak`` the ``[postgresql]`` cases of :data:`POSTGRESQL_SAMPLED`'s files that it
    does not keep."""
    for item in items:
        kept = POSTGRESQL_SAMPLED.get(item.path.name)
        callspec = getattr(item, "callspec", None)
        if (kept is not None and item.path.parent == Path(__file__).parent
                and callspec is not None and callspec.params.get("store_url") == "postgresql"
                and item.name not in kept):
            item.add_marker(pytest.mark.soak)


#: The time of the store fixture's clock: every event it appends is stamped with it.
STORE_TIME = "2026-12-01T20:00:00.000Z"


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """An empty store on a :class:`ManualClock` at :data:`STORE_TIME`."""
    s = open_store(store_url, clock=ManualClock(STORE_TIME))
    yield s
    s.close()


@pytest.fixture
def raw_sql(store: Store) -> Callable[..., Any]:
    """Run SQL behind the store's back (as someone with database access would)."""
    from sqlalchemy import text

    def run(sql: str, **params: Any) -> Any:
        with store.engine.connect() as conn, conn.begin():
            res = conn.execute(text(sql), params)
            return res.all() if res.returns_rows else res.rowcount

    run.store = store  # type: ignore[attr-defined]  # to read an event's bytes as stored
    return run


def game_events(gid: str, ruleset: str = "amsterdam", *, seed: int = 1,
                **kw: Any) -> list[dict[str, Any]]:
    """A complete simulated game as event dicts."""
    return simulate_game(gid, ruleset, seed=seed, **kw)


def jsonl(events: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(e) + b"\n" for e in events)
