"""Reading a store: heads, events (upcast), folds, game listings and the streaming iterator.

A mixin of :class:`jaslog.store.Store` (which provides ``engine``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import closing
from functools import partial
from typing import Any, cast

from sqlalchemy import and_, bindparam, func, or_, select
from sqlalchemy.engine import Connection, Engine

from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import VERSION, Event
from jaslog.play.fold import start_fold
from jaslog.store import engine as eng
from jaslog.store.bulk_read import COLUMNS as BULK_COLUMNS
from jaslog.store.bulk_read import games_of_rows
from jaslog.store.codec import UnreadableEvent, parse_time
from jaslog.store.rows import (
    PARTS,
    codec,
    events_of,
    game_keys,
    head_hashes,
    head_of,
    key_of,
    last_link,
    last_pos,
    no_start,
    read_rows,
    seq_error,
)
from jaslog.store.schema import EVENTS, GAME_PLAYERS, GAMES, PLAYERS
from jaslog.store.types import GENESIS, GameInfo, Head, NoSuchGame, StoredEvent

#: Told of each game that cannot be read (the error names it, its seq and why): the readers
#: of many games (listing, export, check) go on with the others.
Unreadable = Callable[[UnreadableEvent], None]

EVENT_COLUMNS = ("game", "seq", "pos", "type", "version", "event_id", "at", "payload",
                 "prev_hash", "hash")


#: The statements every append and every game's read runs, built once (building and keying
#: a statement costs more than running it: ~0.35 ms against ~0.07 ms on SQLite).
_HEAD = (select(EVENTS.c.seq, EVENTS.c.hash).where(EVENTS.c.game == key_of(bindparam("game")))
         .order_by(EVENTS.c.seq.desc()).limit(1))
_ROWS = select(EVENTS.c.seq, *PARTS).where(
    EVENTS.c.game == key_of(bindparam("game")), EVENTS.c.seq >= bindparam("since"),
    EVENTS.c.seq <= bindparam("upto")).order_by(EVENTS.c.seq)
#: Every row of a game, whatever its seq holds (a seq changed behind the store's back into
#: text or a negative number is read, and says the game is unreadable, not left out).
_ALL_ROWS = select(EVENTS.c.seq, *PARTS).where(
    EVENTS.c.game == key_of(bindparam("game"))).order_by(EVENTS.c.seq)
#: A game's first seq stored.
_FIRST = select(func.min(EVENTS.c.seq)).where(EVENTS.c.game == key_of(bindparam("game")))
#: The highest seq a game's rows are asked up to when no ``upto`` is given.
_NO_END = 2**31 - 1  # the seq column is a 32-bit integer on PostgreSQL
LAST_POS = select(func.coalesce(func.max(EVENTS.c.pos), 0))


class Queries:
    """What a store answers."""

    engine: Engine

    # ------------------------------------------------------------------ heads

    @staticmethod
    def _head(conn: Connection, game: str) -> Head:
        row = conn.execute(_HEAD, {"game": game}).first()
        if row is None:
            return Head(game, 0, GENESIS)
        seq, h = last_link(game, row.seq, row.hash)
        return Head(game, seq + 1, h)

    @staticmethod
    def _heads(conn: Connection, games: Sequence[str]) -> dict[str, Head]:
        """Heads of many games at once (games without events are left out)."""
        return {g: Head(g, seq + 1, h) for g, (seq, h) in head_hashes(conn, games).items()}

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
            return self._cursor(conn)

    # ------------------------------------------------------------------ events

    @staticmethod
    def _rows_of(conn: Connection, game: str, upto: int | None = None, since: int = 0
                 ) -> list[Any]:
        if upto is None and since == 0:
            return list(conn.execute(_ALL_ROWS, {"game": game}))
        return list(conn.execute(_ROWS, {"game": game, "since": since,
                                         "upto": _NO_END if upto is None else upto}))

    def _read_events(self, conn: Connection, game: str, upto: int | None = None, since: int = 0
                     ) -> list[Event]:
        """The game's events from seq ``since`` up to seq ``upto``; read from seq 0, an
        :class:`UnreadableEvent` for a game whose seqs no reader reads
        (:func:`jaslog.store.rows.seq_error`), as the readers of many games say it."""
        out = events_of(conn, self._rows_of(conn, game, upto, since), game=game)
        if since == 0:
            if out:
                bad = seq_error(game, out)
                if bad is not None:
                    raise bad
            elif upto is not None:  # (none up to ``upto``: has the game events past it?)
                first = conn.execute(_FIRST, {"game": game}).scalar()
                if first is not None:
                    raise no_start(game, first)
        return out

    def events(self, game: str, upto: int | None = None) -> list[Event]:
        """The game's events in seq order (upcast to the current format), up to seq ``upto``.

        Raises :class:`NoSuchGame` when the game has no events.
        """
        with eng.read_tx(self.engine) as conn:
            out = self._read_events(conn, game, upto)
        if not out:
            raise NoSuchGame(game)
        return out

    def events_since(self, game: str, seq: int) -> list[Event]:
        """The game's events from seq ``seq`` on, in seq order (none when it has no more: a
        reader that folded the game up to ``seq`` catches up with what others appended)."""
        with eng.read_tx(self.engine) as conn:
            return self._read_events(conn, game, since=seq)

    def fold(self, game: str, upto: int | None = None) -> GameFold:
        """The game folded through the rules (up to seq ``upto``)."""
        events = self.events(game, upto)
        f = start_fold(events[0])
        for e in events[1:]:
            f.apply(e)
        return f

    def stored_events(self, game: str) -> list[StoredEvent]:
        """The game's rows as stored: raw payload bytes, format version, hash chain."""
        with eng.read_tx(self.engine) as conn:
            rows = read_rows(conn, GAMES.c.id == game)
        if not rows:
            raise NoSuchGame(game)
        return [StoredEvent(*r) for r in rows]

    def _game_query(self, *, player: str | None, ruleset: str | None, since: str | None) -> Any:
        q = select(GAMES)
        if ruleset is not None:
            q = q.where(GAMES.c.ruleset == ruleset)
        if since is not None:
            q = q.where(GAMES.c.created_at >= parse_time(since))
        if player is not None:
            named = select(PLAYERS.c.id).where(func.lower(PLAYERS.c.name) == player.lower())
            q = q.where(GAMES.c.id.in_(select(GAME_PLAYERS.c.game).where(
                (GAME_PLAYERS.c.player == player) | GAME_PLAYERS.c.player.in_(named))))
        return q

    def games(self, *, player: str | None = None, ruleset: str | None = None,
              since: str | None = None, limit: int | None = None) -> list[GameInfo]:
        """Games, oldest first; ``player`` matches a player id or display name, ``since`` is
        an RFC 3339 time or a date (``2026-01-31``) compared with the game's start."""
        g = self._game_query(player=player, ruleset=ruleset, since=since).order_by(GAMES.c.pos)
        if limit is not None:
            g = g.limit(limit)
        return self._infos(g)

    def game_page(self, *, player: str | None = None, ruleset: str | None = None,
                  since: str | None = None, until: str | None = None, after: int | None = None,
                  newest: bool = False, limit: int = 50, status: str | None = None,
                  winner: str | None = None, table: str | None = None,
                  tournament: str | None = None, by_start: bool = False
                  ) -> list[tuple[int, GameInfo]]:
        """One page of games with each game's ``pos`` (its place in the store, the paging
        cursor): oldest first, or ``newest`` first, in the order stored or (``by_start``) by
        the game's start (``created_at``; games that started at the same time in the order
        stored); ``after`` is the ``pos`` of the last game of the page before. The filters
        use indexes: ``player`` (``game_players.player``, id or display name), ``ruleset``
        and the start ``since``/``until`` (``games.created_at``,
        RFC 3339 times or dates; ``until`` a date takes the whole day), ``status`` (``live``
        or ``finished``) and ``winner`` (a winning player's id or display name, or ``draw``)
        through where each game stands (``game_results``, ``game_winners``:
        :mod:`jaslog.store.results`), ``table`` and ``tournament`` (the game's ``meta.table``,
        as text, and ``meta.tournament``) through where it is played (``game_places``).

        >>> import tempfile, pathlib
        >>> from jaslog.store import open_store
        >>> s = open_store(str(pathlib.Path(tempfile.mkdtemp()) / "doc.sqlite"))
        >>> s.game_page(ruleset="amsterdam", until="2026-01-31", status="finished", limit=10)
        []
        >>> s.close()
        """
        q = self._game_query(player=player, ruleset=ruleset, since=since)
        if until is not None:
            q = q.where(GAMES.c.created_at < _day_after(until) if _is_date(until)
                        else GAMES.c.created_at <= parse_time(until))
        if status is not None or winner is not None:
            from jaslog.store.results import where_stands
            from jaslog.store.types import StoreError

            if status not in (None, "live", "finished"):
                raise StoreError(f"status {status!r}: live or finished")
            self._need_results()
            q = where_stands(q, status=status, winner=winner)
        if table is not None or tournament is not None:
            from jaslog.store.schema import GAME_PLACES, PLACES_SINCE

            self._need_schema(PLACES_SINCE)
            places = select(GAME_PLACES.c.game)
            if table is not None:
                places = places.where(GAME_PLACES.c.table_id == table)
            if tournament is not None:
                places = places.where(GAME_PLACES.c.tournament == tournament)
            q = q.where(GAMES.c.id.in_(places))
        if after is not None and by_start:  # after the last game's (start, pos), which never change
            start = select(GAMES.c.created_at).where(GAMES.c.pos == after).scalar_subquery()
            q = q.where(or_(GAMES.c.created_at < start, and_(
                GAMES.c.created_at == start, GAMES.c.pos < after)) if newest else or_(
                GAMES.c.created_at > start, and_(GAMES.c.created_at == start, GAMES.c.pos > after)))
        elif after is not None:
            q = q.where(GAMES.c.pos < after if newest else GAMES.c.pos > after)
        keys_order = (GAMES.c.created_at, GAMES.c.pos) if by_start else (GAMES.c.pos,)
        q = q.order_by(*(k.desc() if newest else k for k in keys_order)).limit(limit)
        with eng.read_tx(self.engine) as conn:
            keys = [(r.pos, r.id) for r in conn.execute(q.with_only_columns(GAMES.c.pos,
                                                                            GAMES.c.id))]
        if not keys:
            return []
        infos = {i.game: i for i in self._infos(select(GAMES).where(
            GAMES.c.id.in_([k for _, k in keys])))}
        return [(pos, infos[gid]) for pos, gid in keys if gid in infos]

    def _need_results(self) -> None:
        """Upgrade a store that keeps no games' results yet (of a schema before version 3,
        opened to read), once: the listings filter by them."""
        if getattr(self, "_results_kept", False):
            return
        from jaslog.store.schema import RESULTS_SINCE, schema_version

        with eng.read_tx(self.engine) as conn:
            kept = (schema_version(conn) or 0) >= RESULTS_SINCE
        if not kept:
            self.upgrade()
        self._results_kept = True

    def _need_schema(self, since: int) -> None:
        """Upgrade a store of a schema before ``since`` (opened to read), once: the listings
        filter by what that version keeps (the games' places, since version 4)."""
        if getattr(self, "_schema_at_least", 0) >= since:
            return
        from jaslog.store.schema import schema_version

        with eng.read_tx(self.engine) as conn:
            version = schema_version(conn) or 0
        if version < since:
            self.upgrade()
        self._schema_at_least = max(version, since)

    def upgrade(self, *, games: int | None = None,
                progress: Callable[[int], None] | None = None) -> bool:
        """Bring the store to this jaslog's schema (:meth:`jaslog.store.Store.upgrade`)."""
        raise NotImplementedError

    def _infos(self, query: Any) -> list[GameInfo]:
        g = query.subquery()
        last = select(EVENTS.c.game, func.max(EVENTS.c.seq).label("seq")) \
            .where(EVENTS.c.game.in_(select(g.c.pos))).group_by(EVENTS.c.game).subquery()
        q = (select(g, EVENTS.c.seq.label("head_seq"), EVENTS.c.hash, EVENTS.c.at.label("last_at"))
             .join(last, last.c.game == g.c.pos)
             .join(EVENTS, and_(EVENTS.c.game == last.c.game, EVENTS.c.seq == last.c.seq))
             .order_by(g.c.pos))
        with eng.read_tx(self.engine) as conn:
            rows = conn.execute(q).all()
        return [GameInfo(r.id, r.ruleset, list(r.seats), r.dealer, _show_time(r.created_at),
                         *head_of(r.head_seq, r.hash, r.last_at)) for r in rows]

    def info(self, game: str) -> GameInfo:
        """One game's :class:`GameInfo` (raises :class:`NoSuchGame`)."""
        rows = self._infos(self._game_query(player=None, ruleset=None, since=None)
                           .where(GAMES.c.id == game))
        if not rows:
            raise NoSuchGame(game)
        return rows[0]

    def iter_games(self, *, since: str | None = None, ruleset: str | None = None,
                   after: int | None = None, until: int | None = None,
                   batch: int = 200, fast: bool = False,
                   unreadable: Unreadable | None = None) -> Iterator[tuple[str, list[Event]]]:
        """Stream ``(game_id, events)`` for every game, in order of creation, from one snapshot.

        For incremental export: ``after`` and ``until`` are cursors (see :meth:`cursor`);
        with them, only games that received an event in ``(after, until]`` are yielded,
        each with all its events up to ``until``. Games are read ``batch`` at a time.

        ``fast``: a play stored in its canonical form comes as a
        :class:`jaslog.events.fast.FastPlay` (every field a fold reads, and ``payload``, the
        stored bytes) instead of a model: about twice as fast to read, for bulk readers that
        fold (the export). Every other event is a model as usual.

        ``unreadable``: a game with an event that cannot be read (stored by an older jaslog)
        is left out and its :class:`~jaslog.store.codec.UnreadableEvent` given to it; without
        it, that error is raised.
        """
        with eng.read_tx(self.engine) as conn:
            if after is not None and until is None:
                until = self._cursor(conn)
            for ids in self._id_batches(conn, since=since, ruleset=ruleset, after=after,
                                        until=until, batch=batch):
                yield from self._games_of(conn, ids, until, fast, unreadable)

    def fold_games(self, *, since: str | None = None, ruleset: str | None = None,
                   after: int | None = None, until: int | None = None,
                   unreadable: Unreadable | None = None
                   ) -> Generator[tuple[str, GameFold | FoldError], None, None]:
        """Every game :meth:`iter_games` yields (same arguments, same order) folded through
        its rules: ``(game_id, fold)``, or ``(game_id, error)`` with the
        :class:`~jaslog.engine.fold.FoldError` of the first event the rules refuse. The
        bulk readers that fold (``check store:``, the benchmark) read through here: a
        SQLite store column by column (:mod:`jaslog.store.fold_read`), a plain play
        handed to the fold as its seat and card, with the folds and errors of
        :meth:`iter_games` and a fold of its events. ``unreadable`` as there."""
        from jaslog.store import fold_read

        with eng.read_tx(self.engine) as conn:
            if until is None:
                until = self._cursor(conn)
            path = fold_read.sqlite_file(self.engine)
            batches = self._id_batches(conn, since=since, ruleset=ruleset, after=after,
                                       until=until, batch=fold_read.BATCH_GAMES)
            # a SQLite file: the next batch's statement read ahead on a thread of its own
            coded: Generator[tuple[list[str], fold_read.CodedBatch | None], None, None] = \
                fold_read.codes_ahead(conn, path, batches, until) \
                if path is not None and fold_read.plays_coded(conn) \
                else ((ids, None) for ids in batches)
            with closing(coded):  # a reader stopped and joined when this generator stops
                for ids, batch in coded:
                    if batch is not None:
                        yield from fold_read.fold_read(conn, batch, unreadable)
                    else:
                        yield from ((gid, fold_read.fold_one(gid, events))
                                    for gid, events in self._games_of(conn, ids, until, True,
                                                                      unreadable))

    def game_id_batches(self, *, since: str | None = None, ruleset: str | None = None,
                        after: int | None = None, until: int | None = None,
                        batch: int = 200) -> list[list[str]]:
        """The ids of the games :meth:`iter_games` would yield (same arguments), in its order,
        ``batch`` to a list: for readers that share the games out (the parallel export)."""
        with eng.read_tx(self.engine) as conn:
            if after is not None and until is None:
                until = self._cursor(conn)
            return list(self._id_batches(conn, since=since, ruleset=ruleset, after=after,
                                         until=until, batch=batch))

    def games_by_id(self, ids: list[str], *, until: int | None = None, fast: bool = False,
                    unreadable: Unreadable | None = None) -> Iterator[tuple[str, list[Event]]]:
        """``(game_id, events)`` for ``ids``, in that order, each with its events up to
        ``until`` (a cursor); a game without events there is left out. ``fast`` and
        ``unreadable`` as in :meth:`iter_games`."""
        with eng.read_tx(self.engine) as conn:
            yield from self._games_of(conn, ids, until, fast, unreadable)

    @staticmethod
    def _cursor(conn: Connection) -> int:
        return last_pos(conn)

    def _id_batches(self, conn: Connection, *, since: str | None, ruleset: str | None,
                    after: int | None, until: int | None, batch: int) -> Iterator[list[str]]:
        base = self._game_query(player=None, ruleset=ruleset, since=since)
        if after is not None:
            touched = select(EVENTS.c.game).where(EVENTS.c.pos > after)
            if until is not None:
                touched = touched.where(EVENTS.c.pos <= until)
            base = base.where(GAMES.c.pos.in_(touched))
        elif until is not None:
            # A game exists at ``until`` when its first row does (seq 0 comes first): one
            # primary-key lookup per game, not a scan of every event per batch. The first row,
            # not the row at seq 0: a game whose seq-0 row was moved or renumbered behind the
            # store's back is listed, and its readers name it.
            base = base.where(select(EVENTS.c.pos).where(EVENTS.c.game == GAMES.c.pos)
                              .order_by(EVENTS.c.seq).limit(1).scalar_subquery() <= until)
        last_pos = 0
        while True:
            rows = conn.execute(base.where(GAMES.c.pos > last_pos).order_by(GAMES.c.pos)
                                .limit(batch)).all()
            if not rows:
                return
            last_pos = rows[-1].pos
            yield [r.id for r in rows]

    @staticmethod
    def _games_of(conn: Connection, ids: list[str], until: int | None, fast: bool,
                  unreadable: Unreadable | None = None) -> Iterator[tuple[str, list[Event]]]:
        if fast:  # for a fold: plays straight from their columns, game by game
            yield from _games_for_fold(conn, ids, until, unreadable)
            return
        # the driver's own cursor: the rows as plain tuples, in one query for the batch
        ph = eng.param_mark(conn.dialect.name)
        sql = (f"SELECT g.id, e.seq, e.pos, {', '.join('e.' + c.name for c in PARTS)}, e.hash "
               f"FROM events e JOIN games g ON g.pos = e.game "
               f"WHERE g.id IN ({', '.join([ph] * len(ids))})"
               + (f" AND e.pos <= {ph}" if until is not None else "") + " ORDER BY g.id, e.seq")
        by_game: dict[str, list[Any]] = {gid: [] for gid in ids}
        if ids:
            with eng.raw_cursor(conn) as cur:
                cur.execute(sql, (*ids, *(() if until is None else (until,))))
                for r in cur.fetchall():
                    by_game[r[0]].append(r)
        out: dict[str, list[Event]] = {}
        bad: dict[str, UnreadableEvent] = {}
        for gid, rows in by_game.items():
            try:
                evs = events_of(conn, rows, fast=fast)
                odd = seq_error(gid, evs) if evs else None
                if odd is not None:
                    raise odd
                out[gid] = evs
            except UnreadableEvent as e:
                if unreadable is None:
                    raise
                bad[gid] = e
        by_game = out  # type: ignore[assignment]
        for gid in ids:
            if gid in bad:
                assert unreadable is not None
                unreadable(bad[gid])
            elif by_game[gid]:
                yield gid, by_game[gid]


