"""Recomputing what the store keeps beside the events, for ``verify``: a difference is a problem.

The store writes, with the events that make them, rows that the listings and filters read
instead of folding every game: where each game stands (``game_results``) and who won
(``game_winners``, :mod:`jaslog.store.results`), where it is played (``game_places``), when
it was played (``games.created_at``), and each event's format version (``events.version``,
which says how its hashed bytes are read). None of them is in a hash chain, so someone with
the database could edit them and every chain would still hold. ``verify`` recomputes them from
the events and reports each difference (kind ``derived``; ``version`` for a format version
in which the bytes do not read).

What must hold, for a game whose chain holds:

* every event reads in the format version its row says;
* its ``game_places`` row is what its ``game_started`` says (:func:`place_of`), and
  ``games.created_at`` is its ``at``, when it has one;
* every ``game_results`` row (written at the head of the batch that changed where the game
  stands) is where the game's events stand at that seq; the latest one is where they stand at
  the head, and a game over by its events has one;
* the ``game_winners`` of each ``game_results`` row are the players its winner names, and
  no others;
* its round facts (``round_facts``, once a build of them is complete: a projection,
  :mod:`jaslog.store.projection`) are what its fold says of each closed round; when they
  are not, ``jaslog reindex`` builds them again.

The last three need the game folded; a run from the verified heads (``--incremental``) checks
them only for the games it checks in full (what that leaves to a full run is in
docs/recording-and-store.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, inspect, select
from sqlalchemy.engine import Connection

from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import Event, GameStarted
from jaslog.games import get_game
from jaslog.play.fold import start_fold
from jaslog.store.codec import UnreadableEvent, decode, parse_time
from jaslog.store.game_rows import place_of
from jaslog.store.projection import (
    BUILT,
    StoredRound,
    build_state,
    facts_detailed,
    facts_of,
    read_round_facts,
)
from jaslog.store.queries import winning_players
from jaslog.store.results import PLAYING, Standing, standing
from jaslog.store.schema import (
    GAME_PLACES,
    GAME_RESULTS,
    GAME_WINNERS,
    GAMES,
    recorded_version,
    tables_version,
)
from jaslog.store.types import Problem, StoreError, VerifyReport

#: The derived tables a store may have (an older one, opened to read, may lack some).
DERIVED = ("game_results", "game_winners", "game_places")

_IDS: Any = bindparam("ids", expanding=True)


@dataclass
class Derived:
    """A game's derived rows as stored: ``results`` (rows with seq, finished, winner, in seq
    order), ``winners`` (the players of each seq), ``place`` (its ``game_places`` row, None:
    none)."""

    results: list[Any] = field(default_factory=list)
    winners: dict[int, list[str]] = field(default_factory=dict)
    place: Any = None
    #: its stored round facts, by round (None: the store keeps none to check)
    facts: dict[int, StoredRound] | None = None
    #: the store keeps each round's ``detail`` (checked with the facts)
    detailed: bool = False


def derived_tables(conn: Connection) -> frozenset[str]:
    """Which of the derived tables the store has (``round_facts`` once fully built)."""
    have = inspect(conn)
    out = {t for t in DERIVED if have.has_table(t)}
    if have.has_table("round_facts") and build_state(conn) == BUILT:
        out.add("round_facts")
    return frozenset(out)


def derived_of(conn: Connection, ids: list[str], tables: frozenset[str]) -> dict[str, Derived]:
    """The derived rows of the games ``ids``, by game."""
    out = {i: Derived() for i in ids}
    if not ids:
        return out
    if "game_results" in tables:
        for r in conn.execute(select(GAME_RESULTS).where(GAME_RESULTS.c.game.in_(_IDS))
                              .order_by(GAME_RESULTS.c.game, GAME_RESULTS.c.seq), {"ids": ids}):
            out[r.game].results.append(r)
    if "game_winners" in tables:
        for r in conn.execute(select(GAME_WINNERS).where(GAME_WINNERS.c.game.in_(_IDS))
                              .order_by(GAME_WINNERS.c.game, GAME_WINNERS.c.seq,
                                        GAME_WINNERS.c.player), {"ids": ids}):
            out[r.game].winners.setdefault(r.seq, []).append(r.player)
    if "game_places" in tables:
        for r in conn.execute(select(GAME_PLACES).where(GAME_PLACES.c.game.in_(_IDS)),
                              {"ids": ids}):
            out[r.game].place = r
    if "round_facts" in tables:
        detailed = facts_detailed(conn)
        for d in out.values():
            d.facts = {}
            d.detailed = detailed
        for f in read_round_facts(conn, ids, detail=True):
            out[f.game].facts[f.round] = f  # type: ignore[index]
    return out


def read_events(rep: VerifyReport, game: str, rows: Iterable[Any]) -> list[Event] | None:
    """The events of ``rows`` read in the format version each row says; None, and a problem
    (``version``), when one does not read in it."""
    out = []
    for r in rows:
        try:
            out.append(decode(r.payload, r.version, game, r.seq))
        except UnreadableEvent as e:
            rep.problems.append(Problem(game, r.seq, "version", f"its format version column says "
                                        f"{r.version}, in which its hashed bytes do not read "
                                        f"({e.reason}): the column was edited behind the "
                                        "store's back"))
            return None
    return out


def _said(s: Standing | Any) -> str:
    """Where a game stands, in words: ``s`` a :class:`Standing` or a ``game_results`` row."""
    if not s.finished:
        return "is not over"
    if s.winner is None:
        return "is over without a winner"
    return "ended in a draw" if s.winner == "draw" else f"was won by {s.winner}"


def _as_winner(text: str | None) -> Any:
    return int(text) if text is not None and text.isdigit() else text


def check_place(rep: VerifyReport, game: str, header: Any, started: Event, d: Derived,
                tables: frozenset[str]) -> None:
    """The game's ``game_places`` row and ``games.created_at`` against its ``game_started``."""
    if not isinstance(started, GameStarted):
        return  # the chain check says what is wrong with seq 0
    if "game_places" in tables:
        want = place_of(started)
        if d.place is None:
            rep.problems.append(Problem(game, 0, "derived", "the game has no row in game_places "
                                        "(where it is played): it was removed behind the "
                                        "store's back"))
        elif (d.place.table_id, d.place.tournament) != (want["table_id"], want["tournament"]):
            rep.problems.append(Problem(
                game, 0, "derived", f"game_places says table {d.place.table_id!r}, tournament "
                f"{d.place.tournament!r}, but its game_started says table {want['table_id']!r}, "
                f"tournament {want['tournament']!r}: the row was edited behind the store's back"))
    if started.at and header is not None:
        try:
            want_at = parse_time(started.at)
        except StoreError:
            return
        if header.created_at != want_at:
            rep.problems.append(Problem(
                game, 0, "derived", f"the games table says it was played at {header.created_at}, "
                f"but its game_started says {want_at}: the row was edited behind the store's "
                "back"))


