"""``python -m prototypes.export_columnar``: a column-at-a-time export of Klaverjas games, measured.

A prototype, not the export: it builds the ``plays``, ``tricks`` and ``events`` tables (98% of
the dataset's rows) from the stored events with numpy and pyarrow, whole columns at a time,
instead of folding every event through the rules in Python and appending values to lists
(:mod:`jaslog.export.rows`). Positions in the trick, trick numbers, leaders and winners
(``np.maximum.reduceat`` over each trick's card strengths), card and trick points, the roem
on the table (the card mask of each trick against lookup tables) and the roem credited (each
claim against the trick it follows) are segment operations over the events in (game, seq)
order. What the rules judge is not worked out again: whether each play was legal and the
rule it broke, and whether a round's hands are known, are the *verdicts* of the fold
(:func:`fold_verdicts`; the import runs that fold already, and could store them beside the
events), timed and reported apart.

Games the columnar path does not handle (another game or trump selection, corrections,
claims, rulings, notes, score-only rounds, irregularities, bid violations, an integrity
error: anything outside game_started, dealt, bid, play and roem judged as the workload's
games are) go through the real row builder (:func:`jaslog.export.rows.build_game`) and are
counted.

The stored events are read two ways: a row at a time by a bare ``sqlite3`` cursor, as the
bench's floor reads them (:func:`fetch_rows`), or a game per row with each column joined by
SQLite (:func:`fetch_bulk`: ``group_concat``, the payloads by newlines). A play's seat and card
are read off the end of its canonical bytes with numpy (other events by a regular expression
over their last bytes).

The benchmark (:func:`main`) runs on the workload of :mod:`benchmarks.bench` (its ``--work``
folder: the log, the store its import stage fills and the dataset its export stage writes;
made here when missing), checks every value of the three tables against the real export's
(read back with pyarrow, sorted by the same keys), then times in this one process, on the
same data, pass after pass: the real export (``export_store``), ``write_table`` of the
finished tables, the floor (the stored events fetched by a bare cursor + ``write_table``) and
the columnar export both ways (fetch + build + ``write_table`` of the three tables built and
of the four small ones, ``rounds``, ``games``, ``players`` and ``violations``, taken finished
from the real export: the prototype does not build them), and prints the ratios as the bench
does. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from benchmarks.bench_stages import Work, games_of_log
from jaslog.cards import CARD_TEXT, PLAIN_STRENGTH, RANK_MASK, SUIT_LETTERS, TRUMP_STRENGTH
from jaslog.engine.fold import FoldError
from jaslog.engine.jacknine import CARD_POINTS, RUN_LENGTH
from jaslog.events import Event, parse_event
from jaslog.export.columns import RANK_OF, SUIT_OF
from jaslog.export.plays import columns_for
from jaslog.export.rows import Rows, build_game
from jaslog.export.schema import COLUMNS, SCHEMAS, TABLES, TS
from jaslog.games import resolve
from jaslog.games.klaverjas.rules.play import STUK
from jaslog.play.fold import start_fold

#: The tables built a column at a time, and the keys both sides are sorted by to compare them.
BUILT: dict[str, tuple[str, ...]] = {
    "plays": ("game", "seq"),
    "tricks": ("game", "round", "trick"),
    "events": ("game", "seq"),
}
#: The event types the columnar path reads; a game with any other goes the real way.
HANDLED_TYPES = frozenset({"game_started", "dealt", "bid", "play", "roem"})
FETCH_SQL = "SELECT game, seq, type, at, event_id, payload FROM events ORDER BY game, seq"
JACK = 4
#: The roem kinds of ``tricks.roem_parts``, by code.
ROEM_KINDS = ("four_jacks", "four_of_a_kind", "run4", "run3", "stuk")

_CARD = pa.array(CARD_TEXT, pa.string())
_SUIT = pa.array(SUIT_OF, pa.string())
_RANK = pa.array(RANK_OF, pa.string())
_SUIT_LETTER = pa.array(list(SUIT_LETTERS), pa.string())
_TRUMP_STRENGTH = np.array(TRUMP_STRENGTH, np.int16)
_PLAIN_STRENGTH = np.array(PLAIN_STRENGTH, np.int16)
_POINTS = np.array(CARD_POINTS, np.int16)                    # [trump, card]
_RUN_LENGTH = np.array(RUN_LENGTH, np.int8)                  # by an 8-bit rank set
_RANK_MASK = np.array(RANK_MASK, np.uint32)                  # by rank: its four cards
_STUK = np.array(STUK, np.uint32)                            # by trump: its king and queen
_TYPES = {t: {c.name: c.type for c in COLUMNS[t]} for t in TABLES}
_PAYLOAD_FIELDS = (r'"seat":(?P<seat>\d+)(?:,"card":"(?P<card>[^"]+)"|,"call":"(?P<call>[^"]+)"'
                   r'|,"points":(?P<points>\d+))?')


# ------------------------------------------------------------------ the verdicts of the fold


@dataclass
class Verdict:
    """What the fold judged in one game the columnar path can build: the rule each illegal
    play broke (by seq), and for each round (in order) whether its hands are known (its
    plays are judged; else ``plays.legal`` is NULL)."""

    rules: list[tuple[int, str]] = field(default_factory=list)
    known: list[bool] = field(default_factory=list)


#: game id -> its verdict, or why the columnar path leaves the game to the real export.
Verdicts = dict[str, Verdict | str]


def game_verdict(events: Sequence[Event]) -> Verdict | str:
    """Fold one game and keep its verdicts (or say why it is not for the columnar path).

    >>> from jaslog.play.sim import simulate, to_jsonl
    >>> events = [parse_event(line) for line in to_jsonl(simulate(1, ["amsterdam"], seed=2))]
    >>> v = game_verdict(events)
    >>> v.rules, all(v.known), len(v.known) == sum(e.type == "dealt" for e in events)
    ([], True, True)
    """
    other = {e.type for e in events} - HANDLED_TYPES
    if other:
        return "events " + ", ".join(sorted(other))
    try:
        f = start_fold(events[0])
        for e in events[1:]:
            f.apply(e)
    except FoldError as err:
        return f"integrity error {err.code}"
    if f.game != "klaverjas":
        return f"game {f.game}"
    if f.retracted or f.irregularities:
        return "corrections or irregularities"
    g = f.state
    out = Verdict()
    for v in g.violations:
        if v.card is not None:
            out.rules.append((v.seq, v.rule))
        elif not v.rule.startswith("roem"):
            return f"violation {v.rule}"
    for r in g.rounds:
        if r.score_only is not None or r.claim is not None or r.rulings:
            return "score-only, claimed or ruled round"
        out.known.append(bool(r.hands_known))
    return out


def fold_verdicts(games: Iterable[Sequence[Event]]) -> Verdicts:
    """The verdicts of every game (each its parsed events in seq order), by game id."""
    return {events[0].game: game_verdict(events) for events in games if events}


# ------------------------------------------------------------------ the stored events


@dataclass
class Stored:
    """The store's events in key order (game, seq), a column each."""

    games: list[str]       # game ids, in key order
    sizes: np.ndarray      # events of each game
    seq: np.ndarray
    type: pa.Array
    at: pa.Array
    event_id: pa.Array
    payload: pa.Array      # large_binary: the stored canonical bytes

    @property
    def n(self) -> int:
        return len(self.seq)

    @property
    def starts(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)