#: Rows a bulk read fetches at a time, and games one of its statements reads at most.
FETCH_ROWS = 2000
_KEYS_A_STATEMENT = 500


def _games_for_fold(conn: Connection, ids: list[str], until: int | None,
                    unreadable: Unreadable | None) -> Iterator[tuple[str, list[Event]]]:
    """:meth:`Queries._games_of` with ``fast``: the games' rows in (game, seq) order, one
    statement for up to 500 games, fetched :data:`FETCH_ROWS` at a time and turned into
    events by :func:`jaslog.store.bulk_read.games_of_rows` (a plain play as a ``FastPlay``
    from its typed columns, the other rows as :func:`events_of` reads them). The hash chain
    is not read (``verify`` checks it)."""
    keys = game_keys(conn, ids)
    names = {k: gid for gid, k in keys.items()}
    order = [keys[g] for g in dict.fromkeys(ids) if g in keys]
    streamed = len(set(ids)) == len(ids) and order == sorted(order)
    bad: dict[int, UnreadableEvent] = {}

    def decode(key: int, others: list[Any]) -> list[Any] | None:
        try:
            return events_of(conn, others, fast=True, game=names[key])
        except UnreadableEvent as e:
            if unreadable is None:
                raise
            bad[key] = e
            return None

    c = codec(conn)
    plays = c.names.get(1) == "play"
    ph = eng.param_mark(conn.dialect.name)
    got: dict[int, list[Any] | None] = {}
    for i in range(0, len(order), _KEYS_A_STATEMENT):
        part = sorted(order[i:i + _KEYS_A_STATEMENT])
        sql = (f"SELECT {', '.join(BULK_COLUMNS)} FROM events "
               f"WHERE game IN ({', '.join([ph] * len(part))})"
               + ("" if until is None else f" AND pos <= {ph}") + " ORDER BY game, seq")
        with eng.raw_cursor(conn) as cur:
            cur.execute(sql, (*part, *(() if until is None else (until,))))
            fetch = cast(Callable[[], list[Any]], partial(cur.fetchmany, FETCH_ROWS))
            games = games_of_rows(fetch, names, VERSION, plays, decode)
            for key, events in games:
                if events is not None:  # (its seqs, once a game)
                    odd = seq_error(names[key], events)
                    if odd is not None:
                        if unreadable is None:
                            raise odd
                        bad[key] = odd
                        events = None
                if not streamed:
                    got[key] = events
                elif events is None:
                    assert unreadable is not None
                    unreadable(bad.pop(key))
                else:
                    yield names[key], events
    if streamed:
        return
    for gid in ids:  # in the order asked for
        k = keys.get(gid)
        if k is None or k not in got:
            continue
        read = got[k]
        if read is None:
            assert unreadable is not None
            unreadable(bad[k])
        else:
            yield gid, read