def check_winners(rep: VerifyReport, game: str, kind: str, seats: list[str],
                  d: Derived) -> None:
    """The ``game_winners`` of each ``game_results`` row: the players its winner names."""
    at = {r.seq: r for r in d.results}
    for seq, players in d.winners.items():
        r = at.get(seq)
        if r is None:
            rep.problems.append(Problem(game, seq, "derived", f"game_winners names {', '.join(players)} "
                                        f"as winners at seq {seq}, where game_results has no row: "
                                        "the rows were written behind the store's back"))
            return
    for r in d.results:
        want = sorted(set(winning_players(get_game(kind).scoring, seats,
                                          _as_winner(r.winner)))) if r.finished else []
        have = sorted(d.winners.get(r.seq, []))
        if have != want:
            rep.problems.append(Problem(
                game, r.seq, "derived", f"game_winners names {', '.join(have) or 'nobody'} as "
                f"the winners at seq {r.seq}, but its game_results row (winner {r.winner}) "
                f"names {', '.join(want) or 'nobody'}: the rows were edited behind the store's "
                "back"))
            return


def check_results(rep: VerifyReport, game: str, events: list[Event],
                  d: Derived) -> GameFold | None:
    """Every ``game_results`` row against where the game's events stand at its seq, and the
    latest against the head; the game's fold (None: a problem was found, or the log no
    longer folds, which is left alone here: the store says so when it is read)."""
    rows = {r.seq: r for r in d.results}
    head = events[-1].seq
    past = [s for s in rows if s > head or s < 0]
    if past:
        rep.problems.append(Problem(game, past[0], "derived", f"game_results has a row at seq "
                                    f"{past[0]}, past the game's last event (seq {head}): it was "
                                    "written behind the store's back"))
        return None
    try:
        f = start_fold(events[0])
        now = standing(f)
        if 0 in rows and (bool(rows[0].finished), rows[0].winner) != (now.finished, now.winner):
            rep.problems.append(Problem(game, 0, "derived", f"game_results says that at seq 0 "
                                        f"the game {_said(rows[0])}: the row was written behind "
                                        "the store's back"))
            return None
        for e in events[1:]:
            f.apply(e)
            r = rows.get(e.seq)
            if r is not None:
                now = standing(f)
                if (bool(r.finished), r.winner) != (now.finished, now.winner):
                    rep.problems.append(Problem(
                        game, e.seq, "derived", f"game_results says that at seq {e.seq} the game "
                        f"{_said(r)}, but its events say it {_said(now)}: the row was written "
                        "or edited behind the store's back"))
                    return None
        now = standing(f)
    except FoldError:
        return None
    last = d.results[-1] if d.results else None
    if last is None:
        if now != PLAYING:
            rep.problems.append(Problem(game, head, "derived", f"the game {_said(now)} by its "
                                        "events, but game_results has no row for it (the "
                                        "listings take it for a game being played): the rows "
                                        "were removed behind the store's back"))
            return None
        return f
    if (bool(last.finished), last.winner) != (now.finished, now.winner):
        rep.problems.append(Problem(
            game, last.seq, "derived", f"game_results says the game {_said(last)} (its latest "
            f"row, at seq {last.seq}), but by its events it {_said(now)} at its head (seq "
            f"{head}): a row was removed behind the store's back"))
        return None
    return f


