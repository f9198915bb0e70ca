"""A group of appends written in one transaction (:meth:`jaslog.store.appending.Appending.group`):
the service's group commit, each append checked and answered as it would be alone."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from jaslog.events import Event
from jaslog.store import engine as eng
from jaslog.store.rows import INSERT_COLUMNS
from jaslog.store.types import AppendResult, ConflictError, Head

if TYPE_CHECKING:
    from jaslog.store.appending import Appending, EventLike

#: A group's event rows on PostgreSQL: one ``INSERT`` of them all, its columns
#: :data:`jaslog.store.rows.INSERT_COLUMNS` (its ``VALUES`` written by :func:`pg_values`).
PG_INSERT_GROUP_SQL = f"INSERT INTO events ({', '.join(INSERT_COLUMNS)}) VALUES "


def _pg_literal(v: Any) -> str:
    """An event row's value as an SQL literal: an integer, bytes (hex, ``E'\\x..'``, read
    the same whatever ``standard_conforming_strings`` says) or NULL; anything else is
    refused (nothing but these reaches an event row)."""
    t = type(v)
    if t is int:
        return str(v)
    if t is bytes:
        return f"E'\\\\x{v.hex()}'::bytea"
    if v is None:
        return "NULL"
    if isinstance(v, int) and not isinstance(v, bool):
        return str(int(v))
    raise TypeError(f"an event row holds integers, bytes and NULLs, not {t.__name__}")


def pg_values(rows: list[tuple[Any, ...]]) -> str:
    """The ``VALUES`` of :data:`PG_INSERT_GROUP_SQL` for ``rows`` (in
    :data:`jaslog.store.rows.INSERT_COLUMNS`' order): the rows written into the statement,
    so that the group's rows, its ``NOTIFY`` and its ``COMMIT`` go as one query string in
    PostgreSQL's simple protocol, one exchange (as parameters of a pipeline of three
    statements they cost the driver some four times the CPU: each parameter's adaptation,
    each statement's)."""
    lit = _pg_literal
    return ",".join(f"({','.join([lit(v) for v in r])})" for r in rows)


@lru_cache(maxsize=16)
def pg_notify_sql(channel: str, payload: str) -> str:
    """``SELECT pg_notify(channel, payload)``, the two quoted as SQL literals."""
    from psycopg import sql

    return sql.SQL("SELECT pg_notify({}, {})").format(
        sql.Literal(channel), sql.Literal(payload)).as_string(None)


class AppendGroup:
    """The appends of one write transaction (:meth:`Appending.group`).

    A group checks an append against the head its game's last append in this store left
    (kept with its fold) rather than reading it, on either store: should another writer
    have moved the game since, the append's rows collide with its rows and each append of
    the group is written again alone, checked against the stored head
    (:attr:`kept_heads`). A group writes its appends' event rows in one statement as it
    ends (:meth:`finish`): on SQLite one ``executemany`` (not one an append); on
    PostgreSQL, where each statement is an exchange with the server, one ``INSERT`` with
    its commit, one query string (:func:`pg_values`): the transaction is an exchange to
    begin it (its lock and the last position read with it) and one to end it, and a few
    more for an append that ends a round (its signature, its facts). An append whose game
    has rows waiting is checked after they are written (:meth:`flush`), against what the
    store then holds."""

    def __init__(self, store: Appending, conn: Connection, pos: int | None = None) -> None:
        self.store = store
        self.conn = conn
        #: The games appended to in the group (their cached folds go if it fails).
        self.games: set[str] = set()
        #: Whether writing an append failed: the transaction must not be committed.
        self.broken = False
        #: Whether an append was checked against a head kept in memory (not read): when
        #: writing its rows fails, another writer may have moved its game, and each append
        #: is to be written again in a group of its own, checked against the stored head.
        self.kept_heads = False
        self._pos = pos  # the last event position handed out
        #: The store's clock, read at the group's first append (the writers' lock held): the
        #: ``recorded_at`` of every event the group stores.
        self._now: datetime | None = None
        #: Event rows to write (:meth:`flush`), and the games and the first append (game,
        #: first seq) they are of.
        self._rows: list[tuple[Any, ...]] = []
        self._waiting: set[str] = set()
        self._first: tuple[str, int] | None = None
        self._finished = False
        self._wrote = False  # whether the group wrote event rows

    def append(self, game: str, events: Iterable[EventLike],
               expected_seq: int | None = None, *, at_end: bool = False) -> AppendResult:
        """:meth:`Appending.append` in the group's transaction: the refusals it raises
        (:class:`ConflictError`, :class:`RejectedError`, :class:`NoSuchGame`, a
        :class:`StoreError`) are raised before anything of it is written, and the group goes
        on. An error while writing its rows makes the group :attr:`broken` (a row the
        database refuses is a :class:`ConflictError`, as :meth:`Appending.append` says it)."""
        s = self.store
        if self.broken:
            raise RuntimeError("the group is broken: leave it, nothing of it is written")
        if game in self._waiting:
            self.flush()
        prep = s._prepared(game, events, expected_seq, at_end)
        self.games.add(game)
        kept = s._kept_head(game, prep)
        if self._now is None:
            self._now = s.clock()
        try:
            res, plan = s._check(self.conn, game, prep, kept, self._now)
        except BaseException:
            s._forget(game)
            raise
        if plan is None:
            return res
        try:
            if self._pos is None:
                self._pos = s._last_pos(self.conn)
            res = s._store(self.conn, plan, self._pos, self._rows)
        except Exception as e:
            self.broken = True
            s._forget(game)
            if not _refused(e):  # (the driver's own, too: SQLite's rows go through it)
                raise
            raise ConflictError(game, prep.first_seq, s._head_quiet(game),
                                f"the database refused the rows: {eng.db_message(e)}") from None
        except BaseException:
            self.broken = True
            s._forget(game)
            raise
        self.kept_heads = self.kept_heads or kept is not None
        self._waiting.add(game)
        if self._first is None:
            self._first = (game, prep.first_seq)
        self._pos += res.appended
        s._remember(game, res.head, plan.fold, plan.after)
        return res

    def flush(self) -> None:
        """Write the event rows waiting, in one statement. Rows the database
        refuses make the group :attr:`broken`: a :class:`ConflictError` of its first
        append waiting, as :meth:`Appending.append` says it."""
        self._write(commit=False)

    def finish(self, notify: tuple[str, str] | None = None) -> None:
        """Write the rows waiting (and, on PostgreSQL, commit, in one exchange); as
        :meth:`flush` when the rows are refused. :meth:`Appending.group` calls it as the
        group ends; called before, a refusal is the caller's to answer. ``notify``: a
        ``NOTIFY`` (channel, payload) to send with the commit (PostgreSQL delivers it to
        the channel's listeners as the transaction commits), when the group wrote events."""
        if not self._finished:
            self._write(commit=True, notify=notify)

    def _write(self, commit: bool, notify: tuple[str, str] | None = None) -> None:
        rows, first = self._rows, self._first
        if not rows and not commit:
            return
        self._wrote = self._wrote or bool(rows)
        if self.broken:
            raise RuntimeError("the group is broken: leave it, nothing of it is written")
        self._rows, self._waiting, self._first = [], set(), None
        try:
            if self.store.dialect != "postgresql":
                # SQLite: the rows in one executemany; the transaction's end commits them
                if rows:
                    with eng.raw_cursor(self.conn) as cur:
                        cur.executemany(self.store._insert_events_sql, rows)
            else:
                raw = self.conn.connection.dbapi_connection
                assert raw is not None
                # the rows, the NOTIFY and the commit: one query string, one exchange
                statements = [PG_INSERT_GROUP_SQL + pg_values(rows)] if rows else []
                if commit and notify is not None and self._wrote:
                    statements.append(pg_notify_sql(*notify))
                if commit:  # the transaction is ours (eng.write_tx_reading): no sync of its own
                    statements.append("COMMIT")
                if statements:
                    eng.pg_exec(raw, "; ".join(statements))
        except Exception as e:
            if not _refused(e):
                raise
            self.broken = True
            for game in self.games:
                self.store._forget(game)
            game, seq = first or ("", 0)
            raise ConflictError(game, seq, self.store._head_quiet(game),
                                f"the database refused the rows: {eng.db_message(e)}") from None
        if commit:
            self._finished = True

    def head(self, game: str) -> Head:
        """The game's head as the group has it so far."""
        if game in self._waiting:
            self.flush()
        return self.store._head(self.conn, game)

    def events(self, game: str) -> list[Event]:
        """The game's events as the group has them so far."""
        if game in self._waiting:
            self.flush()
        return self.store._read_events(self.conn, game)


def _refused(e: BaseException) -> bool:
    """Whether ``e`` is the database refusing rows (an integrity error, SQLAlchemy's or the
    driver's own)."""
    return isinstance(e, IntegrityError) or (
        eng.is_driver_error(e) and any(c.__name__ == "IntegrityError" for c in type(e).__mro__))
