"""The :class:`Store`: one contract over SQLite and PostgreSQL.

Its reading is :mod:`jaslog.store.queries`, its appending :mod:`jaslog.store.appending` (the
mixins it is made of); here: opening and creating a store, importing, verifying, players.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from jaslog.errors import JaslogError
from jaslog.logs import Line
from jaslog.store import engine as eng
from jaslog.store.appending import Appending, EventLike
from jaslog.store.clock import Clock, system_clock
from jaslog.store.codec import now_text, utc_text
from jaslog.store.collector import collector_paused
from jaslog.store.foldcache import FoldCache
from jaslog.store.game_rows import created_at, insert_games
from jaslog.store.migrate import needs_events
from jaslog.store.projection import (
    BUILT,
    StoredRound,
    build_state,
    facts_detailed,
    note_pars,
    read_round_facts,
    rebuild,
    start_build,
    stored_pars,
)
from jaslog.store.queries import EVENT_COLUMNS
from jaslog.store.rows import INSERT_COLUMNS, event_select, events_of
from jaslog.store.schema import (
    COMPACT_SINCE,
    EVENTS,
    FACTS_SINCE,
    GAME_PLACES,
    GAME_RESULTS,
    GAMES,
    PLACES_SINCE,
    PLAYERS,
    RESULTS_SINCE,
    SCHEMA_VERSION,
    UnreadableSchemaVersion,
    create,
    schema_version,
    upgrade,
)
from jaslog.store.signing import PublicKey
from jaslog.store.types import (
    ImportSummary,
    StoreError,
    VerifyReport,
)

if TYPE_CHECKING:
    from jaslog.analysis.rounds import Solved


class Store(Appending):
    """A jaslog event store on one database (``sqlite:///...`` or ``postgresql+psycopg://...``).

    Open it with :func:`open_store`. A Store is for one thread; open one per process (the
    database serializes writers: SQLite by ``BEGIN IMMEDIATE``, PostgreSQL by an advisory
    lock, which also keeps event positions in commit order for incremental readers).

    ``clock`` is the store's own clock (:mod:`jaslog.store.clock`): every event appended
    live is stored with its ``recorded_at`` (rule book 9.1, decision 14).
    """

    def __init__(self, url: str | None = None, create: bool = True,
                 clock: Clock = system_clock, *, upgrade: bool = True) -> None:
        self.url = eng.resolve_url(url)
        self.clock = clock
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
        self._folds = FoldCache(lambda kept: int(kept[0]))  # (next_seq, hash, fold, marks)
        ph = eng.param_mark(self.dialect)
        self._insert_events_sql = (f"INSERT INTO events ({', '.join(INSERT_COLUMNS)}) "
                                   f"VALUES ({', '.join([ph] * len(INSERT_COLUMNS))})")
        self._head_sql = ("SELECT e.seq, e.hash FROM events e JOIN games g ON g.pos = e.game "
                          f"WHERE g.id = {ph} ORDER BY e.seq DESC LIMIT 1")
        try:
            self._ensure_schema(may_create=create, may_upgrade=upgrade)
        except SQLAlchemyError as e:
            self.engine.dispose()
            raise StoreError(f"cannot open the store at {eng.describe(self.url)}: "
                             f"{eng.db_message(e)}") from None

    def _ensure_schema(self, may_create: bool, may_upgrade: bool = True) -> None:
        with self.engine.connect() as conn:
            try:
                v = schema_version(conn)
            except UnreadableSchemaVersion as e:
                if may_create:
                    raise
                v = e.tables  # opened to read: verify reports it
            old_events = v is not None and v < COMPACT_SINCE and needs_events(conn)
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
        if v < SCHEMA_VERSION and may_create:  # opened to write: add what is new
            if may_upgrade:
                self.upgrade()
        elif v == SCHEMA_VERSION and may_create and may_upgrade:
            self._finish_facts()
        elif v < COMPACT_SINCE and old_events and may_upgrade:
            self.engine.dispose()
            raise StoreError(f"the store at {eng.describe(self.url)} has schema version {v}, "
                             f"whose events this jaslog reads only once they are upgraded to "
                             f"version {SCHEMA_VERSION}: run `jaslog upgrade` (in place, nothing "
                             "lost; or open the store to write)")

    def schema_version(self) -> int | None:
        """The schema version the store records."""
        with eng.read_tx(self.engine) as conn:
            return schema_version(conn)

    def upgrade(self, *, games: int | None = None,
                progress: Callable[[int], None] | None = None) -> bool:
        """Bring a store of an older schema version to this jaslog's: its events to schema 6's
        layout, in place, a transaction per step and per batch of games
        (:mod:`jaslog.store.migrate`; ``games``: that many games' events at most, then
        False, the next call goes on; ``progress`` is told the games of each batch); then
        the tables it lacks (:func:`jaslog.store.schema.upgrade`) and, for a store that kept
        no games' results (before version 3), where each of its games stands, from its fold
        (:mod:`jaslog.store.results`). Opening a store to write does it; a store opened to
        read is upgraded when a listing filters by status or winner."""
        from jaslog.store.migrate import migrate_events
        from jaslog.store.results import note_every_result

        with eng.read_tx(self.engine) as conn:
            before = schema_version(conn)
        if before is None or before >= SCHEMA_VERSION:
            return True
        if not migrate_events(self, games, progress):
            return False
        with eng.write_tx(self.engine) as conn:
            before = schema_version(conn)
            if before is None or before >= SCHEMA_VERSION:
                return True
            upgrade(conn)
            if before < RESULTS_SINCE:  # each game without a result yet
                ids = [r.id for r in conn.execute(select(GAMES.c.id).where(
                    GAMES.c.id.not_in(select(GAME_RESULTS.c.game))).order_by(GAMES.c.pos))]
                note_every_result(conn, self._readable_games(conn, ids))
            if before < PLACES_SINCE:  # where each game is played, from its game_started
                self._note_places(conn)
            if before < FACTS_SINCE:  # the round facts: built below, resumably
                start_build(conn)
        self._finish_facts()
        return True

    def _finish_facts(self) -> None:
        """Go on with a build of the round facts an upgrade or a ``reindex`` left unfinished
        (:func:`jaslog.store.projection.rebuild`), or build them again when they were
        written before they kept each round's ``detail``."""
        with eng.read_tx(self.engine) as conn:
            state = build_state(conn)
            stale = state is not None and not facts_detailed(conn)
        if stale:  # written before the facts kept each round's detail: built again
            with eng.write_tx(self.engine) as conn:
                if not facts_detailed(conn):
                    start_build(conn)
            state = "building:-1"
        if state is not None and state != BUILT:
            rebuild(self)

    def reindex(self, *, resume: bool = False, games: int | None = None,
                progress: Callable[[int], None] | None = None,
                on_total: Callable[[int], None] | None = None) -> bool:
        """Build the round facts again from the events (``jaslog reindex``;
        :func:`jaslog.store.projection.rebuild`): True when done, False when ``games`` games
        were built and more are left (``resume``: go on from where the last build stopped)."""
        return rebuild(self, resume=resume, games=games, progress=progress, on_total=on_total)

    def round_facts(self, games: list[str] | None = None) -> Iterator[StoredRound]:
        """Every closed round's stored facts (of ``games`` only, when given), in the store's
        order, with its par once an export solved it (:mod:`jaslog.store.projection`)."""
        with eng.read_tx(self.engine) as conn:
            yield from read_round_facts(conn, games)

    def stored_pars(self, games: list[str]) -> dict[str, dict[tuple[int, bytes], Any]]:
        """The solved rounds of ``games`` (:func:`jaslog.store.projection.stored_pars`)."""
        with eng.read_tx(self.engine) as conn:
            return stored_pars(conn, games)

    def note_pars(self, solved: list[tuple[str, int, Solved]]) -> int:
        """Store solved rounds (:func:`jaslog.store.projection.note_pars`), one transaction."""
        if not solved:
            return 0
        with eng.write_tx(self.engine) as conn:
            return note_pars(conn, solved)

    @staticmethod
    def _note_places(conn: Connection) -> None:
        """The ``game_places`` row of each game without one, from its ``game_started``
        (a game whose first event cannot be read gets none: no place filter finds it)."""
        from jaslog.events import GameStarted
        from jaslog.store.game_rows import place_of
        q = (event_select(EVENTS.c.seq == 0, GAMES.c.id.not_in(select(GAME_PLACES.c.game)))
             .order_by(GAMES.c.id))
        rows: list[dict[str, Any]] = []
        for r in conn.execute(q):
            try:
                started = events_of(conn, [r])[0]
            except JaslogError:
                continue
            if isinstance(started, GameStarted):
                rows.append(place_of(started))
            if len(rows) >= 1000:
                conn.execute(GAME_PLACES.insert(), rows)
                rows = []
        if rows:
            conn.execute(GAME_PLACES.insert(), rows)

    def _readable_games(self, conn: Connection, ids: list[str]) -> Iterator[tuple[str, list[Any]]]:
        """``(id, events)`` of each game of ``ids`` whose events this jaslog can read."""
        for gid in ids:
            try:
                events = self._read_events(conn, gid)
            except (JaslogError, ValueError):  # an event no reader can read: not counted
                continue
            if events:
                yield gid, events

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
            except BaseException:  # whatever stopped it, Ctrl-C too: no worker outlives it
                par.abort()
                raise
            return par.finish()
        from jaslog.store.importer import Importer

        imp = Importer(self, batch_games=batch_games)
        # paused from the first line to the last write (see collector_paused): let run between
        # the reading and the last batch's write, the collector would walk every row and
        # fold still held for that batch
        with collector_paused():
            imp.feed(lines, progress, source)
            return imp.finish()

    def import_files(self, paths: Iterable[str | Path], *, batch_games: int = 500,
                     progress: Callable[[int], None] | None = None,
                     workers: int | None = None) -> ImportSummary:
        """:meth:`import_lines` over files (``-`` is stdin); ``progress`` gets bytes read so far
        (over all files). ``workers``: validating processes (None: several for inputs over
        16 MB on a machine with 2 or more CPUs, else 0: all in this process). Raises
        :class:`StoreError` for a file that cannot be read."""
        from contextlib import ExitStack

        from jaslog.store.import_input import game_ends, readable_inputs
        from jaslog.store.importer import Importer
        from jaslog.store.parallel import ParallelImporter, auto_workers

        paths = list(paths)
        if workers is None:
            size = None if any(str(p) == "-" for p in paths) else \
                sum(Path(p).stat().st_size for p in paths if Path(p).is_file())
            workers = auto_workers(size)
        with ExitStack() as stack:
            # read twice, as check does: first where each game has its last line, so that a
            # game is written and forgotten there, finished or not (memory holds the games
            # under way at a point of the files, not every unfinished game of them)
            inputs = readable_inputs(paths, stack)
            ends = game_ends([path for _, path in inputs])
            imp: Importer | ParallelImporter
            if workers > 0 and self.workers_ok():
                imp = ParallelImporter(self, workers, batch_games=batch_games)
            else:
                imp = Importer(self, batch_games=batch_games)
                stack.enter_context(collector_paused())  # (as in import_lines)
            done = 0
            try:
                for (source, path), last in zip(inputs, ends, strict=True):
                    done = imp.feed_file(path, progress, done, source=source, ends=last)
            except BaseException:  # whatever stopped it, Ctrl-C too: no worker outlives it
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
               progress: Callable[[int], None] | None = None,
               keys: list[PublicKey] | None = None) -> VerifyReport:
        """Recheck the hash chains (of one game, or all), the headers and the signatures;
        ``certificate`` is a head hash (or its short form) that the game's head must match.
        ``progress`` is called with the number of events checked so far.

        The signatures must be made by ``keys`` (a club's published keys) when given, else by
        a key of the store's key directory (:mod:`jaslog.store.signing`), else, when that
        directory holds none (a copy of the store elsewhere), by a key the store records."""
        from jaslog.store.verify import verify
        from jaslog.store.verify_chain import Trust

        trust = Trust.given(keys) if keys is not None else Trust.of_directory(self.keys)
        with eng.read_tx(self.engine) as conn:
            return verify(conn, game, certificate, progress, trust)

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
        kept = self.__dict__.pop("_kept_writer", None)
        if kept is not None:  # (the groups' connection: :meth:`Appending.group`)
            kept.close()
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({eng.describe(self.url)!r})"


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


def open_store(url: str | None = None, create: bool = True,
               clock: Clock = system_clock, *, upgrade: bool = True) -> Store:
    """Open the store at ``url``: a path, ``sqlite:///path``, ``postgresql://...``; None means
    ``$JASLOG_DB`` or the platform's user data folder. A missing store is created, unless
    ``create`` is false (commands that only read): then it is a :class:`StoreError`.
    ``clock``: the store's own clock, for the ``recorded_at`` of live appends. A store of an
    older schema opened to write is upgraded (:meth:`Store.upgrade`), unless ``upgrade`` is
    false: then only its ``upgrade`` may be called (``jaslog upgrade`` does, in parts)."""
    return Store(url, create, clock, upgrade=upgrade)


__all__ = ["EVENT_COLUMNS", "EventLike", "Store", "created_at", "insert_games", "open_store",
           "utc_text"]
