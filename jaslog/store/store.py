"""The :class:`Store`: one contract over SQLite and PostgreSQL."""

from __future__ import annotations

import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from jaslog.events import VERSION, Event, EventError, GameStarted, Line, event_from_dict
from jaslog.fold import FoldError, GameFold, start_fold
from jaslog.store import engine as eng
from jaslog.store.codec import (
    canonical,
    event_dict,
    link,
    norm_id,
    now_rfc3339,
    now_text,
    parse_time,
    utc_text,
)
from jaslog.store.queries import EVENT_COLUMNS, Queries
from jaslog.store.schema import (
    EVENTS,
    GAME_PLAYERS,
    GAMES,
    PLAYERS,
    SCHEMA_VERSION,
    create,
    schema_version,
)
from jaslog.store.types import (
    GENESIS,
    AppendResult,
    ConflictError,
    Head,
    ImportSummary,
    NoSuchGame,
    RejectedError,
    StoreError,
    VerifyReport,
)

EventLike = Event | dict[str, Any] | bytes | str
_FOLD_CACHE = 32


def created_at(started: GameStarted) -> str:
    """The sortable UTC start of a game: its ``at``, else now."""
    if started.at:
        return parse_time(started.at)
    return now_text()


class Store(Queries):
    """A jaslog event store on one database (``sqlite:///...`` or ``postgresql+psycopg://...``).

    Open it with :func:`open_store`. A Store is for one thread; open one per process (the
    database serializes writers: SQLite by ``BEGIN IMMEDIATE``, PostgreSQL by an advisory
    lock, which also keeps event positions in commit order for incremental readers).
    """

    def __init__(self, url: str | None = None, create: bool = True) -> None:
        self.url = eng.resolve_url(url)
        if not create and self.url.startswith("sqlite:///"):
            path = Path(self.url[len("sqlite:///"):])
            if not path.exists():
                raise StoreError(f"no store at {path}: import games first (`jaslog import FILE`)"
                                 " or start one (`jaslog new`), or name the store with --db or "
                                 "$JASLOG_DB")
            if not path.is_file():
                raise StoreError(f"{path}: not a store (a store is an SQLite file)")
            _must_be_a_store(path)
        self.engine = eng.make_engine(self.url)
        self.dialect = self.engine.dialect.name
        self._folds: OrderedDict[str, tuple[int, str, GameFold]] = OrderedDict()
        ph = "%s" if self.dialect == "postgresql" else "?"
        self._insert_events_sql = (f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) "
                                   f"VALUES ({', '.join([ph] * len(EVENT_COLUMNS))})")
        try:
            self._ensure_schema(may_create=create)
        except SQLAlchemyError as e:
            self.engine.dispose()
            raise StoreError(f"cannot open the store at {eng.describe(self.url)}: "
                             f"{_db_message(e)}") from None

    def _ensure_schema(self, may_create: bool) -> None:
        with self.engine.connect() as conn:
            v = schema_version(conn)
            conn.rollback()
        if v is None:
            if not may_create:
                self.engine.dispose()
                raise StoreError(f"no jaslog store at {eng.describe(self.url)} (the database "
                                 "has no jaslog tables): import games first (`jaslog import FILE`)")
            with eng.write_tx(self.engine) as conn:
                if schema_version(conn) is None:
                    create(conn)
            return
        if v > SCHEMA_VERSION:
            raise StoreError(f"the store at {eng.describe(self.url)} has schema version {v}; "
                             f"this jaslog knows up to {SCHEMA_VERSION}: upgrade jaslog")

    # ------------------------------------------------------------------ heads

    @staticmethod
    def _head(conn: Connection, game: str) -> Head:
        row = conn.execute(select(EVENTS.c.seq, EVENTS.c.hash).where(EVENTS.c.game == game)
                           .order_by(EVENTS.c.seq.desc()).limit(1)).first()
        if row is None:
            return Head(game, 0, GENESIS)
        return Head(game, row.seq + 1, row.hash)

    @staticmethod
    def _heads(conn: Connection, games: Sequence[str]) -> dict[str, Head]:
        """Heads of many games at once (games without events are left out)."""
        out: dict[str, Head] = {}
        for i in range(0, len(games), 500):
            chunk = list(games[i:i + 500])
            last = (select(EVENTS.c.game, func.max(EVENTS.c.seq).label("seq"))
                    .where(EVENTS.c.game.in_(chunk)).group_by(EVENTS.c.game).subquery())
            q = select(EVENTS.c.game, EVENTS.c.seq, EVENTS.c.hash).join(
                last, and_(EVENTS.c.game == last.c.game, EVENTS.c.seq == last.c.seq))
            for r in conn.execute(q):
                out[r.game] = Head(r.game, r.seq + 1, r.hash)
        return out

    def head(self, game: str) -> Head:
        """The game's head: next seq and last hash (raises :class:`NoSuchGame`)."""
        with eng.read_tx(self.engine) as conn:
            h = self._head(conn, game)
        if h.next_seq == 0:
            raise NoSuchGame(game)
        return h

    def cursor(self) -> int:
        """The store's write position: the ``pos`` of the last event stored (0 when empty).

        Positions are contiguous and in commit order on both backends.
        """
        with eng.read_tx(self.engine) as conn:
            return int(conn.execute(select(func.coalesce(func.max(EVENTS.c.pos), 0))).scalar_one())

    # ------------------------------------------------------------------ appending

    @staticmethod
    def _parsed(game: str, events: Iterable[EventLike]) -> list[Any]:
        """The events with JSON text parsed (models and dicts as they are)."""
        out: list[Any] = []
        for i, item in enumerate(events):
            try:
                out.append(item if isinstance(item, Event) else event_dict(item))
            except EventError as err:
                raise RejectedError(f"game {game}: event {i + 1} of the batch: {err}; "
                                    "nothing was written", game=game, code="bad_event") from None
        return out

    @staticmethod
    def _retry_base(conn: Connection, head: Head, items: list[Any]) -> int:
        """Where an ``at_end`` batch goes: the seq its first event is stored at when that
        event's id is stored (a retry), else the game's next seq. An id stored for another
        event is refused here, in a sentence."""
        first = items[0] if items else None
        if not isinstance(first, dict) or "seq" in first or not isinstance(first.get("id"), str):
            return head.next_seq
        try:
            eid = norm_id(first["id"])
        except ValueError:
            return head.next_seq  # the event's validation says what is wrong with it
        row = conn.execute(select(EVENTS.c.seq, EVENTS.c.type, EVENTS.c.payload, EVENTS.c.version)
                           .where(EVENTS.c.game == head.game, EVENTS.c.event_id == eid)).first()
        if row is None:
            return head.next_seq
        try:
            sent = event_from_dict({**first, "game": first.get("game", head.game), "seq": row.seq})
        except EventError:
            return head.next_seq
        if row.version == VERSION and bytes(row.payload) != canonical(sent):
            what = (f"a {row.type} event, not this {sent.type}" if row.type != sent.type
                    else f"another {row.type} event (other content)")
            raise RejectedError(f"game {head.game}: event id {eid} is already stored at seq "
                                f"{row.seq}, for {what}; an id names one event: give a new "
                                "event a new id; nothing was written",
                                game=head.game, seq=row.seq, code="duplicate_id")
        return int(row.seq)

    def _coerce(self, game: str, events: Iterable[EventLike],
                expected_seq: int | None) -> list[Event]:
        out: list[Event] = []
        for i, item in enumerate(events):
            try:
                if isinstance(item, Event):
                    e = item
                else:
                    raw = event_dict(item)
                    if isinstance(raw, dict) and ("game" not in raw or "seq" not in raw):
                        raw = dict(raw)
                        raw.setdefault("game", game)
                        if "seq" not in raw:
                            if expected_seq is None:
                                raise EventError("field 'seq' is missing (give the event a seq, "
                                                 "or the seq expected)")
                            raw["seq"] = expected_seq + i
                    e = event_from_dict(raw)
            except EventError as err:
                raise RejectedError(f"game {game}: event {i + 1} of the batch: {err}; "
                                    "nothing was written", game=game, code="bad_event") from None
            if e.game != game:
                raise RejectedError(f"game {game}: event {i + 1} of the batch is of game {e.game}; "
                                    "nothing was written", game=game, seq=e.seq, code="wrong_game")
            if out and e.seq != out[-1].seq + 1:
                raise RejectedError(f"game {game}: the batch jumps from seq {out[-1].seq} to "
                                    f"{e.seq}; nothing was written", game=game, seq=e.seq,
                                    code="seq_gap")
            out.append(e)
        return out

    def _stored_fold(self, conn: Connection, head: Head) -> GameFold:
        """The fold of a stored game at ``head`` (cached between appends of this Store)."""
        hit = self._folds.pop(head.game, None)
        if hit is not None and hit[0] == head.next_seq and hit[1] == head.hash:
            return hit[2]
        events = self._read_events(conn, head.game)
        if not events:
            raise NoSuchGame(head.game)
        try:
            f = start_fold(events[0])
            for e in events[1:]:
                f.apply(e)
        except FoldError as err:
            raise StoreError(f"game {head.game}: the stored log no longer folds: {err}") from None
        return f

    def append(self, game: str, events: Iterable[EventLike],
               expected_seq: int | None = None, *, at_end: bool = False) -> AppendResult:
        """Append ``events`` (in seq order) to ``game`` in one transaction.

        Events may be :class:`jaslog.events.Event` models, dicts or JSON text; a dict
        without ``game`` or ``seq`` gets the game and ``expected_seq`` + its index.
        ``expected_seq`` is the seq the first new event must get (default: the first
        event's own seq). Raises :class:`ConflictError` (expected vs actual seq) when the
        game moved on, :class:`RejectedError` when the fold refuses an event; in both cases
        nothing is written. Events already stored at their position with the same ``id``
        (retries) are skipped and counted in ``already_stored``.

        ``at_end`` (without ``expected_seq``): dicts without a seq go at the end of the game
        as it stands when the batch is written. A batch whose first such event has an ``id``
        that is already stored is a retry: it is placed where that event is stored, so the
        events already stored are skipped (sending a stored batch again appends nothing).
        An id stored for another event is refused (``duplicate_id``).
        """
        if at_end and expected_seq is not None:
            raise ValueError("append: at_end and expected_seq exclude each other")
        items: list[Any] = []
        evs: list[Event] = []
        if at_end:
            items = self._parsed(game, events)
        else:
            evs = self._coerce(game, events, expected_seq)
        if expected_seq is not None and evs and evs[0].seq != expected_seq:
            raise RejectedError(f"game {game}: the batch starts at seq {evs[0].seq} but seq "
                                f"{expected_seq} was expected; nothing was written",
                                game=game, seq=evs[0].seq, code="seq_mismatch")
        try:
            with eng.write_tx(self.engine) as conn:
                head = self._head(conn, game)
                if at_end:
                    evs = self._coerce(game, items, self._retry_base(conn, head, items))
                if not evs:
                    return AppendResult(game, 0, 0, head)
                skip = self._already_stored(conn, head, evs)
                rest = evs[skip:]
                if not rest:
                    return AppendResult(game, 0, skip, head)
                if rest[0].seq != head.next_seq:
                    detail = "another writer got there first" if rest[0].seq < head.next_seq \
                        else "that would leave a gap"
                    raise ConflictError(game, rest[0].seq, head.next_seq, detail)
                self._check_ids(conn, game, rest)
                f = self._validate(conn, head, rest)
                rows, new_head = self._rows(conn, head, rest)
                if head.next_seq == 0:
                    self._insert_game(conn, rest[0])  # type: ignore[arg-type]
                self.insert_rows(conn, rows)
        except IntegrityError as e:
            self._folds.pop(game, None)
            actual = self._head_quiet(game)
            raise ConflictError(game, evs[0].seq, actual,
                                f"the database refused the rows: {_db_message(e)}") from None
        except BaseException:
            self._folds.pop(game, None)
            raise
        self._remember(game, new_head, f)
        return AppendResult(game, len(rest), skip, new_head)

    def insert_rows(self, conn: Connection, rows: Sequence[Sequence[Any]]) -> None:
        """Bulk-insert event rows (in :data:`EVENT_COLUMNS` order) in the caller's transaction:
        ``COPY`` on PostgreSQL, one ``executemany`` on SQLite. Never row by row."""
        if not rows:
            return
        if self.dialect == "postgresql":
            cur = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
            try:
                with cur.copy(f"COPY events ({', '.join(EVENT_COLUMNS)}) FROM STDIN") as cp:
                    for row in rows:
                        cp.write_row(row)
            finally:
                cur.close()
            return
        # the driver's own executemany, in the caller's transaction (SQLAlchemy would check
        # and convert every row first)
        cur = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            cur.executemany(self._insert_events_sql, rows)
        finally:
            cur.close()

    def _head_quiet(self, game: str) -> int:
        try:
            with eng.read_tx(self.engine) as conn:
                return self._head(conn, game).next_seq
        except SQLAlchemyError:
            return -1

    def _remember(self, game: str, head: Head, f: GameFold) -> None:
        self._folds[game] = (head.next_seq, head.hash, f)
        while len(self._folds) > _FOLD_CACHE:
            self._folds.popitem(last=False)

    @staticmethod
    def _already_stored(conn: Connection, head: Head, evs: list[Event]) -> int:
        """How many leading events are retries: stored at their seq with the same id."""
        if evs[0].seq >= head.next_seq or evs[0].id is None:
            return 0
        top = min(evs[-1].seq, head.next_seq - 1)
        stored = {r.seq: r for r in conn.execute(
            select(EVENTS.c.seq, EVENTS.c.event_id, EVENTS.c.payload, EVENTS.c.version)
            .where(EVENTS.c.game == head.game, EVENTS.c.seq.between(evs[0].seq, top)))}
        n = 0
        for e in evs:
            row = stored.get(e.seq)
            if row is None or e.id is None or row.event_id != norm_id(e.id):
                break
            if row.version == VERSION and bytes(row.payload) != canonical(e):
                raise ConflictError(head.game, e.seq, head.next_seq,
                                    f"event id {e.id} is stored at seq {e.seq} with other content")
            n += 1
        return n

    @staticmethod
    def _check_ids(conn: Connection, game: str, evs: list[Event]) -> None:
        ids = {norm_id(e.id): e.seq for e in evs if e.id is not None}
        if not ids:
            return
        if len(ids) != sum(1 for e in evs if e.id is not None):
            raise RejectedError(f"game {game}: the batch uses one event id twice; nothing was "
                                "written", game=game, code="duplicate_id")
        hit = conn.execute(select(EVENTS.c.seq, EVENTS.c.event_id).where(
            EVENTS.c.game == game, EVENTS.c.event_id.in_(list(ids)))).first()
        if hit is not None:
            raise RejectedError(f"game {game} seq {ids[hit.event_id]}: event id {hit.event_id} "
                                f"is already stored at seq {hit.seq}; an id names one event (a "
                                "retry sends the same events again): give a new event a new id; "
                                "nothing was written", game=game, seq=ids[hit.event_id],
                                code="duplicate_id")

    def _validate(self, conn: Connection, head: Head, evs: list[Event]) -> GameFold:
        try:
            if head.next_seq == 0:
                f = start_fold(evs[0])
                todo = evs[1:]
            else:
                f = self._stored_fold(conn, head)
                todo = evs
            for e in todo:
                f.apply(e)
        except FoldError as err:
            hint = ""
            if head.next_seq == 0 and err.code == "no_game_started":  # a mistyped id, mostly
                hint = (f"; there is no game {head.game!r} in the store (see `jaslog games`): "
                        "a new game begins with its game_started event")
            raise RejectedError(f"{err}{hint}; nothing was written", game=err.game, seq=err.seq,
                                code=err.code, fold_error=err) from None
        return f

    def _rows(self, conn: Connection, head: Head,
              evs: list[Event]) -> tuple[list[tuple[Any, ...]], Head]:
        pos = int(conn.execute(select(func.coalesce(func.max(EVENTS.c.pos), 0))).scalar_one())
        prev = bytes.fromhex(head.hash)
        rows = []
        for e in evs:
            payload = canonical(e)
            h = link(prev, payload)
            pos += 1
            rows.append((e.game, e.seq, pos, e.type, VERSION, norm_id(e.id), e.at, payload,
                         prev.hex(), h.hex()))
            prev = h
        return rows, Head(head.game, evs[-1].seq + 1, prev.hex())

    @staticmethod
    def _insert_game(conn: Connection, started: GameStarted) -> None:
        insert_games(conn, [started])

    def new_game(self, ruleset: str, seats: list[str], *, dealer: int = 0,
                 options: dict[str, Any] | None = None, game: str | None = None,
                 meta: dict[str, Any] | None = None, at: str | None = None) -> str:
        """Start a game (its ``game_started`` event) and return its id (generated if None:
        the date and 6 random hex digits)."""
        gid = game or f"{datetime.now(UTC):%Y%m%d}-{secrets.token_hex(3)}"
        ev: dict[str, Any] = {"game": gid, "seq": 0, "type": "game_started",
                              "at": at or now_rfc3339(), "ruleset": ruleset, "seats": seats,
                              "dealer": dealer}
        if options:
            ev["options"] = options
        if meta:
            ev["meta"] = meta
        self.append(gid, [ev], expected_seq=0)
        return gid

    # ------------------------------------------------------------------ importing

    def import_lines(self, lines: Iterable[Line | bytes | str], *, source: str = "<lines>",
                     batch_games: int = 500, progress: Callable[[int], None] | None = None,
                     workers: int = 0) -> ImportSummary:
        """Import ``jaslog/1`` lines (games may interleave), streaming.

        Each game is folded; finished games are written in batches of ``batch_games`` per
        transaction with bulk inserts. A game already stored with identical events is
        skipped (``already_present``), one stored with other events is rejected, one
        stored in part is extended. A game with a bad line or an integrity error is
        rejected whole. ``progress`` is called with the number of lines read so far.
        ``workers`` > 0 validates in that many processes (lines must be bytes or str).
        """
        if workers > 0 and self.workers_ok():
            from jaslog.store.parallel import ParallelImporter

            par = ParallelImporter(self, workers, batch_games=batch_games)
            try:
                par.feed(lines, source)  # type: ignore[arg-type]
            except BaseException:
                par.abort()
                raise
            return par.finish()
        from jaslog.store.importer import Importer

        imp = Importer(self, batch_games=batch_games)
        imp.feed(lines, progress, source)
        return imp.finish()

    def import_files(self, paths: Iterable[str | Path], *, batch_games: int = 500,
                     progress: Callable[[int], None] | None = None,
                     workers: int | None = None) -> ImportSummary:
        """:meth:`import_lines` over files (``-`` is stdin); ``progress`` gets bytes read so far
        (over all files). ``workers``: validating processes (None: several for inputs over
        16 MB on a machine with 2 or more CPUs, else 0: all in this process). Raises
        :class:`StoreError` for a file that cannot be read."""
        from jaslog.store.importer import Importer
        from jaslog.store.parallel import ParallelImporter, auto_workers

        paths = list(paths)
        if workers is None:
            size = None if any(str(p) == "-" for p in paths) else \
                sum(Path(p).stat().st_size for p in paths if Path(p).is_file())
            workers = auto_workers(size)
        imp: Importer | ParallelImporter
        if workers > 0 and self.workers_ok():
            imp = ParallelImporter(self, workers, batch_games=batch_games)
        else:
            imp = Importer(self, batch_games=batch_games)
        done = 0
        try:
            for p in paths:
                done = imp.feed_file(p, progress, done)
        except BaseException:
            if isinstance(imp, ParallelImporter):
                imp.abort()
            raise
        return imp.finish()

    def workers_ok(self) -> bool:
        """Whether worker processes can share this store's work (import, export): they need
        a database they can open by URL (not in-memory SQLite)."""
        return not (self.dialect == "sqlite" and (self.url in ("sqlite://", "sqlite:///:memory:")))

    # ------------------------------------------------------------------ verifying

    def verify(self, game: str | None = None, *, certificate: str | None = None,
               progress: Callable[[int], None] | None = None) -> VerifyReport:
        """Recheck the hash chains (of one game, or all) and the headers; ``certificate``
        is a head hash (or its short form) that the game's head must match. ``progress``
        is called with the number of events checked so far."""
        from jaslog.store.verify import verify

        with eng.read_tx(self.engine) as conn:
            return verify(conn, game, certificate, progress)

    # ------------------------------------------------------------------ players

    def players(self) -> dict[str, str]:
        """Display names by player id."""
        with eng.read_tx(self.engine) as conn:
            return {r.id: r.name for r in conn.execute(select(PLAYERS).order_by(PLAYERS.c.id))}

    def set_player(self, player: str, name: str) -> None:
        """Set a player's display name (outside the hash chains)."""
        import re

        from jaslog.events import PLAYER_ID_PATTERN, id_problem

        if not re.fullmatch(PLAYER_ID_PATTERN, player):
            raise StoreError(id_problem(player, game=False))
        if not name.strip():
            raise StoreError("a display name cannot be empty (use erase to remove it)")
        if len(name) > MAX_NAME or not name.isprintable():
            raise StoreError(f"a display name is at most {MAX_NAME} printable characters, on "
                             f"one line ({len(name)} given)" if len(name) > MAX_NAME else
                             "a display name is printable text on one line (no tabs, line "
                             "breaks or control characters)")
        with eng.write_tx(self.engine) as conn:
            done = conn.execute(PLAYERS.update().where(PLAYERS.c.id == player)
                                .values(name=name, updated_at=now_text())).rowcount
            if not done:
                conn.execute(PLAYERS.insert().values(id=player, name=name, updated_at=now_text()))

    def erase_player(self, player: str) -> bool:
        """Erase a player's display name; True if there was one."""
        with eng.write_tx(self.engine) as conn:
            return bool(conn.execute(PLAYERS.delete().where(PLAYERS.c.id == player)).rowcount)

    def close(self) -> None:
        """Release the database connections."""
        self._folds.clear()
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({eng.describe(self.url)!r})"


