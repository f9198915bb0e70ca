"""Where the store lives: URL resolution and engines (SQLite pragmas, write transactions)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection, Engine

from jaslog.errors import JaslogError

ENV = "JASLOG_DB"
#: How long (seconds) a writer waits for the store's write lock before it gives up with
#: :class:`DatabaseError` ``store_busy`` (default 60).
LOCK_TIMEOUT_ENV = "JASLOG_LOCK_TIMEOUT"


def lock_timeout() -> float:
    """Seconds a writer waits for the write lock: ``$JASLOG_LOCK_TIMEOUT``, else 60.

    >>> lock_timeout() if "JASLOG_LOCK_TIMEOUT" not in os.environ else 60.0
    60.0
    """
    try:
        t = float(os.environ.get(LOCK_TIMEOUT_ENV, "") or 60)
    except ValueError:
        return 60.0
    return t if 0 < t < 86_400 else 60.0


def default_url() -> str:
    """``$JASLOG_DB``, else an SQLite file in the platform's user data folder."""
    env = os.environ.get(ENV)
    if env:
        return resolve_url(env)
    from platformdirs import user_data_dir

    return resolve_url(str(Path(user_data_dir("jaslog")) / "jaslog.sqlite"))


#: The URL schemes a store may have: SQLite, and PostgreSQL through psycopg 3.
SCHEMES = ("sqlite", "postgresql", "postgres", "postgresql+psycopg")