def _binary(data: bytes, offsets: np.ndarray) -> pa.Array:
    return pa.Array.from_buffers(pa.large_binary(), len(offsets) - 1,
                                 [None, pa.py_buffer(offsets.astype(np.int64)),
                                  pa.py_buffer(data)])


def _fetch_all(path: str | Path, sql: str) -> list[Any]:
    """The rows of ``sql`` on the store file at ``path``, opened read-only."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def fetch_rows(path: str | Path) -> Stored:
    """Every stored event by one ``sqlite3`` cursor in key order, a row at a time (as the
    floor fetches them), turned into columns."""
    rows = _fetch_all(path, FETCH_SQL)
    if not rows:
        return _empty()
    games, seqs, types, ats, ids, payloads = zip(*rows, strict=True)
    del rows
    seq = np.array(seqs, np.int32)
    starts = np.flatnonzero(seq == 0)
    offsets = np.zeros(len(seq) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, payloads), np.int64, len(payloads)), out=offsets[1:])
    return Stored([games[i] for i in starts], np.diff(np.append(starts, len(seq))), seq,
                  pa.array(types, pa.string()), pa.array(ats, pa.string()),
                  pa.array(ids, pa.string()), _binary(b"".join(payloads), offsets))


#: One row per game: its events' columns each joined by SQLite into one text (payloads by
#: newlines, which canonical JSON never holds raw), in the primary key's order.
BULK_SQL = ("SELECT game, count(*), group_concat(seq), group_concat(type), "
            "group_concat(coalesce(at, '')), group_concat(coalesce(event_id, '')), "
            "CAST(group_concat(payload, char(10)) AS BLOB) FROM events GROUP BY game "
            "ORDER BY game")


def _split(texts: Sequence[str]) -> pa.Array:
    joined = pa.array([",".join(texts)], pa.large_string())
    return pc.split_pattern(joined, ",").flatten().cast(pa.string())


def fetch_bulk(path: str | Path) -> Stored:
    """Every stored event, a game per row, each column joined by SQLite (``group_concat``
    follows the primary key's order, (game, seq): checked against the seqs)."""
    rows = _fetch_all(path, BULK_SQL)
    if not rows:
        return _empty()
    games, counts, seqs, types, ats, ids, payloads = zip(*rows, strict=True)
    del rows
    sizes = np.array(counts, np.int64)
    n = int(sizes.sum())
    seq = _np(_split(seqs).cast(pa.int32()))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    if not np.array_equal(seq, np.arange(n) - np.repeat(starts, sizes)):
        raise AssertionError("group_concat did not keep the key order (game, seq)")
    null = pa.scalar(None, pa.string())
    at, eid = (pc.if_else(pc.equal(x, ""), null, x) for x in (_split(ats), _split(ids)))
    payload = pc.split_pattern(pa.array(payloads, pa.large_binary()), b"\n").flatten()
    if len(payload) != n:
        raise AssertionError("a stored payload holds a raw newline")
    return Stored(list(games), sizes, seq, _split(types), at, eid, payload)


def _empty() -> Stored:
    e = pa.array([], pa.string())
    return Stored([], np.zeros(0, np.int64), np.zeros(0, np.int32), e, e, e,
                  pa.array([], pa.large_binary()))


FETCHES = {"rows": fetch_rows, "bulk": fetch_bulk}


# ------------------------------------------------------------------ building the tables


def _np(a: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(a.to_numpy(zero_copy_only=False))


def _arr(values: np.ndarray, type_: pa.DataType, null: np.ndarray | None = None) -> pa.Array:
    return pa.array(values, type_, mask=null if null is not None and null.any() else None)


def _event_time(at: pa.Array) -> pa.Array:
    """RFC 3339 text as the export normalizes it (``T``, upper-case ``Z``), as timestamps."""
    at = pc.replace_substring_regex(at, r"^(.{10})[^T]", r"\1T")
    at = pc.replace_substring_regex(at, "z$", "Z")
    return at.cast(TS)


def _lookup(values: pa.Array, index: np.ndarray) -> pa.Array:
    """``values`` taken by ``index`` (negative: NULL), through a dictionary array."""
    null = index < 0
    codes = pa.array(index.astype(np.int32), pa.int32(), mask=null if null.any() else None)
    return pa.DictionaryArray.from_arrays(codes, values).cast(values.type)


_QUOTE = ord('"')
_RANK_CHAR = np.full(256, -1, np.int64)
for _r, _c in enumerate("789?JQKA"):
    if _c != "?":
        _RANK_CHAR[ord(_c)] = _r
_SUIT_CHAR = np.full(256, -1, np.int64)
for _s, _c in enumerate(SUIT_LETTERS):
    _SUIT_CHAR[ord(_c)] = _s


def _tail_is(data: np.ndarray, at: np.ndarray, text: bytes) -> np.ndarray:
    """Whether the bytes of ``data`` from each of ``at`` are ``text``: unaligned 8-byte words
    (the first and the last eight bytes of a longer text), not a comparison per byte."""
    words = np.ndarray((max(len(data) - 7, 0),), "<u8", buffer=data, strides=(1,))
    if len(text) >= 8:
        head, tail = int.from_bytes(text[:8], "little"), int.from_bytes(text[-8:], "little")
        return (words[at] == np.uint64(head)) & (words[at + len(text) - 8] == np.uint64(tail))
    if not len(at) or at.max() < len(words):  # the word's bytes past the text are masked
        mask = np.uint64((1 << 8 * len(text)) - 1)
        return (words[at] & mask) == np.uint64(int.from_bytes(text, "little"))
    ok = np.ones(len(at), bool)
    for k, ch in enumerate(text):
        ok &= data[at + k] == ch
    return ok


def _text(payload: pa.Array) -> pa.Array:
    """The stored payloads as the ``payload`` column (``string``): the same bytes, not
    checked again (the store holds canonical JSON, valid UTF-8, well under 2 GiB a chunk)."""
    n = len(payload)
    off = np.frombuffer(payload.buffers()[1], np.int64)[payload.offset:payload.offset + n + 1]
    if off[-1] >= 2**31:
        return payload.cast(pa.large_string()).cast(pa.string())
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(off.astype(np.int32)),
                                                  payload.buffers()[2]])


