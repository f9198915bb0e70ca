"""Appending to a store: one batch of events checked, folded and written in one transaction.

A mixin of :class:`jaslog.store.Store` (which provides the engine, the dialect, the clock
and the insert statement): new games and their header rows, retries recognised by event id,
conflicts between writers, the fold of the stored game kept between appends.

Every event appended here is appended live: it is stored with ``recorded_at`` from the
store's clock (rule book 9.1, decision 14), which is part of its canonical bytes and so of
its hash chain. A client may not send ``recorded_at`` (``recorded_at_given``), nor an ``at``
more than :data:`jaslog.store.clock.AT_TOLERANCE` ahead of the store's clock
(``at_in_future``). A retry (the same event ``id`` sent again) is recognised whatever its
stamp says. Imports (:mod:`jaslog.store.importer`) keep the ``recorded_at`` a file carries.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import VERSION, Event, EventError, event_from_dict
from jaslog.events.limits import MAX_LINE, event_problem, too_long
from jaslog.play.fold import start_fold
from jaslog.store import engine as eng
from jaslog.store.append_group import AppendGroup
from jaslog.store.clock import Clock, stamp
from jaslog.store.codec import (
    UnreadableEvent,
    canonical,
    event_dict,
    link,
    norm_id,
    utc_text,
)
from jaslog.store.compact import id_text, index_id
from jaslog.store.foldcache import FoldCache, cache_events
from jaslog.store.game_rows import insert_games
from jaslog.store.projection import facts_of, note_facts
from jaslog.store.results import PLAYING, note_results, standing
from jaslog.store.rows import (
    ENCODED_COLUMNS,
    INSERT_COLUMNS,
    encode_rows,
    key_of,
    read_rows,
)
from jaslog.store.schema import EVENTS, GAMES
from jaslog.store.signing import Marks, Signing, due, marks
from jaslog.store.stamps import refuse_future_at, refuse_recorded_at, stamped
from jaslog.store.types import (
    GENESIS,
    AppendResult,
    ConflictError,
    Head,
    NoSuchGame,
    RejectedError,
    StoreError,
)

EventLike = Event | dict[str, Any] | bytes | str
#: The fewest rows PostgreSQL takes by ``COPY`` (fewer, an append's few: one
#: ``executemany``, which psycopg pipelines; a ``COPY`` costs several exchanges to set up).
COPY_FROM_ROWS = 32
#: The rows of one ``INSERT`` statement of an import's batch on SQLite: SQLite and its driver
#: insert a row of a statement of many rows for about a third less CPU than a statement a
#: row (its reset, its step, the driver's loop); 80 rows of 12 values stay under the 999
#: parameters a statement that older SQLite builds allow.
INSERT_ROWS = 80
#: How many games' keys (``games.pos``) a store keeps between appends (the oldest go first).
KEPT_KEYS = 100_000
#: The store's last event position.
LAST_POS_SQL = "SELECT coalesce(max(pos), 0) FROM events"
class Appending(Signing):
    """What a store does to append events (and, when a round or the game ends, to sign the
    new head: :mod:`jaslog.store.signing`)."""

    engine: Engine
    dialect: str
    clock: Clock
    _folds: FoldCache
    _insert_events_sql: str
    _head_sql: str

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
        hit = read_rows(conn, GAMES.c.id == head.game, EVENTS.c.event_id == index_id(eid))
        if not hit:
            return head.next_seq
        row = hit[0]
        try:
            sent = event_from_dict({**first, "game": first.get("game", head.game), "seq": row.seq})
        except EventError:
            return head.next_seq
        if row.version == VERSION and not same_event(bytes(row.payload), sent):
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
                    problem = event_problem(e)  # a model made in Python: not read by a parser
                    if problem is not None:
                        raise EventError(problem)
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

    def _stored_fold(self, conn: Connection, head: Head) -> tuple[GameFold, Marks | None]:
        """The fold of a stored game at ``head`` (cached between appends of this Store), and
        its :func:`marks` when they were kept with it (None: not known)."""
        hit = self._folds.pop(head.game, None)
        if hit is not None and hit[0] == head.next_seq and hit[1] == head.hash:
            return hit[2], hit[3]
        events = self._read_events(conn, head.game)
        if not events:
            raise NoSuchGame(head.game)
        try:
            f = start_fold(events[0])
            for e in events[1:]:
                f.apply(e)
        except FoldError as err:
            raise StoreError(f"game {head.game}: the stored log no longer folds: {err}") from None
        return f, None

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

        The new events are stored with ``recorded_at``: the store's clock, read once for the
        batch, in the write transaction. An event that carries ``recorded_at`` is refused
        (``recorded_at_given``), and so is an ``at`` more than 5 minutes ahead of the clock
        (``at_in_future``).
        """
        prep = self._prepared(game, events, expected_seq, at_end)
        f: GameFold | None = None
        after: Marks | None = None
        try:
            with eng.write_tx(self.engine) as conn:
                res, plan = self._check(conn, game, prep)
                if plan is not None:
                    res = self._store(conn, plan, self._last_pos(conn))
                    f, after = plan.fold, plan.after
        except IntegrityError as e:
            self._forget(game)
            actual = self._head_quiet(game)
            raise ConflictError(game, prep.first_seq, actual,
                                f"the database refused the rows: {eng.db_message(e)}") from None
        except BaseException:  # whatever stopped it, Ctrl-C too: the cached fold may be ahead
            self._forget(game)
            raise
        if f is not None:
            self._remember(game, res.head, f, after)
        return res

    @contextmanager
    def group(self) -> Iterator[AppendGroup]:
        """One write transaction that several appends share (group commit): one ``BEGIN``
        and one ``COMMIT`` (one sync to disk) for all of them, each append checked against
        the game as the appends before it in the group left it. The store's clock is read
        once for the group, at its first append: every event it stores has that
        ``recorded_at`` (they are committed together).

        Each :meth:`AppendGroup.append` answers, or refuses, exactly as :meth:`append` would
        have at that point. Every refusal (a conflict, a rule, a bad event, a duplicate id)
        is found before the append writes anything, so a refused append leaves nothing of
        itself and the others go on. Should writing an append's rows fail (the database
        refuses them, which the writers' lock leaves to a damaged store), the group is
        :attr:`AppendGroup.broken`: it must not be committed (leave the ``with`` by the
        error) and its appends be written again one group each. A failure of the database
        itself (:class:`jaslog.store.engine.DatabaseError`) ends the group: nothing of it is
        written.

        >>> from jaslog.play.sim import simulate_game
        >>> from jaslog.store import open_store
        >>> s = open_store("sqlite://")
        >>> evs = simulate_game("g", "amsterdam", seed=1)
        >>> with s.group() as g:
        ...     first = g.append("g", evs[:2])
        ...     second = g.append("g", evs[2:3], expected_seq=2)
        >>> first.appended, second.appended, s.head("g").next_seq
        (2, 1, 3)
        """
        games: set[str] = set()
        try:
            with self._group_tx() as (conn, pos):
                g = AppendGroup(self, conn, None if pos is None else int(pos))
                games = g.games
                yield g
                g.finish()
        except BaseException:  # the commit's failure too: the folds kept may be ahead
            for game in games:
                self._forget(game)
            raise
        # committed: the folds the group left in the cache are the stored games' folds

    @contextmanager
    def _group_tx(self) -> Iterator[tuple[Connection, Any]]:
        """A group's write transaction, on the connection the store keeps for its groups
        (:class:`jaslog.store.engine.KeptWriter`), and (PostgreSQL) the last event position
        read with its lock."""
        kept: eng.KeptWriter | None = self.__dict__.get("_kept_writer")
        if kept is None:
            kept = self.__dict__["_kept_writer"] = eng.KeptWriter(self.engine)
        with kept.write_tx_reading(LAST_POS_SQL if self.dialect == "postgresql" else None
                                   ) as (conn, pos):
            yield conn, pos

    def _prepared(self, game: str, events: Iterable[EventLike], expected_seq: int | None,
                  at_end: bool) -> _Prepared:
        """What can be checked of a batch before the write transaction (nothing read)."""
        if at_end and expected_seq is not None:
            raise ValueError("append: at_end and expected_seq exclude each other")
        items: list[Any] = []
        evs: list[Event] = []
        if at_end:
            items = self._parsed(game, events)
            refuse_recorded_at(game, items)
        else:
            evs = self._coerce(game, events, expected_seq)
            refuse_recorded_at(game, evs)
        if expected_seq is not None and evs and evs[0].seq != expected_seq:
            raise RejectedError(f"game {game}: the batch starts at seq {evs[0].seq} but seq "
                                f"{expected_seq} was expected; nothing was written",
                                game=game, seq=evs[0].seq, code="seq_mismatch")
        return _Prepared(at_end, items, evs)

    def _check(self, conn: Connection, game: str, prep: _Prepared,
               kept: Head | None = None, now: datetime | None = None
               ) -> tuple[AppendResult, _Plan | None]:
        """Check a prepared batch in the write transaction ``conn`` (reading only): what to
        write (None when nothing: the result says why), or the refusal raised. The cached
        fold of the game is moved on over the new events (dropped on a refusal).

        ``kept``: the game's head as this store last wrote it (:meth:`_kept_head`), taken
        for the stored one without reading it. Should another writer have moved the game
        since, the batch's rows collide with its rows (a game's seqs are unique) and are
        refused when written; a refusal found here is checked against the stored head, and
        the batch checked again against it when the two differ: every answer is the one the
        stored head gives.

        ``now``: the store's clock as read once the writers' lock was held (a group reads it
        once for all its appends: :meth:`AppendGroup.append`); else it is read here."""
        if kept is not None:
            try:
                return self._check_at(conn, game, prep, kept, now)
            except (ConflictError, RejectedError):
                if self._write_head(conn, game) == kept:
                    raise
                self._forget(game)  # another writer moved the game: check it as stored
        return self._check_at(conn, game, prep, self._write_head(conn, game), now)

    def _kept_head(self, game: str, prep: _Prepared) -> Head | None:
        """The game's head as this store last wrote it, when its fold is kept and the batch
        goes on from it (its first seq the head's next), else None (read the stored one)."""
        hit = self._folds.get(game)
        if hit is None or prep.at_end or not prep.evs or prep.evs[0].seq != hit[0]:
            return None
        return Head(game, hit[0], hit[1])

    def _check_at(self, conn: Connection, game: str, prep: _Prepared,
                  head: Head, now: datetime | None = None) -> tuple[AppendResult, _Plan | None]:
        """:meth:`_check` against ``head``."""
        evs = prep.evs
        if prep.at_end:
            evs = prep.evs = self._coerce(game, prep.items,
                                          self._retry_base(conn, head, prep.items))
        if not evs:
            return AppendResult(game, 0, 0, head), None
        skip = self._already_stored(conn, head, evs)
        rest = evs[skip:]
        if not rest:
            return AppendResult(game, 0, skip, head), None
        if rest[0].seq != head.next_seq:
            detail = "another writer got there first" if rest[0].seq < head.next_seq \
                else "that would leave a gap"
            raise ConflictError(game, rest[0].seq, head.next_seq, detail)
        # read once the writers' lock is held: stamps follow the order of commits
        if now is None:
            now = self.clock()
        refuse_future_at(game, rest, now)
        rest = stamped(rest, now)
        self._check_ids(conn, game, rest)
        f, before, held = self._validate(conn, head, rest)
        payloads = _payloads(rest)
        return AppendResult(game, len(rest), skip, head), _Plan(head, skip, rest, payloads,
                                                                now, f, before, held)

    def _write_head(self, conn: Connection, game: str) -> Head:
        """:meth:`_head` through the driver's own cursor (the statement built once as text):
        the append's first read, at a tenth of its cost through SQLAlchemy's execution."""
        with eng.raw_cursor(conn) as cur:
            cur.execute(self._head_sql, (game,))
            row = cur.fetchone()
        if row is None:
            return Head(game, 0, GENESIS)
        return Head(game, row[0] + 1, bytes(row[1]).hex())

    def _store(self, conn: Connection, plan: _Plan, pos: int,
               pending: list[tuple[Any, ...]] | None = None) -> AppendResult:
        """Write a checked batch (:meth:`_check`) after event position ``pos``: its rows, a
        new game's header rows, the head's signature when due, where the game stands.
        ``pending``: the event rows go there, encoded, for the caller to write (a group's
        rows in one statement: :meth:`AppendGroup.flush`)."""
        head, rest, f, before, now = plan.head, plan.events, plan.fold, plan.before, plan.now
        game = head.game
        rows, new_head = _rows(head, rest, plan.payloads, pos)
        if head.next_seq == 0:
            insert_games(conn, [rest[0]], stored_at=utc_text(now))  # type: ignore[list-item]
        keys = {game: self._game_key(conn, game)}
        if pending is None:
            self.insert_rows(conn, rows, rest, keys)
        else:
            pending.extend(encode_rows(conn, rows, rest, keys))
        now_marks = plan.after = marks(f)  # (kept with the fold: the next append's before)
        if due(before, now_marks):  # a round or the game ended, or a ruling: sign
            self._sign_heads(conn, [(game, new_head.seq, new_head.hash, rows[-1][2])],
                             utc_text(now))
        if now_marks[0] > before[0] or now_marks[2] > before[2] \
                or any(e.type == "correction" for e in rest):
            # a round ended, a ruling or a correction: the facts of the rounds that changed
            note_facts(conn, [(game, new_head.seq, facts_of(f), head.next_seq == 0)], keys)
        stands = standing(f)
        if stands != PLAYING or before[1]:  # it ended, or it had: where it stands now
            note_results(conn, [(game, new_head.seq, stands, head.next_seq == 0)])
        return AppendResult(game, len(rest), plan.skip, new_head,
                            tuple(f.state.violations[plan.violations_before:]))

    def _game_key(self, conn: Connection, game: str) -> int:
        """The game's ``games.pos`` (its events' key), read once through the driver's cursor
        and kept: a game's header row never changes. Dropped with the game's cached fold
        when a write fails (:meth:`_forget`): a new game's row may not have been committed."""
        keys: dict[str, int] = self.__dict__.setdefault("_game_keys", {})
        key = keys.get(game)
        if key is None:
            with eng.raw_cursor(conn) as cur:
                cur.execute(f"SELECT pos FROM games WHERE id = {eng.param_mark(self.dialect)}",
                            (game,))
                row = cur.fetchone()
            if row is None:
                raise UnreadableEvent("the game has no header row (game_started) to key its "
                                      "events by", game, 0)
            key = keys[game] = int(row[0])
            if len(keys) > KEPT_KEYS:
                keys.pop(next(iter(keys)))
        return key

    def _forget(self, game: str) -> None:
        """Drop what is kept of ``game`` between appends (its fold, its key): a write of it
        failed, or its transaction was not committed."""
        self._folds.pop(game, None)
        self.__dict__.get("_game_keys", {}).pop(game, None)

    def _last_pos(self, conn: Connection) -> int:
        """The store's last event position, through the driver's cursor (once a write
        transaction)."""
        with eng.raw_cursor(conn) as cur:
            cur.execute(LAST_POS_SQL)
            row = cur.fetchone()
            return int(row[0]) if row is not None else 0

    def insert_rows(self, conn: Connection, rows: Sequence[Sequence[Any]],
                    events: Sequence[Any] | None = None,
                    keys: dict[str, int] | None = None) -> None:
        """Bulk-insert event rows (in :data:`EVENT_COLUMNS` order; ``events``: the events
        they are of, when at hand) in the caller's transaction, in parts
        (:func:`jaslog.store.rows.encode_rows`): ``COPY`` on PostgreSQL (past
        :data:`COPY_FROM_ROWS` rows), else one ``executemany``. Never row by row."""
        if not rows:
            return
        rows = encode_rows(conn, rows, events, keys)
        if self.dialect == "postgresql" and len(rows) > COPY_FROM_ROWS:
            with eng.raw_cursor(conn) as cur, \
                    cur.copy(f"COPY events ({', '.join(INSERT_COLUMNS)}) FROM STDIN") as cp:
                for row in rows:
                    cp.write_row(row)
            return
        # the driver's own executemany, in the caller's transaction (SQLAlchemy would check
        # and convert every row first)
        with eng.raw_cursor(conn) as cur:
            cur.executemany(self._insert_events_sql, rows)

    def insert_encoded(self, conn: Connection, values: list[Any]) -> None:
        """Bulk-insert rows already encoded (the import's:
        :class:`jaslog.store.import_writer.Writer`), given flat: each row's
        :data:`~jaslog.store.rows.ENCODED_COLUMNS` after the one before's, in the caller's
        transaction. On SQLite :data:`INSERT_ROWS` rows a statement (the driver's own
        ``executemany`` of one statement of many rows, then one of a row for the rest); on
        PostgreSQL ``COPY`` (past :data:`COPY_FROM_ROWS` rows), else ``executemany``."""
        if not values:
            return
        width = len(ENCODED_COLUMNS)
        cols = ", ".join(ENCODED_COLUMNS)
        ph = eng.param_mark(self.dialect)
        one = f"({', '.join([ph] * width)})"
        with eng.raw_cursor(conn) as cur:
            if self.dialect == "postgresql":
                rows = [values[i:i + width] for i in range(0, len(values), width)]
                if len(rows) > COPY_FROM_ROWS:
                    with cur.copy(f"COPY events ({cols}) FROM STDIN") as cp:
                        for row in rows:
                            cp.write_row(row)
                else:
                    cur.executemany(f"INSERT INTO events ({cols}) VALUES {one}", rows)
                return
            step = INSERT_ROWS * width
            whole = len(values) - len(values) % step
            if whole:
                cur.executemany(f"INSERT INTO events ({cols}) VALUES "
                                f"{', '.join([one] * INSERT_ROWS)}",
                                [values[i:i + step] for i in range(0, whole, step)])
            if whole < len(values):
                cur.executemany(f"INSERT INTO events ({cols}) VALUES {one}",
                                [values[i:i + width] for i in range(whole, len(values), width)])

    def _head_quiet(self, game: str) -> int:
        try:
            with eng.read_tx(self.engine) as conn:
                return self._head(conn, game).next_seq
        except SQLAlchemyError:
            return -1

    def _remember(self, game: str, head: Head, f: GameFold, after: Marks | None) -> None:
        """Keep the game's fold (and its :func:`marks`, when known) for its next append; the
        least recently appended games' folds go when the folds hold more than
        :func:`cache_events` events (the last one stays)."""
        self._folds[game] = (head.next_seq, head.hash, f, after)
        self._folds.trim(cache_events())

    @staticmethod
    def _already_stored(conn: Connection, head: Head, evs: list[Event]) -> int:
        """How many leading events are retries: stored at their seq with the same id."""
        if evs[0].seq >= head.next_seq or evs[0].id is None:
            return 0
        top = min(evs[-1].seq, head.next_seq - 1)
        stored = {r.seq: r for r in read_rows(conn, GAMES.c.id == head.game,
                                              EVENTS.c.seq.between(evs[0].seq, top))}
        n = 0
        for e in evs:
            row = stored.get(e.seq)
            if row is None or e.id is None or row.event_id != norm_id(e.id):
                break
            if row.version == VERSION and not same_event(bytes(row.payload), e):
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
        found = conn.execute(select(EVENTS.c.seq, EVENTS.c.event_id).where(
            EVENTS.c.game == key_of(game),
            EVENTS.c.event_id.in_([index_id(i) for i in ids]))).first()
        hit = None if found is None else SimpleNamespace(seq=found.seq,
                                                         event_id=id_text(found.event_id))
        if hit is not None:
            raise RejectedError(f"game {game} seq {ids[hit.event_id]}: event id {hit.event_id} "
                                f"is already stored at seq {hit.seq}; an id names one event (a "
                                "retry sends the same events again): give a new event a new id; "
                                "nothing was written", game=game, seq=ids[hit.event_id],
                                code="duplicate_id")

    def _validate(self, conn: Connection, head: Head,
                  evs: list[Event]) -> tuple[GameFold, Marks, int]:
        """The fold of the game after ``evs``, where it stood before them (:func:`marks`) and
        how many violations it held before them."""
        try:
            known: Marks | None = None
            if head.next_seq == 0:
                f = start_fold(evs[0])
                todo = evs[1:]
            else:
                f, known = self._stored_fold(conn, head)
                todo = evs
            before = known if known is not None else marks(f)
            held = len(f.state.violations)
            for e in todo:
                f.apply(e)
        except FoldError as err:
            hint = ""
            if head.next_seq == 0 and err.code == "no_game_started":  # a mistyped id, mostly
                hint = (f"; there is no game {head.game!r} in the store (see `jaslog games`): "
                        "a new game begins with its game_started event")
            raise RejectedError(f"{err}{hint}; nothing was written", game=err.game, seq=err.seq,
                                code=err.code, fold_error=err) from None
        return f, before, held

    def new_game(self, ruleset: str, seats: list[str], *, dealer: int = 0,
                 options: dict[str, Any] | None = None, game: str | None = None,
                 meta: dict[str, Any] | None = None, at: str | None = None) -> str:
        """Start a game (its ``game_started`` event) and return its id (generated if None:
        the date and 6 random hex digits). ``at`` defaults to now by the store's clock."""
        now = self.clock()
        gid = game or f"{now:%Y%m%d}-{secrets.token_hex(3)}"
        ev: dict[str, Any] = {"game": gid, "seq": 0, "type": "game_started",
                              "at": at or stamp(now), "ruleset": ruleset, "seats": seats,
                              "dealer": dealer}
        if options:
            ev["options"] = options
        if meta:
            ev["meta"] = meta
        self.append(gid, [ev], expected_seq=0)
        return gid


