"""Every game of a store folded through its rules, read a game a row: the bulk fold of
every stored game as the commands read ``store:`` (``jaslog check store:``, ``analyze``, the
what-if) and the benchmark's replay (:meth:`jaslog.store.Store.fold_games`).

A SQLite store is read a batch of games at a time (:func:`read_codes`, which the export's
read, :mod:`jaslog.store.export_read`, shares), with one statement that reads each game as
one row (none past the store's position when the read began): its key and its rows' entries
(:data:`CODE`), which SQLite works out, one ``CASE`` a row that tests each column once, and
joins into one text (``group_concat``):

* a plain play's code (nine rows in ten: kind ``play`` of the current format, with no id, no
  ``recorded_at`` and nothing but its seat, card and a time a code holds): its time, seq,
  seat and card in one integer, worked out with ``*`` and ``+`` alone;
* any other row's columns as a JSON array (:data:`OTHER`: the id and ``rest`` in hex), or
  ``-1`` when a column holds a value of another type than the store writes there.

SQLite's C code does the work of each row; Python gets one string a game, no tuple a row,
and the batch's games joined as one row (:func:`_batch_sql`: ``key:entries``, the games by
``;``), so a reader thread takes Python's lock back once a batch, not once a game.
:func:`jaslog.store.bulk_read.game_codes` reads it with one ``orjson`` call into the codes
(another row's as ``-1 - seq``) and the other rows' columns (read by
:func:`jaslog.store.rows.events_of` into events, as :meth:`~jaslog.store.Store.iter_games`
reads them), and takes them only when their seqs run one after the other (so in seq order,
which SQLite 3.40 does not promise of ``group_concat``, whose order is the scan's, and
without a gap) and each entry is a code from 0 or a row of integers and hex. The codes and
the other rows come from the same scan, so they agree: no second statement scans the batch
again, and no row is tested twice.

The replay and the export run a batch's statement ahead, on a reader thread with its own
connection to the file (:func:`codes_ahead`, :class:`jaslog.store.read_ahead.ReadAhead`:
SQLite's C code runs it on the second core while Python folds the batch before), reading
the rows up to the same position; any other reader, through the store's connection. Both
through the same ``sqlite3`` module, not through a second SQLite library (such as the
ADBC driver's, which links its own copy: two copies of SQLite in one process undo each
other's POSIX locks on the same file when either closes it, and another process may then
reset the write-ahead log under a reader, or a writer, of this one: sqlite.org's "how to
corrupt", 2.2.1).

The compiled :func:`jaslog.store.bulk_read.fold_game_codes` then folds each game, a plain
play handed to the fold as its seat and card (:meth:`jaslog.engine.fold.GameFold.apply_play`),
kept in the fold's log as one int until the log is read; another row handed to the fold as
its parts when the game's fold takes it so (:meth:`jaslog.engine.fold.GameFold.apply_row`:
Klaverjas takes a deal, a bid and a roem claim in their usual form, with no event built),
kept in the log as the row until the log is read, when
:func:`jaslog.store.rows.rows_reader` makes its event as
:meth:`~jaslog.store.Store.iter_games` reads it; any other row is read into its event
(:func:`jaslog.store.rows.events_of`) and applied, which says what is wrong with an odd one.
The folds, logs and errors are those of the events (an error of the rules at a row taken as
its parts names the row's event; an unreadable row later in the game is still the game's
error).
While a game is folded, Python's cycle collector is paused, as in the import and in
``check``'s reading of files: a game makes a few thousand objects (events, the fold's lists)
that hold no reference cycle, which the collector would otherwise walk again and again while
the game is folded; reference counting frees each game once its reader drops it. It is
paused while a batch is read, too.

A PostgreSQL store, a SQLite database in memory, or a batch whose codes cannot be read (a
value of an odd type stored behind the store's back: text or a blob where the store writes
an integer, anything but a blob in the id or ``rest``, a fraction, which makes a code or a
column a JSON fraction, a NULL in ``seq``, ``kind`` or ``version``; a gap in a game's seqs,
or no seq 0) is read as :meth:`~jaslog.store.Store.iter_games` reads it: the same folds, the
same errors.
A bare play the code does not hold (another format, a time before 1970 or past what a code
holds, a seq from 8192 on) is one of the other rows, read as ``iter_games`` reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection, Engine

from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import VERSION
from jaslog.play.fold import start_fold
from jaslog.store.bulk_read import (
    AT_CODED_MAX,
    AT_SHIFT,
    SEQS,
    fold_game_codes,
    game_codes,
)
from jaslog.store.codec import UnreadableEvent
from jaslog.store.collector import collector_paused
from jaslog.store.read_ahead import Fetched
from jaslog.store.rows import codec, rows_reader

#: What a fold of a stored game gives: its fold, or the error of the first event its rules
#: refuse (located by game and seq).
Folded = GameFold | FoldError

#: A row with nothing but its columns (SQL over ``events``): a play that may be plain.
BARE = "rest IS NULL AND kind = 1 AND event_id IS NULL AND recorded_at IS NULL"
#: A plain play (SQL over ``events``): what :func:`jaslog.store.bulk_read.games_of_rows`
#: reads as one, with the current format's version in place of ``{version}``. A seat or a
#: card of another type than an integer (stored behind the store's back) is either not
#: between the bounds (text, a blob, NULL: the row is not a plain play, :data:`OTHER` reads
#: it or marks it odd) or makes the code a fraction (which
#: :func:`jaslog.store.bulk_read.game_codes` refuses: the batch is read as rows).
PLAIN = BARE + (" AND version = {version} AND seat BETWEEN 0 AND 3 AND card BETWEEN 0 AND 31")

#: A row's entry (SQL over ``events``, :mod:`jaslog.store.bulk_read`), one ``CASE`` that
#: tests each column once: for a plain play whose seq is below 8192 and whose time (if any)
#: a code holds, its code ``(at + 1) * 2**20 + seq * 128 + seat * 32 + card``; for any other
#: row, :data:`OTHER`. Written with ``*`` and ``+`` (never ``%``, ``&`` or ``<<``, which make
#: an integer of a fraction): a value of another type than an integer (stored behind the
#: store's back) makes the code a fraction, which is not read as one.
CODE = ("CASE WHEN {plain} AND seq BETWEEN 0 AND {seq_max} "
        "AND (at IS NULL OR at BETWEEN 0 AND {at_max}) "
        "THEN coalesce(at + 1, 0) * {at_scale} + seq * 128 + seat * 32 + card "
        "{other} END")

#: The rest of :data:`CODE`'s ``CASE``, for a row that is not a plain play (a bare play of
#: another format, or with a time or a seq a code does not hold, among them): ``json_array(seq,
#: kind, version, hex(event_id), at, recorded_at, seat, card, hex(rest))``, which
#: :func:`jaslog.store.bulk_read.game_codes` reads back into the columns the store holds (and
#: :func:`jaslog.store.rows.events_of` into events, as :meth:`~jaslog.store.Store.iter_games`
#: reads them) when they are of the types the store writes: each an integer (those but
#: ``seq``, ``kind`` and ``version`` may be NULL; a fraction comes back a JSON fraction, which
#: it refuses), the id and ``rest`` blobs (or NULL). ``-1`` (refused) for a row with text or a
#: blob in an integer column (either sorts after ``''``, every number before it) or anything
#: but a blob in the id or ``rest`` (which sorts before ``x''``, the least blob): the batch is
#: then read as rows. Comparisons, not ``typeof``: no function call a column. Nine rows in
#: ten are plain plays: SQLite tests no type of theirs.
OTHER = ("WHEN seq >= '' OR kind >= '' OR version >= '' OR at >= '' OR recorded_at >= '' "
         "OR seat >= '' OR card >= '' OR event_id < x'' OR rest < x'' THEN -1 "
         "ELSE json_array(seq, kind, version, iif(event_id IS NULL, NULL, hex(event_id)), at, "
         "recorded_at, seat, card, iif(rest IS NULL, NULL, hex(rest)))")

#: Games one batch reads with each statement at most (a batch's codes are held whole: some
#: 600 rows a game, a few MiB of Python integers).
BATCH_GAMES = 100


def sqlite_file(engine: Engine) -> str | None:
    """The file of a SQLite store's engine, or None (not SQLite, or a database in memory).

    >>> from sqlalchemy import create_engine
    >>> sqlite_file(create_engine("sqlite:////data/club.sqlite"))
    '/data/club.sqlite'
    >>> sqlite_file(create_engine("sqlite://")) is None
    True
    """
    if engine.dialect.name != "sqlite":
        return None
    path = engine.url.database
    return None if not path or path == ":memory:" else path


def fold_one(gid: str, events: Sequence[Any]) -> Folded:
    """A game's events folded (its first event starts the fold): the fold, or its error."""
    try:
        f = start_fold(events[0])
        for e in events[1:]:
            f.apply(e)
    except FoldError as err:
        return err
    return f