def page_cursor(order: str, pos: int) -> str:
    """An opaque paging cursor: the listing's order and the last game's ``pos`` in it.

    >>> page_cursor("oldest", 42)
    'b2xkZXN0OjQy'
    >>> cursor_pos(page_cursor("newest", 7), "newest"), cursor_pos("b2xkZXN0OjQy", "newest")
    (7, None)
    """
    return base64.urlsafe_b64encode(f"{order}:{pos}".encode()).decode().rstrip("=")


def cursor_pos(cursor: str, order: str) -> int | None:
    """The ``pos`` a :func:`page_cursor` of ``order`` goes on from (None: not one)."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    kind, _, pos = text.partition(":")
    if kind == order and pos.isascii() and pos.isdigit() and len(pos) <= 18:
        return int(pos)
    return None


def winning_players(scoring: str | None, seats: list[str], winner: Any) -> list[str]:
    """The players who won, by the game's ``scoring`` (:attr:`jaslog.engine.game.Game.scoring`):
    with ``teams`` the winner is a partnership (the seats ``s`` with ``s % 2`` the winner:
    seats t and t+2 at a table of four), with ``players`` a seat; none for a draw or a game
    going on.

    >>> winning_players("teams", ["a", "b", "c", "d"], 1)
    ['b', 'd']
    >>> winning_players("players", ["a", "b", "c", "d"], 2)
    ['c']
    >>> winning_players("teams", ["a", "b", "c", "d"], "draw")
    []
    """
    if not isinstance(winner, int) or isinstance(winner, bool):
        return []
    if scoring == "teams":
        return [s for i, s in enumerate(seats) if i % 2 == winner] if winner in (0, 1) else []
    return [seats[winner]] if 0 <= winner < len(seats) else []


def _is_date(text: str) -> bool:
    """Whether ``text`` is a bare date (``2026-01-31``), not a time."""
    t = text.strip()
    return len(t) == 10 and t[4] == "-" and t[7] == "-"


def _day_after(date: str) -> str:
    """The stored time at which the day after ``date`` begins (``until`` takes whole days)."""
    from datetime import date as Date
    from datetime import timedelta

    parse_time(date)  # a StoreError when it is not a date
    return parse_time((Date.fromisoformat(date.strip()) + timedelta(days=1)).isoformat())


def _show_time(t: str) -> str:
    """Sortable stored time to RFC 3339 (without zero microseconds)."""
    return t.replace(".000000Z", "Z")