def _payload_fields(payload: pa.Array, is_play: np.ndarray, is_other: np.ndarray,
                    ) -> tuple[np.ndarray, np.ndarray, pa.Array, pa.Array]:
    """Seat (-1: none), card (0-31, -1: none), call and roem points of every event, read off
    its canonical bytes: a play's tail is ``"seat":S,"card":"RS"}`` at fixed places from its
    end (checked byte by byte); other events, and any play not in that form, by a regular
    expression over their last bytes."""
    n = len(payload)
    off = np.frombuffer(payload.buffers()[1], np.int64)[payload.offset:payload.offset + n + 1]
    data = np.frombuffer(payload.buffers()[2], np.uint8)
    seat = np.full(n, -1, np.int64)
    card = np.full(n, -1, np.int64)
    p = np.flatnonzero(is_play)
    e = off[p + 1]
    ok = e - off[p] > 24
    e = np.where(ok, e, off[p] + 24)                  # (too short: not read, left to the regex)
    ten = (data[e - 5] != _QUOTE).astype(np.int64)
    rank = np.where(ten == 1, np.where(data[e - 4] == ord("0"), 3, -1), _RANK_CHAR[data[e - 4]])
    suit = _SUIT_CHAR[data[e - 3]]
    digit = data[e - 14 - ten].astype(np.int64) - ord("0")
    ok &= (data[e - 1] == ord("}")) & (data[e - 2] == _QUOTE) & (rank >= 0) & (suit >= 0) \
        & ((ten == 0) | (data[e - 5] == ord("1"))) & (digit >= 0) & (digit <= 9) \
        & _tail_is(data, e - 21 - ten, b'"seat":') & _tail_is(data, e - 13 - ten, b',"card":"')
    seat[p[ok]] = digit[ok]
    card[p[ok]] = suit[ok] * 8 + rank[ok]
    rest = np.flatnonzero(is_other)
    if not ok.all():
        rest = np.sort(np.concatenate([rest, p[~ok]]))
    tail = pc.utf8_slice_codeunits(payload.take(pa.array(rest)).cast(pa.large_string()), -64)
    found = pc.extract_regex(tail, _PAYLOAD_FIELDS)
    into = np.full(n, -1, np.int64)
    into[rest] = np.arange(len(rest))
    where = _arr(into, pa.int64(), into < 0)

    def field_of(name: str) -> pa.Array:
        f = pc.struct_field(found, name)
        return pc.if_else(pc.fill_null(pc.not_equal(f, ""), False), f,
                          pa.scalar(None, f.type))

    s = field_of("seat")
    there = ~_np(pc.is_null(s))
    seat[rest[there]] = _np(s.drop_null().cast(pa.int64()))
    c = pc.index_in(field_of("card"), value_set=_CARD)
    there = ~_np(pc.is_null(c))
    card[rest[there]] = _np(c.drop_null())
    call = field_of("call").cast(pa.string()).take(where)
    points = field_of("points").cast(pa.int32()).take(where)
    return seat, card, call, points


