"""Where the store lives: URL resolution and engines (SQLite pragmas, write transactions)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection, Engine

ENV = "JASLOG_DB"


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
        engine = create_engine(url, connect_args={"timeout": 60})

        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
            import sqlite3
            import time

            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA busy_timeout = 60000")
            for attempt in range(200):  # switching to WAL needs a moment alone with the file
                try:
                    cur.execute("PRAGMA journal_mode = WAL")
                    break
                except sqlite3.OperationalError:
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
            write = conn.get_execution_options().get("jaslog_write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True)


@contextmanager
def write_tx(engine: Engine) -> Iterator[Connection]:
    """A write transaction: on SQLite ``BEGIN IMMEDIATE``, on PostgreSQL the writers' advisory
    lock, so that positions are handed out in commit order. Commits on success."""
    with engine.connect() as conn:
        conn = conn.execution_options(jaslog_write=True)
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({PG_WRITE_LOCK})")
            yield conn


@contextmanager
def read_tx(engine: Engine) -> Iterator[Connection]:
    """A read transaction (one consistent snapshot on both backends)."""
    with engine.connect() as conn, conn.begin():
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield conn


def db_message(e: Exception) -> str:
    """The first line of what the database said (a driver error's own words, not
    SQLAlchemy's wrapping), for a sentence of ours."""
    orig = getattr(e, "orig", None)
    text = str(orig) if orig is not None else str(e)
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__