def check_facts(rep: VerifyReport, game: str, f: GameFold, d: Derived) -> None:
    """The game's stored round facts against what its fold says of each closed round: the
    first difference is a problem (a stale or edited projection: ``jaslog reindex``)."""
    if d.facts is None:
        return
    want = {x.round: x for x in facts_of(f)}
    for number in sorted(set(want) | set(d.facts)):
        w, got = want.get(number), d.facts.get(number)
        if w is not None and got is not None and (
                got.result, got.recorded, got.score, got.final, got.roem, got.verdicts) == (
                w.result, w.recorded, w.score, w.final, w.roem, w.verdicts or []) and (
                not d.detailed or got.detail == w.detail):
            continue
        said = "has none" if got is None else f"says {got.result} {got.final}"
        truth = "has no such closed round" if w is None else f"say {w.result} {w.final}"
        rep.problems.append(Problem(
            game, None, "derived", f"round_facts of round {number} {said}, but the game's "
            f"events {truth}: the projection is stale or was edited behind the store's back "
            "(the log is not: `jaslog reindex` builds the round facts again)"))
        return


def check_game(rep: VerifyReport, game: str, header: Any, seats: list[str], rows: list[Any],
               d: Derived, tables: frozenset[str]) -> None:
    """All of a game's derived rows, from its event rows (every one, from seq 0)."""
    events = read_events(rep, game, rows)
    if not events:
        return
    check_place(rep, game, header, events[0], d, tables)
    try:
        kind = start_fold(events[0]).game
    except FoldError:
        return
    before = len(rep.problems)
    f = check_results(rep, game, events, d) if "game_results" in tables else None
    if "game_winners" in tables and "game_results" in tables and len(rep.problems) == before:
        check_winners(rep, game, kind, seats, d)  # (a wrong result says it first)
    if f is not None and len(rep.problems) == before:
        check_facts(rep, game, f, d)


def check_from_head(rep: VerifyReport, game: str, header: Any, seats: list[str], first: Any,
                    rows: list[Any], d: Derived, tables: frozenset[str]) -> None:
    """What a run from the verified head checks of a game's derived rows without folding it:
    the rows it reads (``first``: seq 0; ``rows``: from the head on) read in their format
    version, its place, its winners against its results."""
    events = read_events(rep, game, [first, *rows])
    if not events:
        return
    check_place(rep, game, header, events[0], d, tables)
    try:
        kind = start_fold(events[0]).game
    except FoldError:
        return
    if "game_winners" in tables and "game_results" in tables:
        check_winners(rep, game, kind, seats, d)
    head = events[-1].seq
    if d.results and d.results[-1].seq > head:
        rep.problems.append(Problem(game, d.results[-1].seq, "derived", f"game_results has a "
                                    f"row at seq {d.results[-1].seq}, past the game's last event "
                                    f"(seq {head}): it was written behind the store's back"))


def derived_orphans(conn: Connection, rep: VerifyReport, tables: frozenset[str]) -> None:
    """Derived rows of a game the store does not have (and of which nothing was said yet: a
    deleted game's signatures say it first)."""
    said = {p.game for p in rep.problems}
    for name in sorted(tables & set(DERIVED)):  # (round_facts: by games.pos, none orphaned)
        t = {"game_results": GAME_RESULTS, "game_winners": GAME_WINNERS,
             "game_places": GAME_PLACES}[name]
        for g in conn.execute(select(t.c.game).distinct().where(
                t.c.game.not_in(select(GAMES.c.id)))).scalars():
            if g in said:
                continue
            said.add(g)
            rep.problems.append(Problem(g, None, "derived", f"{name} has rows of a game the "
                                        "store does not have: they were written behind the "
                                        "store's back, or the game was deleted"))


def check_schema_version(conn: Connection, rep: VerifyReport) -> None:
    """The schema version ``jaslog_meta`` records against the version the tables are of."""
    text = recorded_version(conn)
    tables = tables_version(conn)
    if text is None:
        rep.problems.append(Problem("(store)", None, "derived", "jaslog_meta records no schema "
                                    f"version (the store's tables are those of version "
                                    f"{tables}): the row was removed behind the store's back"))
        return
    try:
        version = int(text)
    except ValueError:
        rep.problems.append(Problem("(store)", None, "derived", f"jaslog_meta records the schema "
                                    f"version {text!r}, which is not a version (the store's "
                                    f"tables are those of version {tables}): it was edited "
                                    "behind the store's back"))
        return
    if version != tables:
        rep.problems.append(Problem("(store)", None, "derived", f"jaslog_meta records schema "
                                    f"version {version}, but the store's tables are those of "
                                    f"version {tables}: it was edited behind the store's back"))