def _codes_sql(where: str) -> str:
    """The statement of a batch: each game's key and its rows' entries (:data:`CODE`)
    joined by commas (``where``: the batch's rows)."""
    code = CODE.format(plain=PLAIN.format(version=int(VERSION)), seq_max=SEQS - 1,
                       at_max=AT_CODED_MAX, at_scale=1 << AT_SHIFT, other=OTHER)
    return (f"SELECT game, group_concat({code}, ',') "
            f"FROM events WHERE {where} GROUP BY game ORDER BY game")


@dataclass(slots=True)
class CodedBatch:
    """A batch of games as :func:`read_codes` reads it: each game's key and its rows'
    codes, in the store's order; each game's other rows (those whose code is below 0), in
    seq order, each ``(seq, kind, version, event_id, at, recorded_at, seat, card, rest)``
    (both by :func:`jaslog.store.bulk_read.game_codes`); and each game's id by its key."""

    names: dict[int, str]
    coded: list[tuple[int, list[int]]]
    others: list[list[Any]]

    def others_of(self) -> Iterator[tuple[int, list[int], list[Any]]]:
        """Each game's key, codes and other rows (seq and the parts
        :func:`jaslog.store.rows.events_of` reads), in the store's order."""
        for (key, codes), others in zip(self.coded, self.others, strict=True):
            yield key, codes, others


