"""The export of a SQLite store's games from their columns: no event made for a plain play.

A batch of games is read as columns (:mod:`jaslog.store.export_read`: each row's game, seq,
time and ``seat * 32 + card`` for a plain play; the other events decoded) and each game
folded from them. The batch's ``events`` rows are then built once, a column at a time
(:func:`batch_rows`): the round of each event from a count of the round openers, a plain
play's card and canonical bytes by Arrow from its columns, the other events' values from
their fields; with them, what each game's row builder reads of its rounds (each opener's
seq, each round's last seq, their times). A game whose plays and tricks are built a column
at a time (:mod:`jaslog.export.columnar`) takes its slice of that table; the rest of its
rows (rounds, players, games, violations) come from its fold through its game's row
builder, as for any game (:func:`jaslog.export.rows.build_game`). Any other game (a
correction, an irregularity, an integrity error, a game whose adapter builds no columns,
``--par``) is built from its events by :func:`~jaslog.export.rows.build_game`. The rows are
the same either way (``tests/export/test_stored.py`` compares every table).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from jaslog.cards import CARD_TEXT
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import Event, GameStarted
from jaslog.events.times import time_text
from jaslog.export.columnar import arrow, lookup
from jaslog.export.columns import EventsColumns
from jaslog.export.dataset import Prebuilt
from jaslog.export.other_rows import other_columns, time_texts
from jaslog.export.rows import (
    GameContext,
    Partition,
    Rows,
    Summary,
    export_adapter,
    game_row,
    normalize_time,
)
from jaslog.export.schema import SCHEMAS, TS
from jaslog.games import get_game
from jaslog.play.fold import start_fold

if TYPE_CHECKING:
    from jaslog.store import Store
    from jaslog.store.codec import UnreadableEvent
    from jaslog.store.export_read import FactRow, StoredBatch, StoredGame
    from jaslog.store.read_ahead import Fetched

#: Games read as columns at a time (a batch's columns, its events table and its other
#: events are held whole while its games are built: on the bench's store, batches of 200
#: games raised the export's peak by about 80 MiB over reading events, of 100 by about 27).
READ_GAMES = 100
#: Codes up to this are seconds since 1970, above it milliseconds (:mod:`jaslog.store.compact`).
SECONDS_MAX = 253_402_300_799
_OPENERS = ("dealt", "round_score")


def store_games(store: Store, *, since: str | None, ruleset: str | None, after: int | None,
                until: int, batch: int, unreadable: Callable[[UnreadableEvent], None]
                ) -> Generator[StoredExport | list[Event], None, None]:
    """The games :meth:`~jaslog.store.Store.iter_games` yields (same arguments, same order),
    each as a :class:`StoredExport` when the store is a SQLite file whose batch reads as
    columns, else as its events."""
    from jaslog.store.fold_read import sqlite_file

    if sqlite_file(store.engine) is None:
        yield from (events for _gid, events in store.iter_games(
            since=since, ruleset=ruleset, after=after, until=until, fast=True,
            unreadable=unreadable))
        return
    yield from _read_ahead(store, (part for ids in store.game_id_batches(
        since=since, ruleset=ruleset, after=after, until=until, batch=batch)
        for part in _parts(ids)), until, unreadable)


def batch_games(store: Store, ids: list[str], until: int | None,
                unreadable: Callable[[UnreadableEvent], None]
                ) -> Iterator[StoredExport | list[Event]]:
    """The games ``ids`` (in the store's order) as :meth:`~jaslog.store.Store.games_by_id`
    yields them, each as a :class:`StoredExport` when the store is a SQLite file and the
    batch reads as columns, else as its events; read :data:`READ_GAMES` at a time."""
    from jaslog.store.fold_read import sqlite_file

    if until is not None and sqlite_file(store.engine) is not None:
        yield from _read_ahead(store, iter(_parts(ids)), until, unreadable)
        return
    for part in _parts(ids):
        yield from _batch_games(store, part, until, unreadable)


def _parts(ids: list[str]) -> list[list[str]]:
    return [ids[i:i + READ_GAMES] for i in range(0, len(ids), READ_GAMES)]


def _read_ahead(store: Store, parts: Iterator[list[str]], until: int,
                unreadable: Callable[[UnreadableEvent], None]
                ) -> Iterator[StoredExport | list[Event]]:
    """:func:`_batch_games` of each batch of ``parts`` from the store's SQLite file, the next
    batch's statement run meanwhile by a :class:`~jaslog.store.read_ahead.ReadAhead` on a
    thread of its own (one batch ahead at most: its rows are held while this one is built).
    Stopping early stops and joins the reader."""
    from jaslog.store.fold_read import sqlite_file
    from jaslog.store.read_ahead import ReadAhead

    path = sqlite_file(store.engine)
    assert path is not None
    with ReadAhead(path) as ahead:
        ids = next(parts, None)
        fetched = None if ids is None else ahead.codes(ids, until)
        while ids is not None and fetched is not None:
            following = next(parts, None)
            ahead_of = None if following is None else ahead.codes(following, until)
            yield from _batch_games(store, ids, until, unreadable, fetched)
            ids, fetched = following, ahead_of


def _batch_games(store: Store, ids: list[str], until: int | None,
                 unreadable: Callable[[UnreadableEvent], None],
                 fetched: Future[Fetched] | None = None
                 ) -> Iterator[StoredExport | list[Event]]:
    from jaslog.store import engine as eng
    from jaslog.store.export_read import read_batch
    from jaslog.store.fold_read import plays_coded, sqlite_file

    got = None
    if sqlite_file(store.engine) is not None:
        with eng.read_tx(store.engine) as conn:
            if until is None:
                until = store.cursor()
            got = read_batch(conn, ids, until, unreadable, prepare=_prepare,
                             stored=stored_facts, fetched=fetched) \
                if plays_coded(conn) else None
    if got is None:
        yield from (events for _gid, events in store.games_by_id(
            ids, until=until, fast=True, unreadable=unreadable))
    else:
        yield from (StoredExport(g) for g in got)


def stored_facts(gid: str, started: Event | None, types: frozenset[str],
                 facts: list[FactRow]) -> Any:
    """What a game's rows are built from instead of its fold (:meth:`StoredExport.build`):
    the fold of its ``game_started`` (its first other event, ``started``) alone (its options
    and seats) with what its game's export adapter makes of its stored round ``facts``
    (``stored_facts``) and the ``types`` of its other events; None for a game whose adapter
    has no use for them (the game is folded)."""
    if not isinstance(started, GameStarted):
        return None
    start = _start_of(started)
    if start is None:
        return None
    take = getattr(export_adapter(get_game(start.game)), "stored_facts", None)
    if take is None:
        return None
    got = take(start, types, facts)
    return None if got is None else (start, got)


@dataclass(slots=True)
class Started:
    """What the rows of a game built from its stored facts read of its fold: the fold of its
    ``game_started`` alone (its game, options and state before any round), shared by the
    games that start alike, with the game's own seats."""

    game: str
    options: dict[str, Any]
    seats: list[str]
    state: Any


#: The fold of each ``game_started`` met (but its seats), by ruleset, options and dealer.
_STARTS: dict[tuple[str, bytes, int, int], GameFold | None] = {}


def _start_of(started: GameStarted) -> Started | None:
    """:class:`Started` of a game (None: its ``game_started`` does not fold)."""
    seats = list(started.seats)
    key = (started.ruleset, orjson.dumps(started.options, option=orjson.OPT_SORT_KEYS),
           started.dealer, len(seats))
    fold = _STARTS.get(key, _UNSET)
    if fold is _UNSET:
        try:
            fold = start_fold(started.model_copy(update={"seats": [str(i) for i in
                                                                   range(len(seats))]}))
        except FoldError:
            fold = None
        if len(_STARTS) < 256:
            _STARTS[key] = fold
    if fold is None or len(set(seats)) != len(seats):
        return None
    assert isinstance(fold, GameFold)
    return Started(fold.game, fold.options, seats, fold.state)


_UNSET: Any = object()


def _prepare(batch: StoredBatch, names: dict[int, str]) -> None:
    """Build the batch's ``events`` rows and its games' rounds (None when a value does not
    fit a column: its games are then built from their events, which says so)."""
    try:
        batch.table = batch_rows(batch, names)
    except (pa.ArrowInvalid, OverflowError, TypeError):
        batch.table = None
    batch.plays = batch_plays(batch)


@dataclass(slots=True)
class BatchRows:
    """What a batch's games are built from: its ``events`` table, and for each game (by its
    first row), what :class:`~jaslog.export.rows.GameContext` says of its rounds: the seq of
    each round's opener and whether its deal carried hands, the seq of each round's last
    event, and the rows of its first and last event with a time (-1: none)."""

    events: pa.Table
    game_at: dict[int, int]                 # a game's first row -> its index below
    openers: list[list[tuple[int, int, bool]]]   # (round, seq, hands) of each opener
    last_seq: list[dict[int, int]]
    first_timed: list[int]
    last_timed: list[int]
    times: list[dict[int, str | None]]      # the times of those rows, by seq


def batch_rows(batch: StoredBatch, names: dict[int, str]) -> BatchRows:
    """The ``events`` rows of every game of ``batch``, as :func:`jaslog.export.rows.build_game`
    writes them for a game without a retracted event (the round of an event: the count of
    round openers up to it in its game, or a ruling's or note's own round).

    Each column is made once for the batch: numbers as numpy arrays with a mask, repeated
    text (a type, a card, a game id) taken from a small table by index, a plain play's
    canonical bytes joined from a few pieces (its game's head, its seq, its time, its seat
    and card from a table by code)."""
    keys, seqs, codes = batch.keys, batch.seqs, batch.codes
    n = len(keys)
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]])) if n \
        else np.zeros(0, np.int64)
    game_of = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))
    gid_list = [names[int(k)] for k in keys[starts]]
    gids = pa.array(gid_list, pa.string())

    oi = np.flatnonzero(codes < 0)           # the rows of the other events
    pi = np.flatnonzero(codes >= 0)
    m = len(oi)
    # the other events' values, from the columns the store holds of them (a row of a game
    # that could not be read, never exported: empty ones)
    oc = other_columns(batch.other_rows, batch.others, batch.kind_names, gid_list,
                       game_of[oi], seqs[oi], batch.unread)
    kinds = oc.kinds
    opener = np.array([k in _OPENERS for k in kinds], bool) if m else np.zeros(0, bool)
    own_at = [k for k, _r in oc.own]
    own = [r for _k, r in oc.own]

    # round: openers counted within each game (0: none yet: NULL), then the own rounds
    opens = np.zeros(n, np.int64)
    opens[oi[opener]] = 1
    count = np.cumsum(opens)
    before = count[starts] - opens[starts]
    rnd = count - before[game_of]
    if own:
        rnd[oi[np.array(own_at, np.int64)]] = np.array(own, np.int64)
        null_round = rnd == 0
        null_round[oi[np.array(own_at, np.int64)]] = False
    else:
        null_round = rnd == 0

    code = codes[pi]
    # type and card: by index into a small table (a plain play: "play", its card by code)
    type_names = ["play", *dict.fromkeys(kinds)]
    type_index = {k: i for i, k in enumerate(type_names)}
    type_ix = np.zeros(n, np.int64)
    type_ix[oi] = [type_index[k] for k in kinds]
    card_names = oc.card_names
    card_ix = np.empty(n, np.int64)
    card_ix[pi] = code & 31
    card_ix[oi] = oc.card_ix
    seat = np.zeros(n, np.int64)
    seat[pi] = code >> 5
    seat_null = np.zeros(n, bool)
    seat[oi] = oc.seat
    seat_null[oi] = oc.seat_null
    points = np.zeros(n, np.int64)
    points_null = np.ones(n, bool)
    points[oi] = oc.points
    points_null[oi] = oc.points_null
    other_ix = np.full(n, -1, np.int64)   # a row's place among the other events (-1: a play)
    other_ix[oi] = np.arange(m)

    # times: a plain play's from its code, the others' from theirs
    ats = batch.ats[pi]
    at_null = batch.at_null[pi]
    ms = ats > SECONDS_MAX
    micros = np.zeros(n, np.int64)
    micros[pi] = np.where(ms, ats * 1000, ats * 1_000_000)
    time_null = np.zeros(n, bool)
    time_null[pi] = at_null
    micros[oi] = oc.micros
    time_null[oi] = oc.at_null

    # a plain play's canonical bytes (as EventsColumns writes them): its game's head, its
    # seq, then its time, seat and card
    heads = pa.array(['{"game":"' + g + '","seq":' for g in gid_list], pa.string())
    p_seqs = seqs[pi]
    p_seq = _SEQ_TEXT.take(pa.array(p_seqs, pa.int64())) \
        if len(p_seqs) and int(p_seqs.max()) < len(_SEQ_TEXT) \
        else pa.array(p_seqs, pa.int64()).cast(pa.string())
    built = pc.binary_join_element_wise(
        heads.take(pa.array(game_of[pi], pa.int64())), p_seq,
        *_play_pieces(ats, ms, at_null, code), "")
    payload = pa.concat_arrays([built, oc.payload])
    rank = np.empty(n, np.int64)
    rank[pi] = np.arange(len(pi))
    rank[oi] = len(pi) + np.arange(m)

    arrays = [
        lookup(gids, game_of),
        pa.array(seqs, pa.int32()),
        lookup(pa.array(type_names, pa.string()), type_ix),
        arrow(micros, TS, time_null),
        arrow(rnd, pa.int16(), null_round),
        arrow(seat, pa.int8(), seat_null),
        lookup(pa.array(card_names, pa.string()), card_ix),
        lookup(oc.call, other_ix),
        arrow(points, pa.int32(), points_null),
        lookup(oc.ids, other_ix) if oc.ids.null_count < len(oc.ids) else pa.nulls(n, pa.string()),
        pa.array(np.zeros(n, bool), pa.bool_()),
        pa.nulls(n, pa.int32()),
        payload.take(pa.array(rank, pa.int64())),
    ]
    table = pa.Table.from_arrays(arrays, schema=SCHEMAS["events"])

    # each game's rounds: its openers, the last seq of each round (a ruling's or a note's
    # own round included), its first and last event with a time
    ng = len(starts)
    ends = np.append(starts[1:], n)
    at_opener = oi[opener]
    og = game_of[at_opener].tolist()
    o_round, o_seq = rnd[at_opener].tolist(), seqs[at_opener].tolist()
    o_hands = oc.hands[opener].tolist()
    openers: list[list[tuple[int, int, bool]]] = [[] for _ in range(ng)]
    for g, r, sq, h in zip(og, o_round, o_seq, o_hands, strict=True):
        openers[g].append((r, sq, h))
    # (a row of a counted round: the rows of a round follow each other in its game, the
    # last of each run is its round's last; a ruling's or note's own round: by seq)
    counted = ~null_round
    own_rows = oi[np.array(own_at, np.int64)] if own else np.zeros(0, np.int64)
    counted[own_rows] = False
    at_counted = np.flatnonzero(counted)
    key = game_of[at_counted] * (int(rnd.max()) + 1 if n else 1) + rnd[at_counted]
    last = at_counted[np.append(key[1:] != key[:-1], True)] if len(key) \
        else np.zeros(0, np.int64)
    last_seq: list[dict[int, int]] = [{} for _ in range(ng)]
    for g, r, sq in zip(game_of[last].tolist(), rnd[last].tolist(), seqs[last].tolist(),
                        strict=True):
        last_seq[g][r] = sq
    for g, r, sq in zip(game_of[own_rows].tolist(), rnd[own_rows].tolist(),
                        seqs[own_rows].tolist(), strict=True):
        last_seq[g][r] = max(last_seq[g].get(r, sq), sq)
    timed = np.flatnonzero(~time_null)
    f = np.searchsorted(timed, starts)
    lt = np.searchsorted(timed, ends) - 1
    some = f <= lt
    first_timed = np.where(some, timed[np.minimum(f, len(timed) - 1)] - starts, -1) \
        if len(timed) else np.full(ng, -1)
    last_timed = np.where(some, timed[np.maximum(lt, 0)] - starts, -1) \
        if len(timed) else np.full(ng, -1)
    # the times the rows of a game's rounds and its first and last times are written with,
    # by seq (RFC 3339 text), made here for the batch at once
    times: list[dict[int, str | None]] = [{} for _ in range(ng)]
    rows = np.unique(np.concatenate([
        at_opener, last, own_rows,
        (first_timed + starts)[first_timed >= 0], (last_timed + starts)[last_timed >= 0]]))
    k_rows = other_ix[rows]
    texts = time_texts(np.where(k_rows < 0, batch.ats[rows], oc.at_codes[k_rows]),
                       time_null[rows]).to_pylist()
    for g, sq, k, text in zip(game_of[rows].tolist(), seqs[rows].tolist(), k_rows.tolist(),
                              texts, strict=True):
        times[g][sq] = oc.odd_at.get(k, text)
    return BatchRows(table, {lo: g for g, lo in enumerate(starts.tolist())}, openers, last_seq,
                     first_timed.tolist(), last_timed.tolist(), times)