def _payloads(evs: list[Event]) -> list[bytes]:
    """The canonical bytes of each event; one longer than a line may be is refused."""
    out = []
    for e in evs:
        payload = canonical(e)
        if len(payload) > MAX_LINE:
            raise RejectedError(f"game {e.game} seq {e.seq}: {too_long(len(payload))}; "
                                "nothing was written", game=e.game, seq=e.seq,
                                code="bad_event")
        out.append(payload)
    return out


def _rows(head: Head, evs: list[Event], payloads: list[bytes],
          pos: int) -> tuple[list[tuple[Any, ...]], Head]:
    """The event rows of ``evs`` after ``head`` (positions after ``pos``; their hashes raw,
    as the rows' encoder stores them: not written out in hex to be read back), and the new
    head."""
    prev = bytes.fromhex(head.hash)
    rows = []
    for e, payload in zip(evs, payloads, strict=True):
        h = link(prev, payload)
        pos += 1
        rows.append((e.game, e.seq, pos, e.type, VERSION, norm_id(e.id), e.at, payload,
                     prev, h))
        prev = h
    return rows, Head(head.game, evs[-1].seq + 1, prev.hex())


def same_event(payload: bytes, e: Event) -> bool:
    """Whether a stored payload (current format) is ``e`` as it was sent: byte for byte, the
    stored ``recorded_at`` aside when ``e`` has none (the store stamped it, the client's
    retry cannot know it).

    >>> from jaslog.events import parse_event
    >>> sent = parse_event(b'{"game":"g","seq":3,"type":"note","text":"tea"}')
    >>> same_event(b'{"game":"g","seq":3,"type":"note","recorded_at":"2026-12-01T20:00:00.000Z",'
    ...            b'"text":"tea"}', sent)
    True
    >>> same_event(b'{"game":"g","seq":3,"type":"note","text":"coffee"}', sent)
    False
    """
    if payload == canonical(e):
        return True
    if e.recorded_at is not None or b'"recorded_at"' not in payload:
        return False
    try:
        at = orjson.loads(payload).get("recorded_at")
    except orjson.JSONDecodeError:
        return False
    return isinstance(at, str) and payload == canonical(e.model_copy(update={"recorded_at": at}))


@dataclass
class _Prepared:
    """A batch as far as it is checked before the write transaction: the events (or, for
    an ``at_end`` batch, the items whose seq the store's head decides)."""

    at_end: bool
    items: list[Any]
    evs: list[Event]

    @property
    def first_seq(self) -> int:
        return self.evs[0].seq if self.evs else 0


@dataclass
class _Plan:
    """A checked batch, to write (:meth:`Appending._check`)."""

    head: Head
    skip: int
    events: list[Event]
    payloads: list[bytes]
    now: datetime
    fold: GameFold
    before: Marks
    #: How many violations the fold held before the batch.
    violations_before: int = 0
    #: The fold's :func:`marks` after the batch (set as it is written).
    after: Marks | None = None