def insert_games(conn: Connection, started: list[GameStarted]) -> None:
    """The header rows of new games (in the caller's write transaction)."""
    if not started:
        return
    pos = int(conn.execute(select(func.coalesce(func.max(GAMES.c.pos), 0))).scalar_one())
    stamp = now_text()
    rows: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    for i, s in enumerate(started, 1):
        rows.append({"id": s.game, "pos": pos + i, "ruleset": s.ruleset, "dealer": s.dealer,
                     "seats": list(s.seats), "created_at": created_at(s), "stored_at": stamp})
        seats.extend({"game": s.game, "seat": n, "player": p} for n, p in enumerate(s.seats))
    conn.execute(GAMES.insert(), rows)
    conn.execute(GAME_PLAYERS.insert(), seats)


def _db_message(e: SQLAlchemyError) -> str:
    orig = getattr(e, "orig", None)
    text = str(orig) if orig is not None else str(e)
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__


#: The longest display name a player may be given (a name, not a biography).
MAX_NAME = 100


def _must_be_a_store(path: Path) -> None:
    """Refuse an SQLite file without jaslog's tables, looking at it read-only (opening it as a
    store would turn on WAL mode: a write)."""
    import sqlite3

    try:
        conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                                 "AND name = 'jaslog_meta'").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        raise StoreError(f"cannot open the store at {path}: {e}") from None
    if found is None:
        raise StoreError(f"no jaslog store at {path} (the database has no jaslog tables): "
                         "import games first (`jaslog import FILE`)")


def open_store(url: str | None = None, create: bool = True) -> Store:
    """Open the store at ``url``: a path, ``sqlite:///path``, ``postgresql://...``; None means
    ``$JASLOG_DB`` or the platform's user data folder. A missing store is created, unless
    ``create`` is false (commands that only read): then it is a :class:`StoreError`."""
    return Store(url, create)


__all__ = ["EVENT_COLUMNS", "Store", "created_at", "insert_games", "open_store", "utc_text"]