_TWO = [f"{i:02d}" for i in range(60)]
_CARD_INDEX = {c: i for i, c in enumerate(CARD_TEXT)}
#: By code (``seat * 32 + card``): the end of a plain play's canonical bytes.
_TAILS = [f',"seat":{code >> 5},"card":"{CARD_TEXT[code & 31]}"}}' for code in range(4 * 32)]
#: By hour * 60 + minute (the last: none, for a play without a time of day here).
_HOUR_MINUTE = pa.array([f"T{h}:{m}:" for h in _TWO[:24] for m in _TWO] + [""], pa.string())
#: By second * 128 + code: the second of a play's time and the end of its bytes (after the
#: 60 seconds: the end alone, for a play without a time of day here).
_SECOND_TAIL = pa.array([f'{s}Z"' + t for s in _TWO for t in _TAILS] + _TAILS, pa.string())
#: A seq's text by seq, for the seqs a plain play's code holds (below
#: :data:`jaslog.store.bulk_read.SEQS`): taken by index, cheaper than Arrow's cast.
_SEQ_TEXT = pa.array([str(i) for i in range(8192)], pa.string())
#: Days from a batch's first play to its last up to which every day's date is written
#: (more: only the days met).
_DAYS_SPAN = 4096


def _play_pieces(codes: np.ndarray, ms: np.ndarray, null: np.ndarray, play: np.ndarray
                 ) -> tuple[pa.Array, pa.Array, pa.Array]:
    """What follows a plain play's seq in its canonical bytes (``,"type":"play","at":"...",
    "seat":..,"card":".."}``; no time: without ``"at"``), in three parts to be joined: the
    date (written once for every day met), the hour and minute, and the second with the
    seat and card (from tables, by time code and by ``play``: ``seat * 32 + card``); a time
    in milliseconds (rare) whole in the first part (:func:`jaslog.events.times.time_text`)."""
    odd = ms | null
    timed = codes[~odd]
    days, second = np.divmod(np.where(odd, timed[0] if len(timed) else 0, codes), 86_400)
    lo = int(days.min()) if len(days) else 0
    span = int(days.max()) - lo + 1 if len(days) else 0
    if span <= _DAYS_SPAN:
        seen, inverse = np.arange(lo, lo + span), days - lo
    else:
        seen, inverse = np.unique(days, return_inverse=True)
        inverse = inverse.reshape(-1)
    texts = [',"type":"play","at":"' + time_text(int(d) * 86_400)[:10] for d in seen]
    hour_minute, second = np.divmod(second, 60)
    if odd.any():  # no time, or milliseconds: the first part says it all, the second none
        inverse = inverse.copy()
        at = np.flatnonzero(odd)
        inverse[at] = len(texts) + np.arange(len(at))
        texts.extend(',"type":"play"' if no else f',"type":"play","at":"{time_text(int(c))}"'
                     for c, no in zip(codes[at].tolist(), null[at].tolist(), strict=True))
        hour_minute = np.where(odd, 24 * 60, hour_minute)
        second = np.where(odd, 60, second)
    return (pa.array(texts, pa.string()).take(pa.array(inverse, pa.int64())),
            _HOUR_MINUTE.take(pa.array(hour_minute, pa.int64())),
            _SECOND_TAIL.take(pa.array(second * 128 + play, pa.int64())))


