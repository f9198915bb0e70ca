"""What the toy game shows: the report of its rounds (the referee's view) and a seat's view
of the table now (:func:`seat_view`, the game's one visibility rule), with the frame and the
report entry every game builds from it, and its rule for events (:func:`redact_event`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.engine.common import card_list, ruling_dict, tricks_report, tricks_view, violations_seen
from jaslog.engine.fold import GameFold
from jaslog.engine.view import (
    CLAIMED,
    Frame,
    Seen,
    Sight,
    Viewer,
    ended_round,
    live_round,
    played_out,
    redact_common,
    seat_view_frame,
    secret_view,
    viewer_of,
)
from tests.games.toy.rules import Round, ToyGame, Trick, legal


def _winner(t: Trick) -> int:
    return t.winner


def _doubles(r: Round) -> list[dict[str, Any]]:
    """The doubles as the table saw them, as ``bids`` (what the viewer lists)."""
    return [{"seat": d.seat, "call": "double"} for d in r.doubles]


def rounds_report(fold: GameFold, outcomes: Sequence[Any]) -> list[dict[str, Any]]:
    """Every round for ``check --json`` (the referee's view: everything), with its
    outcome of ``outcomes`` (``state.outcomes()``, worked out once by the audit)."""
    g: ToyGame = fold.state
    out = []
    for r, o in zip(g.rounds, outcomes, strict=True):
        out.append({
            "round": r.number,
            "dealer": r.dealer,
            "elder": r.elder,
            "hands": [card_list(h) for h in r.dealt] if r.dealt is not None and r.over else None,
            "bids": _doubles(r),
            "doubled": r.doubled,
            "chooser": r.elder,
            "tricks": tricks_report(r.tricks, _winner),
            "points": o.tricks,
            "tricks_won": o.tricks,
            "result": o.result,
            "score": o.score,
            "ruling": ruling_dict(r.ruling),
        })
    return out


def seat_view(fold: GameFold, viewer: Viewer = None, *, secret: bool = False) -> dict[str, Any]:
    """The table as ``viewer`` may see it now (None: the referee; or the public,
    :data:`jaslog.engine.view.PUBLIC`): during a live round a seat's own hand, how many
    cards the other holds, the doubles and the tricks, its own violations, and
    (``must_follow``) whether the seat due holds the suit led: to that seat and the referee
    only. The public sees no hand and no violation. ``secret``: the round is secret to the
    viewer at the head, though ``fold`` may be past its last card."""
    g: ToyGame = fold.state
    sight = viewer_of(viewer)
    seat = sight.seat
    if seat is not None and not 0 <= seat < 2:
        raise ValueError(f"seat {seat} is not a toy seat (0 or 1)")
    kind, turn = g.expected()
    view: dict[str, Any] = {
        "game": fold.game_id, "ruleset": fold.ruleset, "seats": list(fold.seats), "viewer": seat,
        "round": 0, "dealer": None, "elder": None, "expects": kind, "turn": turn, "live": False,
        "hands": [None, None], "dealt": [None, None], "counts": [0, 0], "legal": None,
        "bids": [], "doubled": False, "must_follow": None,
        "tricks": [], "points": [0, 0], "tricks_won": [0, 0],
        "result": None, "score": None, "ruling": None, "violations": [], "totals": g.totals(),
        "finished": g.finished, "winner": g.winner,
    }
    if not g.rounds:
        return view
    r = g.rounds[-1]
    o = g.outcome(r)
    full = sight.full or (played_out(r) and not secret)
    view.update(round=r.number, dealer=r.dealer, elder=r.elder, live=not r.closed,
                points=o.tricks, tricks_won=o.tricks, bids=_doubles(r), doubled=r.doubled,
                counts=[5 - r.by_seat[s].bit_count() for s in range(2)])
    if r.hands_known:
        view["hands"] = [card_list(h) if full or s == seat else None for s, h in enumerate(r.hands)]
    if r.dealt is not None:
        view["dealt"] = [card_list(h) if full or s == seat else None for s, h in enumerate(r.dealt)]
    if kind == "play" and turn is not None and r.hands_known and (full or turn == seat):
        view["legal"] = card_list(g.legal_plays())
        t = r.tricks[-1] if r.tricks else None
        if t is not None and not t.complete:  # whether the seat due holds the suit led
            view["must_follow"] = legal(r.hands[turn], t.cards) != r.hands[turn]
    view["tricks"] = tricks_view(r.tricks, _winner)
    if r.over:  # claimed (not ``full``): the sheet's score, no result that tells a revoke
        view.update(result=o.result if full else CLAIMED, score=o.score)
    view["ruling"] = ruling_dict(r.ruling)
    view["violations"] = violations_seen(r.violations, full, seat)
    return view


#: the keys of the seat view the viewer shows as they are
EXTRA = ("elder",)


def frame(fold: GameFold, seat: int | None, hidden: bool, head: GameFold) -> Frame:
    """The viewer's frame of the table now, from :func:`seat_view`."""
    return seat_view_frame(secret_view(seat_view, fold, seat, hidden), "no trumps", EXTRA)


def report_round(entry: dict[str, Any], head: GameFold, seat: int | None, live: bool) -> dict[str, Any]:
    """The report's entry of a secret round as ``seat`` may see it (None: the public): what
    the table saw, the doubles with it (they are public)."""
    if live:
        assert seat is not None  # the public never sees the live round
        return live_round(entry, seat_view(head, seat, secret=True), ("bids",), 2)
    return ended_round(entry, ("elder", "bids", "chooser"))


def redact_event(event: dict[str, Any], sight: Sight, seen: Seen) -> dict[str, Any]:
    """A toy event as ``sight`` may see it: what every game hides; a double is public."""
    return redact_common(event, sight, seen)
