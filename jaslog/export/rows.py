"""From one game's events to rows of every table, by reading the folded state.

:func:`build_game` folds the events, writes the generic rows (``events``, ``games``) and
hands the fold to the row builder of its game (``build`` in the game's ``export`` adapter)
for the game-specific tables (``plays``, ``tricks``, ``rounds``, ``players``,
``violations``). A new game of the family writes its builder there; nothing else changes.

Rows go into :class:`jaslog.export.columns.Columns` (per-column lists for ``events``, per
card and per trick values for ``plays`` (:mod:`jaslog.export.plays`), row tuples for the
smaller tables, in the column order of :mod:`jaslog.export.schema`), turned into Arrow
arrays a chunk at a time; times are RFC 3339 text until then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast, runtime_checkable

import orjson

from jaslog.analysis.rounds import Solved
from jaslog.cards import CARD_TEXT
from jaslog.engine.facts import claim_columns, ruling_columns
from jaslog.engine.fold import ROUND_OPENERS, FoldError, GameFold
from jaslog.engine.game import Game
from jaslog.events import Event, GameStarted
from jaslog.events.fast import FastPlay
from jaslog.export.columns import Columns
from jaslog.export.par import GamePar, Known, game_par
from jaslog.games import get_game
from jaslog.play.fold import start_fold

#: A chunk's rows for one partition: table name -> its columns.
Rows = dict[str, Columns]
#: A partition key: (ruleset, year); None is the Hive default (NULL) partition.
Partition = tuple[str | None, int | None]


@dataclass
class Summary:
    """What a game builder tells the ``games`` row."""

    rounds: int = 0
    rounds_complete: int = 0
    totals: list[int] = field(default_factory=list)
    totals_played: list[int] = field(default_factory=list)
    finished: bool = False
    winner_team: int | None = None
    draw: bool = False
    winners: list[str] = field(default_factory=list)
    violations: int = 0
    rulings: int = 0


@dataclass
class GameContext:
    """Everything a game's row builder reads: the fold, the events, times by seq, rounds."""

    game: str
    fold: GameFold
    events: Sequence[Event]
    at: Sequence[str | None]             # RFC 3339 text (normalized) by seq
    rows: Rows
    round_first_seq: dict[int, int]      # round -> seq of its deal (or round_score)
    round_last_seq: dict[int, int]       # round -> seq of its last event
    hands_recorded: dict[int, bool]      # round -> the deal event carried hands
    rulings: int = 0                     # ruling events in the log, not retracted
    par: GamePar = field(default_factory=GamePar)  # the analysis columns (empty: no --par)
    error: FoldError | None = None       # the integrity error that stopped the fold
    types: frozenset[str] = frozenset()  # the event types in the log
    #: the game's plays and tricks are built a column at a time (:mod:`jaslog.export.columnar`):
    #: the row builder leaves them out
    columnar: bool = False

    def at_seq(self, seq: int) -> str | None:
        return self.at[seq] if 0 <= seq < len(self.at) else None


# ---------------------------------------------------------------- pieces builders share


def rule_by_seq(violations: Sequence[Any], only_cards: bool) -> dict[int, str | None]:
    """seq -> the rule a play broke (None: a violation at that seq without a card). With
    ``only_cards``, violations without a card are left out before (the last one at a seq wins)."""
    if only_cards:
        return {v.seq: v.rule for v in violations if v.card is not None}
    return {v.seq: (v.rule if v.card is not None else None) for v in violations}


def known(values: Sequence[int] | None, side: int | None) -> int | None:
    """``values[side]``, or None when either is not known (a score-only round's sheet).

    >>> known([100, 62], 1), known(None, 1), known([100, 62], None)
    (62, None, None)
    """
    return values[side] if values is not None and side is not None else None


def irregularity_rows(ctx: GameContext) -> None:
    """A ``violations`` row for every irregularity (category ``irregularity``): its kind as
    the rule, its seat and cards; the round in play when it was recorded (NULL before the
    first deal). They are facts of the table, not rules broken: no count includes them."""
    seats, viol = ctx.fold.seats, ctx.rows["violations"]
    for number, e in ctx.fold.irregularities:
        cards = list(e.cards) if e.cards else None
        what = e.kind.replace("_", " ") + (f" ({' '.join(cards)})" if cards else "")
        viol.add((e.seq, number or None, None, e.seat, seats[e.seat],
                  cards[0] if cards is not None and len(cards) == 1 else None, cards, e.kind,
                  "irregularity", f"seat {e.seat}: {what}" + (f": {e.text}" if e.text else "")))