@dataclass
class _GameParams:
    """What the columnar path reads of a game's options, per game."""

    ok: str | None
    seats: list[str]
    bonus: int = 0
    run3: int = 0
    run4: int = 0
    stuk: int = 0
    four_kind: int = 0
    four_jacks: int = 0
    four_ranks: int = 0      # 8-bit set of the ranks whose four of a kind score four_kind
    claimed: bool = True     # roem credited as claimed (else: as on the table)
    by_winner: bool = False  # only the trick's winning team may claim its roem


_OPTIONS: dict[bytes, dict[str, Any]] = {}


def _params(started: dict[str, Any]) -> _GameParams:
    seats = list(started.get("seats") or [])
    key = orjson.dumps([started.get("ruleset"), started.get("options")],
                       option=orjson.OPT_SORT_KEYS)
    o = _OPTIONS.get(key)
    if o is None:
        try:
            o = _OPTIONS[key] = resolve(started["ruleset"], started.get("options"))
        except Exception as e:  # the fold says what is wrong
            return _GameParams(f"options ({e})", seats)
    if o.get("game") != "klaverjas" or o["trump_selection"] != "free" or len(seats) != 4:
        return _GameParams("not Klaverjas with a free choice of trumps", seats)
    if o["roem.three_of_a_kind"]:
        return _GameParams("roem.three_of_a_kind", seats)
    ranks = sum(1 << RANK_OF.index(r) for r in o["roem.four_kind_ranks"])
    return _GameParams(None, seats, int(o["last_trick_bonus"]), int(o["roem.run3"]),
                       int(o["roem.run4"]), int(o["roem.stuk"]), int(o["roem.four_kind"]),
                       int(o["roem.four_jacks"]), ranks, o["roem.claim_mode"] == "claimed",
                       o["roem.claim_by"] == "winning_team")


@dataclass
class Columnar:
    """The columnar path's tables (its games only) and the games it left to the real export."""

    tables: dict[str, pa.Table]
    games: int
    fallback: dict[str, str]  # game id -> why