@dataclass(slots=True)
class BatchPlays:
    """A batch's plain plays counted for :func:`plays_fit`: by game (its index in the batch),
    round (0: before any) and seat, the cards played; and each game whose round holds a
    card twice."""

    by_seat: np.ndarray      # [game, round, seat]
    twice: np.ndarray        # [game]


def batch_plays(batch: StoredBatch) -> BatchPlays:
    """Count a batch's plain plays by game, round and seat, a column at a time."""
    codes, keys = batch.codes, batch.keys
    n = len(codes)
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]])) if n \
        else np.zeros(0, np.int64)
    ng = len(starts)
    game_of = np.repeat(np.arange(ng), np.diff(np.append(starts, n)))
    oi = np.flatnonzero(codes < 0)
    opens = np.zeros(n, np.int64)
    opens[oi[np.array([t in _OPENERS for t in batch.types], bool)]] = 1
    count = np.cumsum(opens)
    rnd = count - (count[starts] - opens[starts])[game_of] if n else count
    pi = np.flatnonzero(codes >= 0)
    play, g = codes[pi], game_of[pi]
    rounds = int(rnd.max()) + 1 if n else 1
    slot = g * rounds + rnd[pi]
    twice = np.zeros(ng, bool)
    if len(pi):
        card_count = np.bincount(slot * 32 + (play & 31))
        twice[(np.flatnonzero(card_count > 1) // 32) // rounds] = True
    by_seat = np.bincount(slot * 4 + (play >> 5), minlength=ng * rounds * 4)
    return BatchPlays(by_seat.reshape(ng, rounds, 4), twice)


def plays_fit(plays: BatchPlays, g: int, facts: list[Any]) -> bool:
    """Whether game ``g``'s plain plays (:class:`BatchPlays`) are those its stored facts were
    made of, as far as their counts tell: no card twice in a round, and as many cards of
    each seat in each round as the facts' ``plays_by_seat`` (the second last of a round's
    detail). A log changed behind the store's back (``jaslog verify`` finds it) fails this
    and is folded: the fold says what is wrong with it."""
    if plays.twice[g]:
        return False
    counts = plays.by_seat[g].tolist()  # (a game's few rounds: compared as lists)
    rounds = len(facts)
    if len(counts) <= rounds or any(counts[0]) or any(map(any, counts[rounds + 1:])):
        return False
    return counts[1:rounds + 1] == [list(f[7][-2]) for f in facts]


class _Times(Sequence[str | None]):
    """A stored game's times by seq, as RFC 3339 text (made when asked for, kept; ``got``:
    those made already)."""

    __slots__ = ("codes", "got", "lo", "n", "stored")

    def __init__(self, game: StoredGame, got: dict[int, str | None] | None = None) -> None:
        self.stored, self.lo, self.n = game, game.lo, game.hi - game.lo
        self.codes = game.batch.codes
        self.got: dict[int, str | None] = {} if got is None else got

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, seq: Any) -> Any:
        if isinstance(seq, slice):
            return [self[i] for i in range(*seq.indices(self.n))]
        got = self.got.get(seq, self)
        if got is not self:
            return got
        g = self.stored
        b, i = g.batch, self.lo + seq
        if self.codes[i] >= 0:
            text = None if b.at_null[i] else time_text(int(b.ats[i]))
        else:
            # (its event alone: the game's other events are read when asked for)
            k = g.first + int((self.codes[self.lo:i] < 0).sum())
            text = normalize_time(b.others[k].at)
        self.got[seq] = text
        return text


class _Context(GameContext):
    """The context of a stored game's rows, its times a :class:`_Times`: a time the batch
    wrote already (a round's first and last event's) read from it at once."""

    at: _Times

    def at_seq(self, seq: int) -> str | None:
        times = self.at
        got: Any = times.got.get(seq, _UNSET)
        if got is not _UNSET:
            return got  # type: ignore[no-any-return]
        return times[seq] if 0 <= seq < times.n else None


def _rounds_opened(built: BatchRows, g: int) -> tuple[dict[int, int], dict[int, bool]]:
    """Each round of the batch's game ``g``: the seq of its opener, and whether its deal
    carried hands."""
    first_seq: dict[int, int] = {}
    hands: dict[int, bool] = {}
    for r, seq, with_hands in built.openers[g]:
        first_seq[r] = seq
        hands[r] = with_hands
    return first_seq, hands


class StoredExport(Prebuilt):
    """A stored game as the export builds it (:func:`jaslog.export.dataset.build_chunks`):
    its rows from the batch's columns when it can (:meth:`build`), else its events."""

    __slots__ = ("stored",)

    def __init__(self, stored: StoredGame) -> None:
        self.stored = stored

    @property
    def game(self) -> str:
        return self.stored.game

    @property
    def last(self) -> int:
        return self.stored.last

    def events(self) -> list[Event]:
        return self.stored.events()

    def build(self, rows_for: Callable[[Partition], Rows]) -> bool:
        """Append the game's rows to ``rows_for(partition)`` from the batch's columns, as
        :func:`~jaslog.export.rows.build_game` would (False, and nothing appended: the game
        is not one built this way)."""
        sg = self.stored
        if sg.facts is not None:
            return self._from_facts(rows_for)
        if not sg.folded():
            return False
        fold, b = sg.fold, sg.batch
        if fold is None or sg.error is not None or fold.retracted or fold.irregularities \
                or b.table is None:
            return False
        adapter = export_adapter(get_game(fold.game))
        by_columns = getattr(adapter, "columnar", None)
        if by_columns is None:
            return False
        lo, n = sg.lo, len(sg)
        built: BatchRows = b.table
        g = built.game_at[lo]
        kinds = sg.types
        first_seq, hands = _rounds_opened(built, g)
        last_seq = built.last_seq[g]
        types = frozenset(kinds) | ({"play"} if len(kinds) < n else frozenset())
        at = _Times(sg, built.times[g])
        first = sg.head if b.codes[lo] < 0 else None
        started = first if isinstance(first, GameStarted) else None
        first_timed, last_timed = built.first_timed[g], built.last_timed[g]
        first_at = at[first_timed] if first_timed >= 0 else None
        last_at = at[last_timed] if last_timed >= 0 else None
        ruleset = started.ruleset if started is not None else None
        year = int(first_at[:4]) if first_at is not None else None

        ctx = _Context(sg.game, fold, (), at, {}, first_seq, last_seq, hands,
                          kinds.count("ruling"), types=types)  # type: ignore[arg-type]
        plan = by_columns(ctx)
        if plan is None:
            return False
        rows = ctx.rows = rows_for((ruleset, year))
        ctx.columnar = True
        out = rows["events"]
        assert isinstance(out, EventsColumns)
        start = len(out)
        out.add_table(built.events, lo, n)
        summary: Summary = adapter.build(ctx)
        plan.start, plan.size = start, n
        out.columnar.append(plan)
        ok = summary.violations == 0
        rows["games"].add(game_row(fold.game, started, fold, n, sg.last, summary, ok, None,
                                   first_at, last_at))
        for cols in rows.values():
            cols.fill_game(sg.game)
        return True

    def _from_facts(self, rows_for: Callable[[Partition], Rows]) -> bool:
        """The game's rows from the batch's columns and its stored round facts, not folded:
        its ``events`` rows from the batch's table, its plays and tricks a column at a time,
        its rounds, players and games rows from the facts (its game's ``stored_facts`` and
        ``build_stored``); as :meth:`build` writes them from its fold."""
        sg = self.stored
        b = sg.batch
        built: BatchRows | None = b.table
        start, facts = sg.facts
        lo, n = sg.lo, len(sg)
        g = built.game_at[lo] if built is not None else -1
        if built is None or not plays_fit(b.plays, g, facts):
            # a batch whose values do not fit a column, or plays the facts do not tell of
            # (changed behind the store's back): the game folded, as any other
            return sg.folded() and self.build(rows_for)
        # (a game's adapter with ``stored_facts`` has these two beside)
        adapter: Any = export_adapter(get_game(start.game))
        kinds = sg.types
        first_seq, hands = _rounds_opened(built, g)
        types = frozenset(kinds) | ({"play"} if len(kinds) < n else frozenset())
        at = _Times(sg, built.times[g])
        started = sg.head
        assert isinstance(started, GameStarted)
        first_timed, last_timed = built.first_timed[g], built.last_timed[g]
        first_at = at[first_timed] if first_timed >= 0 else None
        last_at = at[last_timed] if last_timed >= 0 else None
        year = int(first_at[:4]) if first_at is not None else None

        ctx = _Context(sg.game, start, (), at, {}, first_seq, built.last_seq[g], hands,
                          kinds.count("ruling"), types=types)  # type: ignore[arg-type]
        plan = adapter.columnar_stored(ctx, start, facts)
        rows = ctx.rows = rows_for((started.ruleset, year))
        ctx.columnar = True
        out = rows["events"]
        assert isinstance(out, EventsColumns)
        first_row = len(out)
        out.add_table(built.events, lo, n)
        summary: Summary = adapter.build_stored(ctx, start, facts)
        plan.start, plan.size = first_row, n
        out.columnar.append(plan)
        rows["games"].add(game_row(start.game, started, start, n, sg.last, summary,
                                   summary.violations == 0, None, first_at, last_at))
        for cols in rows.values():
            cols.fill_game(sg.game)
        return True