def round_span(ctx: GameContext, number: int, ruling_seq: int | None) -> tuple[int, int]:
    """The seqs of round ``number``'s deal and of its last event (a later ruling included)."""
    first = ctx.round_first_seq.get(number, -1)
    last = max(ctx.round_last_seq.get(number, first), ruling_seq if ruling_seq is not None else -1)
    return first, last


def add_trick(tricks: Columns, number: int, t: Any, texts: list[str], seats: Sequence[str],
              winner: int | None, trump: str | None, playing: bool | None) -> None:
    """A ``tricks`` row for trick ``t`` of round ``number`` (``playing``: its winner is on the
    playing side) in a game where each player is his own team."""
    done = t.complete
    tricks.add((number, t.number, t.leader, seats[t.leader], texts, done, winner,
                seats[winner] if winner is not None else None, winner, trump,
                t.points if done else None, None, None, [], playing, t.seqs[0], t.seqs[-1]))


#: The category of a rule every game shares, decided here once (a game's own
#: ``violation_category`` names only its own rules' categories).
SHARED_CATEGORIES: dict[str, str] = {"claim_not_guaranteed": "claim"}


def category_of(game_category: Callable[[str, int | None], str], rule: str,
                card: int | None) -> str:
    """A violation's ``category``: the shared rules' own, else the game's.

    >>> category_of(lambda rule, card: "bid", "claim_not_guaranteed", None)
    'claim'
    >>> category_of(lambda rule, card: "bid", "bid_out_of_turn", None)
    'bid'
    """
    return SHARED_CATEGORIES.get(rule) or game_category(rule, card)


def individual_tail(ctx: GameContext, per_seat: list[list[int]], tot: list[int],
                    tot_played: list[int], category: Callable[[str, int | None], str],
                    revoke: Callable[[str], bool]) -> Summary:
    """The ``violations`` and ``players`` rows and the summary of a game where each player
    is his own team. ``per_seat[seat]`` counts [..., revokes (8), violations (9), tricks_won];
    a violation with a card whose rule ``revoke`` accepts counts as a revoke."""
    g = ctx.fold.state
    seats, viol = ctx.fold.seats, ctx.rows["violations"]
    for v in g.violations:
        if v.seat is not None:
            per_seat[v.seat][9] += 1
            if v.card is not None and revoke(v.rule):
                per_seat[v.seat][8] += 1
        card = CARD_TEXT[v.card] if v.card is not None else None
        viol.add((v.seq, v.round, v.trick, v.seat, seats[v.seat] if v.seat is not None else None,
                  card, [card] if card is not None else None, v.rule,
                  category_of(category, v.rule, v.card), v.message))
    irregularity_rows(ctx)
    game_winner = g.winner
    finished = game_winner is not None
    players = ctx.rows["players"]
    for seat in range(len(per_seat)):
        players.add((seats[seat], seat, seat, None, *per_seat[seat], tot[seat],
                     (game_winner == seat) if finished else None))
    return Summary(
        rounds=len(g.rounds), rounds_complete=sum(1 for r in g.rounds if r.closed),
        totals=tot, totals_played=tot_played, finished=finished, winner_team=game_winner,
        draw=False, winners=[seats[game_winner]] if game_winner is not None else [],
        violations=len(g.violations),
        rulings=ctx.rulings,
    )


def normalize_time(at: str | None) -> str | None:
    """RFC 3339 as Arrow's parser takes it: ``T`` between date and time, upper-case ``Z``."""
    if at is None:
        return None
    if at[10] != "T" or at[-1] == "z":
        at = at[:10] + "T" + at[11:]
        if at[-1] == "z":
            at = at[:-1] + "Z"
    return at


_JSON_CACHE: dict[str, str] = {}


def _json(obj: Any) -> str | None:
    """Sorted-key JSON text of ``obj``; equal texts share one string (most games share options)."""
    if obj is None:
        return None
    text = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode()
    if len(_JSON_CACHE) > 10_000:
        _JSON_CACHE.clear()
    return _JSON_CACHE.setdefault(text, text)