def build_columnar(stored: Stored, verdicts: Verdicts) -> Columnar:
    """The ``plays``, ``tricks`` and ``events`` tables of the stored Klaverjas games, built a
    column at a time; games without a usable verdict are left out (``fallback``)."""
    starts, ids = stored.starts, stored.games
    params = [_params(orjson.loads(stored.payload[int(i)].as_py())) for i in starts]
    fallback: dict[str, str] = {}
    for gid, p in zip(ids, params, strict=True):
        v = verdicts.get(gid, "no verdict")
        if p.ok is not None:
            fallback[gid] = p.ok
        elif isinstance(v, str):
            fallback[gid] = v
    keep_game = np.array([gid not in fallback for gid in ids], bool)
    game_of = np.repeat(np.arange(len(ids)), stored.sizes)

    type_, at, event_id, payload = stored.type, stored.at, stored.event_id, stored.payload
    seq = stored.seq
    if not keep_game.all():
        keep = np.flatnonzero(keep_game[game_of])
        take = pa.array(keep)
        type_, at, event_id, payload = (x.take(take) for x in (type_, at, event_id, payload))
        seq, game_of = seq[keep], game_of[keep]
    n = len(seq)
    kept = np.flatnonzero(keep_game)
    gsize = stored.sizes[kept]
    gstart = np.concatenate([[0], np.cumsum(gsize)[:-1]]).astype(np.int64)
    gid_arr = pa.array(ids, pa.string())

    # per game (index into ids): options, players
    def per_game(name: str) -> np.ndarray:
        return np.array([getattr(p, name) for p in params], np.int64)

    bonus, run3, run4, stuk_pts = (per_game(x) for x in ("bonus", "run3", "run4", "stuk"))
    four_kind, four_jacks, four_ranks = (per_game(x) for x in ("four_kind", "four_jacks",
                                                                "four_ranks"))
    claimed_mode = np.array([p.claimed for p in params], bool)
    by_winner = np.array([p.by_winner for p in params], bool)
    players = pa.array([s for p in params for s in (p.seats + [""] * 4)[:4]], pa.string())

    # events: the raw columns, and the round each event belongs to
    kind = pc.dictionary_encode(type_)
    names = kind.dictionary.to_pylist()
    codes = _np(kind.indices)

    def is_(t: str) -> np.ndarray:
        return codes == names.index(t) if t in names else np.zeros(n, bool)

    is_dealt, is_bid, is_play, is_roem = is_("dealt"), is_("bid"), is_("play"), is_("roem")
    dealt_cum = np.cumsum(is_dealt)                         # global round number, from 1
    before = dealt_cum[gstart] - is_dealt[gstart]
    round_ev = dealt_cum - np.repeat(before, gsize)
    seat, card_ev, call_txt, points = _payload_fields(payload, is_play, is_bid | is_roem)
    try:
        event_time = at.cast(TS)
    except pa.ArrowInvalid:  # times Arrow reads only once normalized
        event_time = _event_time(at)
    events = pa.Table.from_arrays([
        _lookup(gid_arr, game_of), pa.array(seq, pa.int32()), type_, event_time,
        _arr(round_ev.astype(np.int16), pa.int16(), round_ev == 0),
        _arr(seat, pa.int8(), seat < 0), _lookup(_CARD, card_ev), call_txt, points, event_id,
        pa.array(np.zeros(n, bool)), pa.nulls(n, pa.int32()),
        _text(payload),
    ], schema=SCHEMAS["events"])

    # rounds (global number): trumps and who chose them, from the bid naming a suit
    rounds = int(dealt_cum[-1]) + 1 if n else 1
    trump_r = np.full(rounds, -1, np.int64)
    chooser_r = np.full(rounds, -1, np.int64)
    bids = np.flatnonzero(is_bid)
    suit_of_call = pc.index_in(call_txt.take(pa.array(bids)), value_set=_SUIT_LETTER)
    named = ~_np(pc.is_null(suit_of_call))
    trump_r[dealt_cum[bids[named]]] = _np(suit_of_call.drop_null())
    chooser_r[dealt_cum[bids[named]]] = seat[bids[named]]
    known_r = np.zeros(rounds, bool)
    rule_names: list[str] = []
    rule_ev = np.full(n, -1, np.int64)
    rnd_at = 0
    for gi, g0 in zip(kept, gstart, strict=True):
        v = verdicts[ids[gi]]
        assert isinstance(v, Verdict)
        k = len(v.known)
        known_r[rnd_at + 1:rnd_at + 1 + k] = v.known
        rnd_at += k
        for s, rule in v.rules:
            if rule not in rule_names:
                rule_names.append(rule)
            rule_ev[g0 + s] = rule_names.index(rule)
    if rnd_at != rounds - 1:
        raise AssertionError("the fold's rounds are not the dealt events")

    # plays: position in the round's play, trick, winner, points
    pidx = np.flatnonzero(is_play)
    p_n = len(pidx)
    p_round = dealt_cum[pidx]
    p_game = game_of[pidx]
    first = np.ones(p_n, bool)
    first[1:] = p_round[1:] != p_round[:-1]
    group = np.flatnonzero(first)
    pos = np.arange(p_n) - np.repeat(group, np.diff(np.append(group, p_n)))
    trick_no = pos // 4 + 1
    position = pos % 4
    card = card_ev[pidx]
    p_seat = seat[pidx].astype(np.int64)
    suit, rank = card >> 3, card & 7
    trump = trump_r[p_round]
    chooser = chooser_r[p_round]
    tstart = np.flatnonzero(position == 0)
    t_n = len(tstart)
    tsize = np.diff(np.append(tstart, p_n))
    trick_of = np.repeat(np.arange(t_n), tsize)
    led = suit[tstart][trick_of]
    strength = np.where(suit == trump, 16 + _TRUMP_STRENGTH[rank],
                        np.where(suit == led, _PLAIN_STRENGTH[rank], -1))
    best = np.maximum.reduceat(strength, tstart) if p_n else strength
    win_at = np.flatnonzero(strength == best[trick_of])
    win = position[win_at]
    complete = tsize == 4
    cpoints = _POINTS[trump, card]
    t_round, t_game, t_trump = p_round[tstart], p_game[tstart], trump[tstart]
    t_number = trick_no[tstart]
    t_points = (np.add.reduceat(cpoints.astype(np.int64), tstart) if p_n else cpoints) \
        + np.where(t_number == 8, bonus[t_game], 0)
    leader = p_seat[tstart]
    winner = (leader + win) % 4
    pteam = chooser_r[t_round] & 1

    # roem on the table: the trick's card mask against lookup tables (as ``trick_value``)
    mask = np.bitwise_or.reduceat(np.left_shift(np.uint32(1), card.astype(np.uint32)), tstart) \
        if p_n else np.zeros(0, np.uint32)
    r0 = rank[tstart]
    four = complete & (mask == _RANK_MASK[r0])
    runs = np.max([_RUN_LENGTH[(mask >> np.uint32(8 * s)) & np.uint32(0xFF)] for s in range(4)],
                  axis=0) if t_n else np.zeros(0, np.int8)
    stuk_mask = _STUK[np.maximum(t_trump, 0)]
    has_stuk = complete & ~four & ((mask & stuk_mask) == stuk_mask)
    run_kind = np.where(runs >= 4, 2, np.where(runs == 3, 3, -1))
    has_run = complete & ~four & (run_kind >= 0)
    run_pts = np.where(run_kind == 2, run4[t_game], np.where(run_kind == 3, run3[t_game], 0))
    four_pts = np.where(r0 == JACK, four_jacks[t_game],
                        np.where((four_ranks[t_game] >> r0) & 1 == 1, four_kind[t_game], 0))
    roem = np.where(four, four_pts, np.where(has_run, run_pts, 0)
                    + np.where(has_stuk, stuk_pts[t_game], 0))
    kind1 = np.where(four, np.where(r0 == JACK, 0, 1), np.where(has_run, run_kind, 4))
    pts1 = np.where(four, four_pts, np.where(has_run, run_pts, stuk_pts[t_game]))
    count = np.where(four, 1, has_run.astype(np.int64) + has_stuk)
    slots = np.stack([count >= 1, count >= 2], axis=1)
    kinds = np.stack([kind1, np.full(t_n, 4)], axis=1)[slots]
    kpts = np.stack([pts1, stuk_pts[t_game]], axis=1)[slots]
    parts = pa.ListArray.from_arrays(
        pa.array(np.concatenate([[0], np.cumsum(count)]), pa.int32()),
        pa.StructArray.from_arrays([pa.array(ROEM_KINDS).take(pa.array(kinds)),
                                    pa.array(kpts, pa.int16())], names=["kind", "points"]))

    # roem credited: each claim against the trick just completed in its round (else late)
    ev_index = np.arange(n)
    last_play = np.maximum.accumulate(np.where(is_play, ev_index, -1))
    play_no = np.cumsum(is_play) - 1
    credited = np.zeros(t_n, np.int64)
    ridx = np.flatnonzero(is_roem)
    lp = last_play[ridx]
    ok = lp >= 0
    ridx, lp = ridx[ok], lp[ok]
    pl = play_no[lp]
    claim_t = trick_of[pl]
    claim_pts = _np(points.take(pa.array(ridx)).cast(pa.int64()))
    valid = (position[pl] == 3) & (dealt_cum[lp] == dealt_cum[ridx]) \
        & (game_of[lp] == game_of[ridx]) & (claim_pts <= roem[claim_t]) \
        & (~by_winner[game_of[ridx]] | ((seat[ridx] & 1) == (winner[claim_t] & 1)))
    np.maximum.at(credited, claim_t[valid], claim_pts[valid])
    credited = np.where(claimed_mode[t_game], credited, roem)

    incomplete = ~complete
    t_texts = pa.ListArray.from_arrays(pa.array(np.append(tstart, p_n), pa.int32()),
                                       _lookup(_CARD, card))
    t_first_ev = pidx[tstart]
    t_last_ev = pidx[tstart + tsize - 1]
    tricks = pa.Table.from_arrays([
        _lookup(gid_arr, t_game), pa.array(round_ev[t_first_ev], pa.int16()),
        pa.array(t_number, pa.int8()), pa.array(leader, pa.int8()),
        _lookup(players, t_game * 4 + leader), t_texts, pa.array(complete),
        _arr(winner, pa.int8(), incomplete), _lookup(players, np.where(incomplete, -1,
                                                                   t_game * 4 + winner)),
        _arr(winner & 1, pa.int8(), incomplete), _lookup(_SUIT_LETTER, t_trump),
        _arr(t_points, pa.int16(), incomplete), _arr(roem, pa.int16(), incomplete),
        _arr(credited, pa.int16(), incomplete), parts,
        _arr((winner & 1) == pteam, pa.bool_(), incomplete),
        pa.array(seq[t_first_ev], pa.int32()), pa.array(seq[t_last_ev], pa.int32()),
    ], schema=SCHEMAS["tricks"])

    p_rule = rule_ev[pidx]
    broke = p_rule >= 0
    rule = pa.array(rule_names, pa.string()).take(_arr(p_rule, pa.int64(), ~broke))
    known = known_r[p_round]
    p_incomplete = incomplete[trick_of]
    plays = pa.Table.from_arrays([
        _lookup(gid_arr, p_game), pa.array(round_ev[pidx], pa.int16()),
        pa.array(trick_no, pa.int8()), pa.array(position, pa.int8()),
        pa.array(seq[pidx], pa.int32()), pa.array(p_seat, pa.int8()),
        _lookup(players, p_game * 4 + p_seat), pa.array(p_seat & 1, pa.int8()),
        _lookup(_CARD, card), _lookup(_SUIT, card), _lookup(_RANK, card),
        _lookup(_SUIT_LETTER, trump), pa.array(suit == trump),
        _arr(~broke, pa.bool_(), ~known), rule,
        _arr(position == win[trick_of], pa.bool_(), p_incomplete),
        pa.array(cpoints, pa.int16()),
        _arr(t_points[trick_of], pa.int16(), p_incomplete),
        pa.array((p_seat & 1) == (chooser & 1)), pa.array(p_seat == chooser),
        events.column("event_time").take(pa.array(pidx)), pa.nulls(p_n, _TYPES["plays"]["loss"]),
    ], schema=SCHEMAS["plays"])
    return Columnar({"plays": plays, "tricks": tricks, "events": events}, len(kept), fallback)