def resolve_url(url: str | None) -> str:
    """A path or URL as an SQLAlchemy URL (PostgreSQL through psycopg 3).

    >>> resolve_url("postgres://u@db/club")
    'postgresql+psycopg://u@db/club'
    >>> resolve_url("mysql://u@db/club")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    jaslog.store.types.StoreError: mysql://u@db/club: a store is an SQLite file ..., not mysql
    """
    if url is None:
        return default_url()
    if "://" not in url:
        return "sqlite:///" + str(Path(url).expanduser().resolve())
    scheme = url.split("://", 1)[0].lower()
    if scheme not in SCHEMES:
        from jaslog.store.types import StoreError

        raise StoreError(f"{describe(url)}: a store is an SQLite file (a path or sqlite:///PATH) "
                         f"or a PostgreSQL database (postgresql://...), not {scheme}")
    if scheme in ("postgresql", "postgres"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def describe(url: str) -> str:
    """The URL without a password, for messages."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):  # not a URL (or a bad port): say it as it was given
        return url


#: The advisory lock that serializes writers on PostgreSQL (SQLite has BEGIN IMMEDIATE).
PG_WRITE_LOCK = 0x6A61736C6F67  # "jaslog"


def make_engine(url: str) -> Engine:
    """An engine for ``url``: SQLite in WAL mode with write transactions that begin IMMEDIATE
    (so writers queue instead of failing), PostgreSQL through psycopg 3."""
    from sqlalchemy import create_engine, event

    if url.startswith("sqlite"):
        path = url.split(":///", 1)[1] if ":///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        wait = lock_timeout()
        engine = create_engine(url, connect_args={"timeout": wait})

        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
            import sqlite3
            import time

            cur = dbapi_conn.cursor()
            cur.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            for attempt in range(200):  # switching to WAL needs a moment alone with the file
                try:
                    cur.execute("PRAGMA journal_mode = WAL")
                    break
                except sqlite3.OperationalError as e:
                    if str(getattr(e, "sqlite_errorname", "")).startswith("SQLITE_READONLY"):
                        break  # a read-only store: read as it is (writing it says why not)
                    if attempt == 199:
                        raise
                    time.sleep(0.05)
            cur.execute("PRAGMA synchronous = NORMAL")
            # the write-ahead log is copied into the database (and synced) once it holds about
            # 100 MB instead of SQLite's 4 MB: a bulk import's batches are not each followed by
            # a checkpoint (about a tenth faster on this project's machine)
            cur.execute("PRAGMA wal_autocheckpoint = 25000")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            options = conn.get_execution_options()
            if options.get("jaslog_kept", False):  # a kept writer's: through the driver
                conn.connection.dbapi_connection.execute(  # type: ignore[union-attr]
                    "BEGIN IMMEDIATE")
                return
            conn.exec_driver_sql("BEGIN IMMEDIATE" if options.get("jaslog_write", False)
                                 else "BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True)


@contextmanager
def write_tx(engine: Engine) -> Iterator[Connection]:
    """A write transaction: on SQLite ``BEGIN IMMEDIATE``, on PostgreSQL the writers' advisory
    lock (waited for at most :func:`lock_timeout`), so that positions are handed out in commit
    order. Commits on success. A database that cannot take the write (full, read-only, locked
    too long, gone) is a :class:`DatabaseError`; the transaction is rolled back."""
    with write_tx_reading(engine, None) as (conn, _):
        yield conn


def pg_exec(raw: Any, sql: str) -> Any:
    """Run ``sql`` (statements without parameters, one query string) on the driver's
    connection ``raw`` through libpq's own ``PQexec`` (the driver's ``pgconn``), and return
    the last statement's result (libpq's). One exchange with the server, as the driver's
    ``execute(..., prepare=False)`` of the string, without the driver's cursor, its
    preparing and its wait loop (some 30 us of the writer's CPU a query); libpq waits for
    the server with Python's lock released. A failure is raised as the driver raises it:
    the error of the statement's SQLSTATE (a ``psycopg.IntegrityError`` for rows refused),
    or ``psycopg.OperationalError`` when the connection is lost (``raw.closed`` then)."""
    import psycopg
    from psycopg import pq

    pgconn = raw.pgconn
    res = pgconn.exec_(sql.encode())
    if res.status in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
        return res
    if pgconn.status != pq.ConnStatus.OK:
        said = (pgconn.error_message or b"").decode("utf-8", "replace").strip()
        raise psycopg.OperationalError(f"the connection to the server is lost: {said}")
    raise psycopg.errors.error_from_result(res, encoding=raw.info.encoding)


def _pg_locked_begin(raw: Any, first: str | None) -> Any:
    """Begin a PostgreSQL write transaction on the driver's connection ``raw`` (autocommit
    on: the transaction is ours), with the lock timeout and the store's write lock, and run
    ``first`` (a query without parameters) in it: one exchange with the server, one query
    string in PostgreSQL's simple protocol (:func:`pg_exec`; a pipeline of four statements
    cost the driver about three times the CPU). The first column of ``first``'s first row,
    as text (None: no query, no row or NULL)."""
    sql = f"BEGIN; SET LOCAL lock_timeout = {int(lock_timeout() * 1000)}; " \
        f"SELECT pg_advisory_xact_lock({PG_WRITE_LOCK})"
    if first is None:
        pg_exec(raw, sql)
        return None
    res = pg_exec(raw, f"{sql}; {first}")  # the last statement's result: ``first``'s
    if res.ntuples == 0:
        return None
    value = res.get_value(0, 0)
    return None if value is None else bytes(value).decode()


@contextmanager
def write_tx_reading(engine: Engine, first: str | None) -> Iterator[tuple[Connection, Any]]:
    """:func:`write_tx`, and the first value of the first row of the query ``first`` (None:
    no query; on PostgreSQL the value as text), read once the writers' lock is held.

    On PostgreSQL the transaction's ``BEGIN``, its lock timeout, the lock and ``first`` go
    to the server together (one query string): one exchange, where they took four.
    For that the driver's connection is in autocommit mode while the transaction lasts (it
    would send a ``BEGIN`` of its own, and wait for it): the transaction is ours, begun
    here and ended by the commit (or the rollback) as any other; a writer may end it itself
    (``COMMIT`` with its last rows: :meth:`jaslog.store.append_group.AppendGroup.finish`)."""
    with database_errors(engine.url), engine.connect() as conn:
        conn = conn.execution_options(jaslog_write=True)
        if conn.dialect.name != "postgresql":
            with conn.begin():
                value = None
                if first is not None:
                    row = conn.exec_driver_sql(first).first()
                    value = None if row is None else row[0]
                yield conn, value
            return
        raw = conn.connection.dbapi_connection
        assert raw is not None
        raw.autocommit = True
        try:
            with conn.begin():
                yield conn, _pg_locked_begin(raw, first)
        finally:
            try:
                raw.autocommit = False  # the transaction is over: the driver's own again
            except Exception:  # the connection is lost: not to be used again
                conn.invalidate()


class KeptWriter:
    """A write connection of ``engine`` kept open from one write transaction to the next,
    for a writer that writes many small ones (the service's group commit): the pool's
    checkout and return of a connection (on PostgreSQL its check of the connection, an
    exchange with the server), and on SQLite SQLAlchemy's execution of ``BEGIN
    IMMEDIATE``, cost some 40-90 us a transaction, as much as a small group's rows. Each
    transaction is :func:`write_tx_reading`'s; a transaction that fails gives its
    connection back to the pool (the next one takes a fresh one). One thread at a time
    (the writer's).

    On PostgreSQL the pool checks a connection before it hands it out: that is what finds
    a server that restarted. A kept connection is not checked: should the server have
    dropped it since, the transaction's first exchange (its start, its lock and ``first``)
    fails before anything is written, and the transaction begins again, once, on a fresh
    connection from the pool."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._conn: Connection | None = None

    def _connection(self) -> Connection:
        conn = self._conn
        if conn is None:
            conn = self.engine.connect().execution_options(jaslog_write=True, jaslog_kept=True)
            self._conn = conn
        return conn

    @contextmanager
    def write_tx_reading(self, first: str | None) -> Iterator[tuple[Connection, Any]]:
        """A write transaction on the kept connection, and the first value of the first row
        of the query ``first`` (None: no query), read once the writers' lock is held;
        committed on success (as :func:`write_tx_reading`)."""
        with database_errors(self.engine.url):
            if self.engine.dialect.name == "postgresql":
                conn, tx, value = self._begin_pg(first)
            else:
                conn = self._connection()
                try:
                    tx = conn.begin()  # BEGIN IMMEDIATE, through the driver (make_engine)
                    value = None
                    if first is not None:
                        with raw_cursor(conn) as cur:
                            cur.execute(first)
                            row = cur.fetchone()
                        value = None if row is None else row[0]
                except BaseException:
                    self.close()
                    raise
            try:
                yield conn, value
                tx.commit()
            except BaseException:
                with contextlib.suppress(Exception):
                    tx.rollback()
                self.close()
                raise

    def _begin_pg(self, first: str | None) -> tuple[Connection, Any, Any]:
        """The transaction begun on PostgreSQL (its ``BEGIN``, lock timeout, the lock and
        ``first`` in one exchange, as :func:`write_tx_reading` begins it), on the kept
        connection, else (dropped by the server since) on a fresh one."""
        for attempt in (1, 2):
            kept = self._conn is not None
            conn = self._connection()
            raw = conn.connection.dbapi_connection
            assert raw is not None
            try:
                if not raw.autocommit:  # (its setter is a wait of the driver's, each time)
                    raw.autocommit = True  # the transaction is ours: no BEGIN of the driver's
                tx = conn.begin()
                return conn, tx, _pg_locked_begin(raw, first)
            except Exception:
                gone = bool(getattr(raw, "broken", False) or getattr(raw, "closed", False))
                with contextlib.suppress(Exception):
                    if gone:
                        conn.invalidate()
                    else:  # (the lock not had in time, say): the transaction begun is ended
                        raw.rollback()
                self.close()
                if kept and gone and attempt == 1:
                    continue  # the server dropped the kept connection: a fresh one
                raise
        raise AssertionError("unreachable")  # (the second attempt returns or raises)

    def close(self) -> None:
        """Give the connection back to the pool (the next transaction takes another), in
        the driver's own mode again (PostgreSQL: not in autocommit)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if self.engine.dialect.name == "postgresql" and not conn.invalidated:
            try:
                conn.connection.dbapi_connection.autocommit = False  # type: ignore[union-attr]
            except Exception:  # the connection is lost: not to be used again
                with contextlib.suppress(Exception):
                    conn.invalidate()
        with contextlib.suppress(Exception):
            conn.close()


@contextmanager
def read_tx(engine: Engine) -> Iterator[Connection]:
    """A read transaction (one consistent snapshot on both backends); a database that cannot
    be read is a :class:`DatabaseError`."""
    with database_errors(engine.url), engine.connect() as conn, conn.begin():
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield conn


class DatabaseError(JaslogError):
    """The database could not do what was asked, for a reason of its own: its disk is full
    (``store_full``), it is read-only (``store_read_only``), another process held its lock
    too long (``store_busy``), it cannot be reached (``store_unreachable``: a PostgreSQL
    server restarting), or another error (``database_error``). Nothing of the transaction
    was written. ``retry_after``: seconds after which trying again may work (None: it will
    not pass by itself)."""

    code = "database_error"

    def __init__(self, message: str, code: str = "database_error",
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code, self.retry_after = code, retry_after


#: SQLite's result codes (``sqlite3.Error.sqlite_errorname``, without extended suffixes) and
#: PostgreSQL's SQLSTATE classes and codes: what each means for a user.
_SQLITE_KINDS = {"SQLITE_FULL": "store_full", "SQLITE_READONLY": "store_read_only",
                 "SQLITE_BUSY": "store_busy", "SQLITE_LOCKED": "store_busy",
                 "SQLITE_IOERR": "store_io", "SQLITE_CANTOPEN": "store_io",
                 "SQLITE_PERM": "store_read_only", "SQLITE_AUTH": "store_read_only"}
_PG_KINDS = {"53100": "store_full", "53": "store_full", "25006": "store_read_only",
             "55P03": "store_busy", "40P01": "store_busy", "57014": "store_busy",
             "08": "store_unreachable", "57P": "store_unreachable", "58": "store_io"}


def param_mark(dialect: str) -> str:
    """The driver's parameter mark in a statement written as text: psycopg's or sqlite3's.

    >>> param_mark("postgresql"), param_mark("sqlite")
    ('%s', '?')
    """
    return "%s" if dialect == "postgresql" else "?"


@contextmanager
def raw_cursor(conn: Connection) -> Iterator[Any]:
    """The driver's own cursor of ``conn``, in the caller's transaction, closed after: for
    the statements on a hot path, which through SQLAlchemy's execution (its checks and
    conversions of every row) cost some ten times as much."""
    cur = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        yield cur
    finally:
        cur.close()


def _kind(orig: BaseException) -> str | None:
    """What a driver's error is (a key of :data:`_SQLITE_KINDS` values), or None."""
    name = getattr(orig, "sqlite_errorname", None)
    if isinstance(name, str):
        for prefix, kind in _SQLITE_KINDS.items():
            if name == prefix or name.startswith(prefix + "_"):
                return kind
        return None
    state = getattr(orig, "sqlstate", None)
    if isinstance(state, str):
        for key in (state, state[:3], state[:2]):
            if key in _PG_KINDS:
                return _PG_KINDS[key]
        return None
    if type(orig).__module__.startswith("psycopg") and type(orig).__name__ == "OperationalError":
        return "store_unreachable"  # no SQLSTATE: the server could not be reached at all
    return None


def database_error(e: BaseException, url: Any = None) -> DatabaseError | None:
    """The :class:`DatabaseError` a driver's (or SQLAlchemy's) error means, in a sentence, or
    None when it is not one of those (an integrity error is the caller's to handle).

    >>> import sqlite3
    >>> try:
    ...     sqlite3.connect("file:/no/such/dir/x.sqlite?mode=ro", uri=True)
    ... except sqlite3.Error as err:
    ...     print(database_error(err).code)
    store_io
    """
    from sqlalchemy.exc import DBAPIError, OperationalError

    if isinstance(e, DatabaseError):
        return e
    orig: BaseException = e.orig if isinstance(e, DBAPIError) and e.orig is not None else e
    kind = _kind(orig)
    said = db_message(e)
    where = f" ({describe(str(url))})" if url is not None else ""
    if kind == "store_full":
        return DatabaseError(f"the store's disk is full{where}: {said}; nothing of this was "
                             "written: free some space and try again", kind, 60)
    if kind == "store_read_only":
        return DatabaseError(f"the store cannot be written{where}: {said}; nothing was written "
                             "(is the file or its folder read-only, or the database in "
                             "read-only mode?)", kind)
    if kind == "store_busy":
        return DatabaseError(f"the store is busy{where}: another process held its lock for more "
                             f"than {lock_timeout():g} s ({said}); nothing was written: try "
                             "again", kind, 5)
    if kind == "store_unreachable":
        return DatabaseError(f"the database cannot be reached{where}: {said}; try again in a "
                             "moment", kind, 5)
    if kind == "store_io":
        return DatabaseError(f"the store cannot be read or written{where}: {said}", kind)
    if isinstance(e, DBAPIError) and e.connection_invalidated:
        return DatabaseError(f"the connection to the database was lost{where}: {said}; try "
                             "again", "store_unreachable", 5)
    if isinstance(e, OperationalError) or (is_driver_error(orig)
                                           and type(orig).__name__ == "OperationalError"):
        return DatabaseError(f"database error{where}: {said}")
    return None


def is_driver_error(e: BaseException) -> bool:
    """Whether ``e`` is an error of a database driver (sqlite3, psycopg) or of SQLAlchemy."""
    return type(e).__module__.split(".")[0] in ("sqlite3", "psycopg", "sqlalchemy")


@contextmanager
def database_errors(url: Any = None) -> Iterator[None]:
    """Turn what the database says of itself (full, read-only, busy, gone: see
    :func:`database_error`) into a :class:`DatabaseError`; other errors go on as they are."""
    try:
        yield
    except Exception as e:
        mapped = database_error(e, url) if is_driver_error(e) else None
        if mapped is None:
            raise
        raise mapped from e


def db_message(e: BaseException) -> str:
    """The first line of what the database said (a driver error's own words, not
    SQLAlchemy's wrapping), for a sentence of ours."""
    orig = getattr(e, "orig", None)
    text = str(orig) if orig is not None else str(e)
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__