#: Event types with free text or free JSON in them: their payload comes from orjson. Every
#: other type holds only ids, cards, times, calls and small ints, for which pydantic's own
#: serializer writes the same bytes (fields in model order, None left out), several times
#: faster. (The same split as the store's ``codec.canonical``.)
_FREE_TEXT = frozenset({"game_started", "ruling", "note"})


def game_row(game: str | None, started: GameStarted | None, fold: GameFold | None, events: int,
             last_seq: int, summary: Summary, ok: bool, error: str | None,
             first_at: str | None, last_at: str | None) -> tuple[Any, ...]:
    """A game's row of the ``games`` table: its header (``started``, its first event when it
    is the game's start), its options as folded, its count of events and last seq, what its
    rounds sum to (``summary``), whether it is clean, its error, its first and last times."""
    return (
        game,
        _json(started.options) if started is not None else None,
        _json(fold.options) if fold is not None else None,
        list(started.seats) if started is not None else [],
        started.dealer if started is not None else None,
        _json(started.meta) if started is not None else None,
        events,
        last_seq,
        summary.rounds,
        summary.rounds_complete,
        summary.totals,
        summary.totals_played,
        summary.finished,
        summary.winner_team,
        summary.draw,
        summary.winners,
        summary.violations,
        summary.rulings,
        ok,
        error,
        first_at,
        last_at,
    )


def payload_json(e: Event) -> bytes:
    """The event's canonical ``jaslog/1`` JSON (as :func:`jaslog.events.canonical_json`)."""
    if type(e) is FastPlay:  # read from the store in canonical form: its own bytes
        return e.payload
    if e.type not in _FREE_TEXT:
        return e.__pydantic_serializer__.to_json(e, exclude_none=True)
    return orjson.dumps({k: v for k, v in e.__dict__.items() if v is not None})


def fold_events(events: Sequence[Event]) -> tuple[GameFold | None, FoldError | None]:
    """Fold as far as the events allow: the fold and the integrity error that stopped it."""
    try:
        f = start_fold(events[0])
    except FoldError as err:
        return None, err
    for ev in events[1:]:
        try:
            f.apply(ev)
        except FoldError as err:
            return f, err
    return f, None


@runtime_checkable
class ExportAdapter(Protocol):
    """A game's ``export`` adapter (``jaslog/games/<g>/export.py``), loaded by name
    (:func:`export_adapter`): its row builder for the game-specific tables, which writes
    them from the folded game and returns what the ``games`` row says of it. It may also
    have ``columnar(ctx)``, which returns a :class:`jaslog.export.columnar.ColumnarGame` for
    a game whose tables it builds a column at a time (``ctx.columnar`` is then set, and
    ``build`` leaves those tables out), else None."""

    def build(self, ctx: GameContext) -> Summary: ...


def export_adapter(game: Game) -> ExportAdapter:
    """The game's ``export`` adapter (:class:`~jaslog.engine.game.NotSupported` when it
    declares none)."""
    return cast(ExportAdapter, game.adapter("export"))