# ------------------------------------------------------------------ the real path, the export


def real_tables(games: Iterable[Sequence[Event]]) -> dict[str, pa.Table]:
    """The tables the real row builder makes of ``games`` (one partition: no Hive columns)."""
    rows: Rows = {t: columns_for(t) for t in TABLES}
    for events in games:
        build_game(events, lambda _part: rows)
    return {t: rows[t].to_table() for t in TABLES}


def stored_games(stored: Stored, ids: Iterable[str]) -> list[list[Event]]:
    """The stored events of the games ``ids``, parsed (the fallback's input)."""
    want = set(ids)
    return [[parse_event(stored.payload[i].as_py()) for i in range(a, a + size)]
            for gid, a, size in zip(stored.games, stored.starts.tolist(), stored.sizes.tolist(),
                                    strict=True) if gid in want]


def columnar_export(stored: Stored, verdicts: Verdicts) -> tuple[Columnar, dict[str, pa.Table]]:
    """The three tables of every stored game: the columnar path's, with the games it left
    built by the real row builder appended."""
    built = build_columnar(stored, verdicts)
    tables = dict(built.tables)
    if built.fallback:
        real = real_tables(stored_games(stored, built.fallback))
        for t in BUILT:
            tables[t] = pa.concat_tables([tables[t], real[t]])
    return built, tables


# ------------------------------------------------------------------ equality


@dataclass
class Equality:
    """Every value of the built tables against the real export's."""

    columns: int = 0
    values: int = 0
    differing: dict[str, int] = field(default_factory=dict)  # "table.column" -> values
    rows: dict[str, tuple[int, int]] = field(default_factory=dict)  # table -> (ours, real)

    @property
    def total_differing(self) -> int:
        return sum(self.differing.values())

    def to_json(self) -> dict[str, Any]:
        return {"columns": self.columns, "values": self.values, "rows": self.rows,
                "differing": self.total_differing,
                "differing_by_column": {k: v for k, v in self.differing.items() if v}}


def _differing(a: pa.Array, b: pa.Array) -> int:
    if a.type != b.type:
        return len(a)
    try:
        eq = pc.fill_null(pc.equal(a, b), False)
        same = pc.or_(eq, pc.and_(pc.is_null(a), pc.is_null(b)))
        return len(a) - int(pc.sum(same).as_py() or 0)
    except pa.ArrowNotImplementedError:  # lists, structs: value by value in Python
        return sum(x != y for x, y in zip(a.to_pylist(), b.to_pylist(), strict=True))