def read_codes(conn: Connection, ids: list[str], until: int,
               fetched: Future[Fetched] | None = None) -> CodedBatch | None:
    """The games ``ids`` (in the store's order, ``games.pos`` ascending) read up to position
    ``until`` with the statement of the module's note, through one connection: the replay's
    bulk fold (:func:`fold_batch`) and the export (:func:`jaslog.store.export_read.read_batch`)
    read a batch so. ``fetched``: the statement's rows as a
    :class:`~jaslog.store.read_ahead.ReadAhead` read them ahead (its error raised here), in
    place of reading them through ``conn``. None when the codes cannot be read (the caller
    reads the batch as rows)."""
    if fetched is None:
        names, games = fetch_codes(conn.connection.dbapi_connection, ids, until)
    else:
        names, games = fetched.result()
    return parse_codes(names, games)


def fetch_codes(raw: Any, ids: list[str], until: int) -> Fetched:
    """The batch statement's rows for the games ``ids`` up to position ``until`` (each game's
    key and its entries' text), and each game's id by its key, read through the driver's
    own connection ``raw`` (the store's, or a :class:`~jaslog.store.read_ahead.ReadAhead`'s
    on its thread)."""
    cur = raw.cursor()
    try:
        uniq = list(dict.fromkeys(ids))
        names: dict[int, str] = {}
        for i in range(0, len(uniq), 500):
            part = uniq[i:i + 500]
            cur.execute(f"SELECT id, pos FROM games WHERE id IN ({', '.join('?' * len(part))})",
                        part)
            names.update((int(pos), gid) for gid, pos in cur.fetchall())
        if not names:
            return names, []
        order = sorted(names)
        marks = ", ".join("?" * len(order))
        with collector_paused():  # (see the module's note)
            cur.execute(_batch_sql(f"game IN ({marks}) AND pos <= ?"), (*order, until))
            (text,) = cur.fetchone()
            return names, _batch_rows(text)
    finally:
        cur.close()


def _batch_sql(where: str) -> str:
    """The batch statement (:func:`_codes_sql`) as one row: each game's key and its entries
    joined as ``key:entries``, the games by ``;`` (neither is in an entry: integers, JSON
    arrays of integers, NULLs and hex). One row a batch, not one a game: a reader thread
    takes Python's lock back once for the batch, where a row a game made it wait for the
    lock (up to the switch interval, 5 ms) a hundred times while the caller folds."""
    return (f"WITH batch(game, entries) AS ({_codes_sql(where)}) "
            "SELECT group_concat(game || ':' || coalesce(entries, ''), ';') FROM batch")


def _batch_rows(text: str | None) -> list[tuple[int, str | None]]:
    """Each game's key and entries from :func:`_batch_sql`'s text, in key order (the
    order ``group_concat`` joins them in is not promised); no entries: None (read as rows).

    >>> _batch_rows("7:157,285;3:[0,9]"), _batch_rows(None), _batch_rows("4:")
    ([(3, '[0,9]'), (7, '157,285')], [], [(4, None)])
    """
    if text is None:
        return []
    out: list[tuple[int, str | None]] = []
    for part in text.split(";"):
        key, _, entries = part.partition(":")
        out.append((int(key), entries or None))
    out.sort(key=lambda r: r[0])
    return out