def build_game(events: Sequence[Event], rows_for: Callable[[Partition], Rows], *,
               par: bool = False, stored_par: Known | None = None,
               solved: list[Solved] | None = None, columnar: bool = True) -> tuple[str, int]:
    """Append the rows of one game (its events in seq order) to ``rows_for(partition)``.

    Returns (game id, last seq). An integrity error does not stop the export: the rows hold
    what was folded before it and ``games.error`` says what stopped it. ``par``: fill the
    analysis columns (``rounds.par``, ``rounds.par_result``, ``plays.loss``) by solving
    every round whose hands are known (:mod:`jaslog.export.par`; slow), else leave them NULL:
    the rounds of ``stored_par`` are not solved again, those solved here are added to
    ``solved``. ``columnar``: a game whose adapter can build its plays and tricks a column at
    a time (:mod:`jaslog.export.columnar`) leaves them to it (False: every row by the row
    builder, the same values; for the tests that check so).
    """
    first = events[0]
    gid = first.game
    started = first if isinstance(first, GameStarted) else None
    ruleset = started.ruleset if started is not None else None
    at = [a if a is None or (a[10] == "T" and a[-1] != "z") else normalize_time(a)
          for a in [e.at for e in events]]
    first_at = next((a for a in at if a is not None), None)
    last_at = next((a for a in reversed(at) if a is not None), None)
    year = int(first_at[:4]) if first_at is not None else None
    rows = rows_for((ruleset, year))

    fold, error = fold_events(events)
    retracted = fold.retracted if fold is not None else {}

    # events: the raw log, and which round each event belongs to
    dicts = [e.__dict__ for e in events]
    seqs = [d["seq"] for d in dicts]
    kinds = [d["type"] for d in dicts]
    kind_of = dict(zip(seqs, kinds, strict=True)) if retracted else {}
    out = rows["events"]
    start = len(out)  # (rows of the games before, every column filled)
    out["seq"].extend(seqs)
    out["type"].extend(kinds)
    out["event_time"].extend(at)
    rounds = out["round"]
    rnd = 0
    current: int | None = None
    first_seq: dict[int, int] = {}
    last_seq: dict[int, int] = {}
    hands: dict[int, bool] = {}
    for d, kind, seq in zip(dicts, kinds, seqs, strict=True):
        r = current
        if kind == "dealt" or kind == "round_score":  # a round opens
            rnd += 1
            r = current = rnd
            if seq not in retracted:  # (a retracted one still holds what came before the fix)
                first_seq[rnd] = seq
                hands[rnd] = kind == "dealt" and d["hands"] is not None
        elif kind == "ruling" or kind == "note":
            own = d.get("round")
            if own is not None:
                r = own
        elif kind == "correction" and retracted:  # the round a retracted opener opened is gone
            rnd -= sum(1 for s in d["retracts"] if kind_of.get(s) in ROUND_OPENERS
                       and (c := retracted.get(s)) is not None and c.seq == seq)
            r = current = rnd or None
        if r is not None:
            last_seq[r] = seq
        rounds.append(r)
    for name in ("seat", "card", "call", "points", "id"):
        out[name].extend([d.get(name) for d in dicts])
    if "round_score" in kinds:  # its points are the sheet's, per team: not a roem claim
        points = out["points"]
        for i in range(len(points) - len(kinds), len(points)):
            if not isinstance(points[i], int | None):
                points[i] = None
    n = len(kinds)
    if retracted:
        out["retracted"].extend([s in retracted for s in seqs])
        out["retracted_by"].extend([retracted[s].seq if s in retracted else None for s in seqs])
    else:
        out["retracted"].extend([False] * n)
        out["retracted_by"].extend([None] * n)
    # a play read from the store's columns alone: its bytes written by Arrow with the chunk's
    # (:class:`jaslog.export.columns.EventsColumns`), not one by one here
    out["payload"].extend([None if type(e) is FastPlay and "payload" not in d
                           and d["id"] is None and d["recorded_at"] is None
                           else payload_json(e) for e, d in zip(events, dicts, strict=True)])
    out.fill_game(gid)

    summary = Summary()
    if fold is not None:
        ctx = GameContext(gid, fold, events, at, rows, first_seq, last_seq, hands,
                          kinds.count("ruling") - sum(1 for s in retracted
                                                      if kind_of[s] == "ruling"),
                          game_par(fold, stored=stored_par) if par else GamePar(), error,
                          frozenset(kinds))
        if solved is not None:
            solved += ctx.par.solved
        adapter = export_adapter(get_game(fold.game))
        by_columns = getattr(adapter, "columnar", None)
        plan = by_columns(ctx) if by_columns is not None and columnar and not par else None
        ctx.columnar = plan is not None
        summary = adapter.build(ctx)
        if plan is not None:
            plan.start, plan.size = start, n
            out.columnar.append(plan)
    ok = error is None and summary.violations == 0
    rows["games"].add(game_row(fold.game if fold is not None else None, started, fold,
                               len(events), events[-1].seq, summary, ok,
                               str(error) if error is not None else None, first_at, last_at))
    for cols in rows.values():
        cols.fill_game(gid)
    return gid, events[-1].seq



__all__ = ["GameContext", "Rows", "Summary", "build_game", "claim_columns", "ruling_columns"]