def compare(ours: dict[str, pa.Table], real: dict[str, pa.Table]) -> Equality:
    """Sort both sides by each table's keys and count the values that differ, column by
    column (a table whose row count differs counts every value of the longer as differing)."""
    out = Equality()
    for t, keys in BUILT.items():
        a = ours[t].sort_by([(k, "ascending") for k in keys])
        b = real[t].cast(SCHEMAS[t]).sort_by([(k, "ascending") for k in keys])
        out.rows[t] = (a.num_rows, b.num_rows)
        for c in SCHEMAS[t].names:
            out.columns += 1
            out.values += max(a.num_rows, b.num_rows)
            if a.num_rows != b.num_rows:
                out.differing[f"{t}.{c}"] = max(a.num_rows, b.num_rows)
                continue
            out.differing[f"{t}.{c}"] = _differing(a.column(c).combine_chunks(),
                                                   b.column(c).combine_chunks())
    return out


# ------------------------------------------------------------------ the benchmark


def prepare(work: Work, games: int, seed: int) -> None:
    """The bench's workload, store and real export in ``work`` (made when missing or stale)."""
    from rich.console import Console

    from benchmarks.bench import build_workload, run_stage

    console = Console(stderr=True)
    build_workload(work, games, seed, console)
    stamp = work.dir / "columnar-store.json"
    want = {"log_bytes": work.log.stat().st_size, "log_mtime": work.log.stat().st_mtime}
    fresh = work.store.exists() and stamp.exists() and json.loads(stamp.read_text()) == want
    if not fresh:
        for stage in ("import", "export"):
            console.print(f"{stage} stage...", style="dim")
            r = run_stage(stage, work)
            if "failed" in r or "unavailable" in r:
                raise SystemExit(f"the bench's {stage} stage: {r}")
        stamp.write_text(json.dumps(want))
    elif not (work.parquet / "current").exists():
        run_stage("export", work)


def _cpu() -> float:
    """CPU seconds of this process and of the children it has waited for (export workers)."""
    import resource

    own = time.process_time()
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + kids.ru_utime + kids.ru_stime