def parse_codes(names: dict[int, str], games: list[Any]) -> CodedBatch | None:
    """A batch's :class:`CodedBatch` from its statement's rows (:func:`fetch_codes`), or
    None when its codes cannot be read."""
    with collector_paused():  # (see the module's note)
        coded: list[tuple[int, list[int]]] = []
        all_others: list[list[Any]] = []
        for key, text in games:
            got = game_codes(text) if type(text) is str else None
            if got is None:  # an odd row: read as rows
                return None
            codes, others = got
            coded.append((key, codes))
            all_others.append(others)
    return CodedBatch(names, coded, all_others)


def codes_ahead(conn: Connection, path: str, batches: Iterable[list[str]], until: int
                ) -> Generator[tuple[list[str], CodedBatch | None], None, None]:
    """Each batch of ``batches`` (game ids in the store's order) with its :func:`read_codes`
    (None: read it as rows), batch N+1's statement run by a
    :class:`~jaslog.store.read_ahead.ReadAhead` on the file ``path`` while the caller works
    on batch N: one batch ahead at most. Closing the generator stops and joins the reader."""
    from jaslog.store.read_ahead import ReadAhead, quick_handoffs

    with ReadAhead(path) as ahead, quick_handoffs():
        it = ramp(batches)
        ids = next(it, None)
        pending = None if ids is None else ahead.codes(ids, until)
        while ids is not None and pending is not None:
            names, games = pending.result()
            following = next(it, None)
            pending = None if following is None else ahead.codes(following, until)
            yield ids, parse_codes(names, games)
            ids = following


def ramp(batches: Iterable[list[str]], first: int = 8) -> Iterator[list[str]]:
    """``batches`` cut so the first ones are small (``first`` games, then twice as many each
    time, up to :data:`BATCH_GAMES`): the first batch's statement is the one read ahead of
    nothing, so the reader soon runs a batch ahead of the fold; the games, in order, are the
    same.

    >>> [len(b) for b in ramp([list(range(100)), list(range(100)), list(range(5))])]
    [8, 16, 32, 44, 100, 5]
    """
    size = first
    for ids in batches:
        i = 0
        while size < BATCH_GAMES and i < len(ids):
            yield ids[i:i + size]
            i += size
            size *= 2
        if i < len(ids):
            yield ids[i:]


def fold_batch(conn: Connection, ids: list[str], until: int,
               unreadable: Any) -> Iterator[tuple[str, Folded]] | None:
    """The games ``ids`` (in the store's order, ``games.pos`` ascending) folded from their
    events up to position ``until``; None when the codes cannot be read (the caller reads
    the batch as rows)."""
    batch = read_codes(conn, ids, until)
    if batch is None:
        return None
    return fold_read(conn, batch, unreadable)


def fold_read(conn: Connection, batch: CodedBatch,
               unreadable: Any) -> Iterator[tuple[str, Folded]]:
    names = batch.names
    kinds = codec(conn).names
    for key, codes, others in batch.others_of():
        gid = names[key]
        folded = fold_coded(gid, codes, others.copy, unreadable,
                            rows=(rows_reader(conn, gid), kinds))
        if folded is not None:
            yield gid, folded


def fold_coded(gid: str, codes: list[int], read: Callable[[], list[Any]],
               unreadable: Callable[[UnreadableEvent], None] | None,
               rows: tuple[Callable[[list[Any]], list[Any]], dict[int, str]] | None = None
               ) -> Folded | None:
    """A game folded from its codes and its other events (``read()`` gives them), the
    cycle collector paused meanwhile (see the module's note): its fold, or the error of the
    first event its rules refuse; None for a game no reader can read, given to
    ``unreadable`` (raised without it). With ``rows`` (the game's
    :func:`jaslog.store.rows.rows_reader` and the store's type names by code), ``read()``
    gives the other rows as stored, which the fold takes as
    :func:`jaslog.store.bulk_read.fold_game_codes` says."""
    try:
        with collector_paused():
            if rows is None:
                return fold_game_codes(gid, codes, read())
            return fold_game_codes(gid, codes, read(), rows[0], rows[1])
    except FoldError as err:
        return err
    except UnreadableEvent as err:
        if unreadable is None:
            raise
        unreadable(err)
        return None


def plays_coded(conn: Connection) -> bool:
    """Whether the store's event kind 1 is ``play`` (the code a plain play is read by)."""
    return codec(conn).names.get(1) == "play"