def _timed(fn: Any) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds, what ``fn`` returned)."""
    import gc

    gc.collect()
    c0, t0 = _cpu(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, _cpu() - c0, out


#: The contenders timed, in the order they run in each pass, with their labels.
CONTENDERS = {
    "export": "real export (export_store)",
    "write_table": "write_table, finished tables",
    "floor": "floor: fetch + write_table",
    "columnar": "columnar, bulk fetch",
    "columnar_rows": "columnar, cursor fetch",
}


def run(work: Work, repeat: int) -> dict[str, Any]:
    """Verify, then time every contender ``repeat`` times in this process; the figures."""
    from benchmarks.export_perf import arrow_tables, write_arrow
    from jaslog.export import export_store
    from jaslog.store import open_store

    real = arrow_tables(work.parquet)
    rows = sum(t.num_rows for t in real.values())
    parsed = list(games_of_log(work.log))                 # parsing: off the clock
    t_fold, c_fold, verdicts = _timed(lambda: fold_verdicts(parsed))
    del parsed
    equal: dict[str, Any] = {}
    for how, fetch in FETCHES.items():
        stored = fetch(work.store)
        built, ours = columnar_export(stored, verdicts)
        equal[how] = compare(ours, real).to_json()
        del stored, ours
    others = {t: real[t] for t in TABLES if t not in BUILT}
    out_dir = work.dir / "columnar-parquet"
    real_dir = work.dir / "columnar-real-export"
    #: "floor", "bulk", "rows" -> phase -> [(wall, CPU) seconds, a pass each]
    phases: dict[str, dict[str, list[tuple[float, float]]]] = {
        k: {"fetch": [], "build": [], "write": []} for k in ("floor", "bulk", "rows")}

    def clock(of: str, phase: str, t0: tuple[float, float]) -> tuple[float, float]:
        now = time.perf_counter(), _cpu()
        phases[of][phase].append((now[0] - t0[0], now[1] - t0[1]))
        return now

    def columnar(how: str) -> int:
        t = time.perf_counter(), _cpu()
        s = FETCHES[how](work.store)
        t = clock(how, "fetch", t)
        _, tables = columnar_export(s, verdicts)
        del s
        t = clock(how, "build", t)
        written = write_arrow({**tables, **others}, out_dir)
        clock(how, "write", t)
        return written

    def floor() -> int:
        t = time.perf_counter(), _cpu()
        con = sqlite3.connect(work.store)
        try:
            cur = con.execute("SELECT game, seq, version, payload FROM events ORDER BY game, seq")
            while cur.fetchmany(20_000):
                pass
        finally:
            con.close()
        t = clock("floor", "fetch", t)
        written = write_arrow(real, out_dir)
        clock("floor", "write", t)
        return written

    def export() -> int:
        shutil.rmtree(real_dir, ignore_errors=True)
        with open_store(str(work.store)) as store:
            result = export_store(store, real_dir)
        return sum(result.rows_total.values())

    fns = {"export": export, "write_table": lambda: write_arrow(real, out_dir), "floor": floor,
           "columnar": lambda: columnar("bulk"), "columnar_rows": lambda: columnar("rows")}
    runs: dict[str, list[float]] = {k: [] for k in CONTENDERS}
    cpu: dict[str, list[float]] = {k: [] for k in CONTENDERS}
    folds, fold_cpu = [t_fold], [c_fold]
    for i in range(repeat):
        for name in CONTENDERS:
            seconds, cpu_seconds, written = _timed(fns[name])
            if written != rows:
                raise AssertionError(f"{name} wrote {written} rows, the dataset holds {rows}")
            runs[name].append(seconds)
            cpu[name].append(cpu_seconds)
        if i:
            parsed = list(games_of_log(work.log))
            wall, used, _ = _timed(lambda p=parsed: fold_verdicts(p))  # type: ignore[misc]
            folds.append(wall)
            fold_cpu.append(used)
            del parsed
    shutil.rmtree(real_dir, ignore_errors=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    best = {k: min(v) for k, v in runs.items()}
    best_cpu = {k: min(v) for k, v in cpu.items()}
    fold, fold_c = min(folds), min(fold_cpu)

    def ratios(s: dict[str, float]) -> dict[str, float]:
        return {"columnar/write_table": s["write_table"] / s["columnar"],
                "columnar/floor": s["floor"] / s["columnar"],
                "columnar_rows/write_table": s["write_table"] / s["columnar_rows"],
                "columnar_rows/floor": s["floor"] / s["columnar_rows"],
                "export/write_table": s["write_table"] / s["export"],
                "export/floor": s["floor"] / s["export"],
                "floor/write_table": s["write_table"] / s["floor"],
                "columnar/export": s["export"] / s["columnar"]}

    return {
        "rows": rows, "tables": {t: real[t].num_rows for t in real},
        "games": built.games + len(built.fallback), "columnar_games": built.games,
        "fallback_games": len(built.fallback),
        "fallback_reasons": sorted(set(built.fallback.values())),
        "equality": equal, "seconds": runs, "phases": phases,
        "fold_seconds": folds, "cpu_seconds": cpu, "fold_cpu_seconds": fold_cpu,
        "ratios": {**ratios(best),
                   "columnar+fold/write_table": best["write_table"] / (best["columnar"] + fold),
                   "columnar+fold/floor": best["floor"] / (best["columnar"] + fold)},
        "cpu_ratios": {**ratios(best_cpu),
                       "columnar+fold/write_table":
                           best_cpu["write_table"] / (best_cpu["columnar"] + fold_c),
                       "columnar+fold/floor": best_cpu["floor"] / (best_cpu["columnar"] + fold_c)},
        "ratios_by_pass": [ratios({k: runs[k][i] for k in CONTENDERS}) for i in range(repeat)],
    }


def report(fig: dict[str, Any]) -> str:
    lines = [
        f"{fig['games']:,} games, {fig['rows']:,} rows in the dataset; columnar path: "
        f"{fig['columnar_games']:,} games, real path (fallback): {fig['fallback_games']:,}"
        + (f" ({'; '.join(fig['fallback_reasons'])})" if fig["fallback_reasons"] else ""),
    ]
    for how, eq in fig["equality"].items():
        lines.append(f"equality ({how} fetch): {eq['columns']} columns of plays, tricks, "
                     f"events; {eq['values']:,} values compared; {eq['differing']:,} differ"
                     + (f" {eq['differing_by_column']}" if eq["differing"] else ""))
    lines += ["", f"{'':30}{'wall s':>7} {'CPU s':>7}  {'rows/s':>10}  passes: wall (CPU) s"]

    def line(label: str, wall: list[float], used: list[float], rate: bool = True) -> str:
        per = f"{fig['rows'] / min(wall):10,.0f}" if rate else " " * 10
        return (f"{label:30}{min(wall):7.2f} {min(used):7.2f}  {per}  "
                + " ".join(f"{w:.2f} ({c:.2f})" for w, c in zip(wall, used, strict=True)))

    for name, label in CONTENDERS.items():
        lines.append(line(label, fig["seconds"][name], fig["cpu_seconds"][name]))
    lines.append(line("verdicts from the fold", fig["fold_seconds"], fig["fold_cpu_seconds"],
                      rate=False))
    for how, parts in fig["phases"].items():
        for phase, s in parts.items():
            if s:
                lines.append(line(f"  {how}: {phase}", [w for w, _ in s], [c for _, c in s],
                                  rate=False))
    lines += ["", f"{'ratio (best of the passes)':30}{'wall':>7} {'CPU':>7}"]
    for k, v in fig["ratios"].items():
        lines.append(f"{k:30}{v:6.2f}x {fig['cpu_ratios'][k]:6.2f}x")
    keys = ("columnar/write_table", "columnar/floor", "export/write_table")
    lines.append("wall, by pass: " + "; ".join(
        ", ".join(f"{k} {p[k]:.2f}x" for k in keys) for p in fig["ratios_by_pass"]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m prototypes.export_columnar",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2000, help="games in the workload (default 2000)")
    p.add_argument("--seed", type=int, default=1, help="seed of the workload")
    p.add_argument("--work", type=Path, help="the bench's workload folder (default: a temporary "
                   "one, removed after)")
    p.add_argument("--repeat", type=int, default=3, help="timed passes (default 3; best kept)")
    p.add_argument("--json", type=Path, help="write the figures to this JSON file")
    args = p.parse_args(argv)
    import tempfile

    tmp = None
    if args.work is None:
        tmp = tempfile.mkdtemp(prefix="jaslog-columnar-")
    work = Work(args.work or Path(tmp or "."))
    try:
        prepare(work, args.games, args.seed)
        fig = run(work, max(1, args.repeat))
        fig["games_asked"], fig["seed"] = args.games, args.seed
        print(report(fig))
        if args.json:
            args.json.write_text(json.dumps(fig, indent=1, default=str) + "\n")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if any(e["differing"] for e in fig["equality"].values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
